"""Applies the ordered Alembic migrations at start-up and reports the schema version.

A database already at the newest schema, which is every start but the first after an upgrade,
is recognised without Alembic: its revision is read with SQLAlchemy and compared with the
newest migration file's. Importing Alembic to find there is nothing to do cost every command
about a third of a second.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from docchat import __version__
from docchat.store.engine import WRITE_OPTION, WRITERS_LOCK

MIGRATIONS = Path(__file__).with_name("migrations")
# Which docchat brought the database to each revision (0013): an older one names it when refusing.
VERSIONS_TABLE = "schema_upgrades"
_REVISION = re.compile(r"^(down_revision|revision)\s*(?::[^=]*)?=\s*(?:None|[\"']([^\"']*)[\"'])\s*$", re.M)


def _config():
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Applies every pending revision up to `revision` in one transaction, with the row that
    names this docchat (from 0013 on): all of them and the row, or nothing. A failure raises
    Upgrading, which names the step that failed. Callers opening a user's database go through
    docchat.store.upgrade, which refuses a newer one and backs up first."""
    if revision == "head" and _at_newest(engine):
        return
    from alembic import command

    config = _config()
    applied: list[str] = []
    config.attributes["applied"] = applied
    # The write option: SQLite's BEGIN IMMEDIATE, so no other writer gets in between the
    # revision read and the last revision (our hook begins the transaction, not pysqlite's
    # implicit one, which would commit before each DDL statement).
    with engine.connect().execution_options(**{WRITE_OPTION: True}) as connection:
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    # Instances starting at once on a shared server migrate one after the other:
                    # the later ones find nothing left to do.
                    connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITERS_LOCK})")
                config.attributes["connection"] = connection
                command.upgrade(config, revision)
                if applied:  # not when another process had just done it (it waited for that one)
                    _record(connection)
        except Exception as error:
            raise Upgrading(applied[-1] if applied else None, error) from error


class Upgrading(Exception):
    """A migration failed; its transaction was rolled back. `after`: the last revision that
    had run in it (None when the first failed)."""

    def __init__(self, after: str | None, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.after = after
        self.cause = cause


def _record(connection: Connection) -> None:
    from sqlalchemy import bindparam, inspect, text

    from docchat.store.tables import UTCDateTime

    if not inspect(connection).has_table(VERSIONS_TABLE):
        return
    stored = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    insert = text(f"INSERT INTO {VERSIONS_TABLE} (revision, docchat_version, upgraded_at) "
                  "VALUES (:revision, :version, :at)").bindparams(bindparam("at", type_=UTCDateTime))
    connection.execute(insert, {"revision": stored, "version": __version__, "at": datetime.now(timezone.utc)})


def writer_version(connection: Any) -> str | None:
    """The docchat version that last migrated the database a DB-API connection (sqlite3 or
    psycopg) reads, or None when it never said."""
    try:
        cursor = connection.cursor()
        cursor.execute(f"SELECT docchat_version FROM {VERSIONS_TABLE} ORDER BY pk DESC LIMIT 1")
        row = cursor.fetchone()
    except Exception:  # no such table: written before 0013, or by something else
        return None
    return row[0] if row else None


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def newest_revision() -> str | None:
    """The newest migration's revision, read from the files as Alembic would find it; None
    when the files do not name exactly one (then Alembic decides)."""
    return _newest(tuple(sorted((MIGRATIONS / "versions").glob("*.py"))))


def known_revisions() -> tuple[str, ...]:
    """Every revision the migration files name, oldest first (empty when they do not form one
    line; then Alembic decides)."""
    return _chain(tuple(sorted((MIGRATIONS / "versions").glob("*.py"))))


@functools.cache
def _newest(files: tuple[Path, ...]) -> str | None:
    chain = _chain(files)
    return chain[-1] if chain else None


@functools.cache
def _chain(files: tuple[Path, ...]) -> tuple[str, ...]:
    parent_of = {}
    for path in files:
        named = dict(_REVISION.findall(path.read_text(encoding="utf-8")))
        if "revision" not in named or "down_revision" not in named:
            return ()
        parent_of[named["revision"]] = named["down_revision"]
    child_of = {parent: child for child, parent in parent_of.items()}
    if len(child_of) != len(parent_of):  # two revisions with one parent: branches
        return ()
    chain, revision = [], child_of.get("")
    while revision is not None:
        chain.append(revision)
        revision = child_of.get(revision)
    return tuple(chain) if len(chain) == len(parent_of) else ()


def _at_newest(engine: Engine) -> bool:
    newest = newest_revision()
    if newest is None:
        return False
    try:
        with engine.connect() as connection:
            stored = [row[0] for row in connection.exec_driver_sql("SELECT version_num FROM alembic_version")]
    except DBAPIError:  # a new database: no version table yet
        return False
    return stored == [newest]
