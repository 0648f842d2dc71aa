"""The composition root: the only place where real parts are wired together."""

from __future__ import annotations

import os
from dataclasses import dataclass

from docchat.config import Settings
from docchat.memory.tokens import TokenCounter, counter_for
from docchat.services.conversations import ConversationService
from docchat.services.transfer import TransferService
from docchat.store.engine import make_engine
from docchat.store.migrate import upgrade
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

# Libraries below us otherwise try the network at import time and wait on it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@dataclass(frozen=True)
class Services:
    settings: Settings
    conversations: ConversationService
    transfer: TransferService


def build_services(settings: Settings | None = None, *, counter: TokenCounter | None = None) -> Services:
    """Opens the database, applies pending migrations, and wires the services over it."""
    settings = settings or Settings()
    url = settings.resolved_database_url
    engine = make_engine(url, busy_timeout_s=settings.busy_timeout_s)
    upgrade(engine)
    uow = SqlUnitOfWorkFactory(engine)
    counter = counter or counter_for(settings.tokenizer_model)
    return Services(
        settings=settings,
        conversations=ConversationService(uow, counter, database=_display_url(engine)),
        transfer=TransferService(uow, counter),
    )


def _display_url(engine) -> str:
    # Never show a password from a PostgreSQL URL.
    return engine.url.render_as_string(hide_password=True)
