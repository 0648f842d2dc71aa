"""A process's first step: the settings' database opened for this docchat. Refused when a newer
docchat wrote it, backed up and upgraded when an older one did (docchat.store.upgrade), claimed
by this process, and the answers an earlier process left streaming settled (a crash's, or a
stale one's: docchat.services.conversation_log)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from sqlalchemy import Engine

from docchat.config import Settings
from docchat.domain import utcnow
from docchat.ports import UnitOfWorkFactory
from docchat.services.conversation_log import STALE_STREAM, interrupt_abandoned_answers
from docchat.services.registry import Held
from docchat.store.backup import sqlite_path
from docchat.store.engine import make_engine
from docchat.store.migrate import current_revision
from docchat.store.presence import Presence
from docchat.store.unit_of_work import SqlUnitOfWorkFactory
from docchat.store.upgrade import open_for_this_version
from docchat.upgrade_backups import FOLDER as UPGRADE_BACKUPS


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
    it starts the LLM server; `open_database` takes it first, on the engine it keeps."""
    engine = make_engine(settings.resolved_database_url, busy_timeout_s=settings.busy_timeout_s)
    try:
        return _upgraded(settings, engine)
    finally:
        engine.dispose()


def open_database(settings: Settings) -> Database:
    engine = make_engine(settings.resolved_database_url, busy_timeout_s=settings.busy_timeout_s)
    upgraded = _upgraded(settings, engine)
    uow = SqlUnitOfWorkFactory(engine)
    presence = Presence(sqlite_path(settings.resolved_database_url),
                        while_alone=partial(interrupt_abandoned_answers, uow, before=None))
    if not presence.alone:
        interrupt_abandoned_answers(uow, before=utcnow() - STALE_STREAM)
    return Database(uow, engine.url.render_as_string(hide_password=True), partial(current_revision, engine),
                    presence, upgraded)


def _upgraded(settings: Settings, engine: Engine) -> str | None:
    done = open_for_this_version(engine, settings.resolved_data_dir / UPGRADE_BACKUPS,
                                 busy_timeout_s=settings.busy_timeout_s)
    return done.line() if done else None
