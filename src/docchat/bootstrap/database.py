"""A process's first step: the settings' database opened for this docchat. Refused when a newer
docchat wrote it, backed up and upgraded when an older one did (docchat.store.upgrade), claimed
by this process, and the answers an earlier process left streaming settled (a crash's, or a
stale one's: docchat.services.recovery)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from docchat.config import Settings
from docchat.domain import utcnow
from docchat.ports import UnitOfWorkFactory
from docchat.services.recovery import STALE_STREAM, interrupt_abandoned_answers
from docchat.services.registry import Held
from docchat.store.backup import sqlite_path
from docchat.store.engine import make_engine
from docchat.store.migrate import current_revision
from docchat.store.presence import Presence
from docchat.store.unit_of_work import SqlUnitOfWorkFactory
from docchat.store.upgrade import upgrade_database


@dataclass(frozen=True)
class Database:
    uow: UnitOfWorkFactory
    # Where the store is, as the health report shows it (its password hidden).
    shown: str = "given"
    schema_version: Callable[[], str | None] = lambda: None
    # This process's claim on the database, let go of when it closes its services.
    presence: Held | None = None
    # What opening it did to its schema, as the start-up line says it; None when nothing.
    upgraded: str | None = None


def upgraded_database(settings: Settings) -> str | None:
    """The settings' database brought to this docchat's schema, and closed again: the start-up
    line of an upgrade (where its backup is), or None. `docchat run` takes this step alone, before
    it starts the LLM server; `open_database` takes it first."""
    done = upgrade_database(settings.resolved_database_url, settings.resolved_data_dir,
                            busy_timeout_s=settings.busy_timeout_s)
    return done.line() if done else None


def open_database(settings: Settings) -> Database:
    upgraded = upgraded_database(settings)
    engine = make_engine(settings.resolved_database_url, busy_timeout_s=settings.busy_timeout_s)
    uow = SqlUnitOfWorkFactory(engine)
    presence = Presence(sqlite_path(settings.resolved_database_url),
                        while_alone=partial(interrupt_abandoned_answers, uow, before=None))
    if not presence.alone:
        interrupt_abandoned_answers(uow, before=utcnow() - STALE_STREAM)
    return Database(uow, engine.url.render_as_string(hide_password=True), partial(current_revision, engine),
                    presence, upgraded)
