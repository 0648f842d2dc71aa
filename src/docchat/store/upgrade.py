"""Opening a user's database for this docchat: refused when a newer docchat wrote it, backed up
before its schema changes, and migrated all at once or not at all.

- A database at a revision this docchat does not know (a newer docchat migrated it) is only read:
  its revision and the docchat that wrote it, with a plain connection that sets nothing (docchat's
  own sets WAL mode, which rewrites the header of a file in rollback-journal mode). It is refused
  with one line; no file is written, no backup made.
- SQLite, at an older revision: first a copy of the database file, made with SQLite's backup API
  (one read transaction: a consistent copy even beside another process's writes), into
  `<data dir>/backups/before-<new revision>-<UTC time>.db`, written beside its name and renamed.
  The database alone: a migration changes nothing else in the data dir (documents, settings and
  the index are untouched), and putting that one file back as docchat.db undoes the upgrade. The
  archive `docchat backup` writes would copy every document too, and brings its copy to the
  newest schema, the opposite of what is wanted here. The last three automatic backups are kept
  (docchat.upgrade_backups); nothing else in that folder is ever removed.
- Every pending revision runs in one transaction (docchat.store.migrate): a failure, a full disk
  or a killed process leaves the database as it was, on SQLite (DDL is transactional there; our
  connection hook, not pysqlite, begins the transaction) and on PostgreSQL (transactional DDL).
  The backup is for a user who wants to go back to the older docchat after a successful upgrade.
- PostgreSQL: no backup. A server database is its operator's to back up (pg_dump); docchat says
  so in the line it prints after upgrading one.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from docchat import __version__
from docchat.errors import DatabaseNotOpened
from docchat.store.backup import sqlite_path
from docchat.store.engine import make_engine
from docchat.store.migrate import Upgrading, known_revisions, newest_revision, upgrade, writer_version
from docchat.text import one_line
from docchat.upgrade_backups import FOLDER, new_name, prune


class NewerDatabase(DatabaseNotOpened):
    """The database was migrated by a newer docchat; nothing was written to it."""


class UpgradeFailed(DatabaseNotOpened):
    """A migration failed and its transaction was rolled back: the database is as it was."""


@dataclass(frozen=True)
class Upgrade:
    """What opening the database did to its schema."""

    before: str | None  # None: a new database
    after: str | None
    backup: Path | None
    server: bool  # PostgreSQL: the operator backs it up

    def line(self) -> str | None:
        """The start-up line, or None for a new database (there was nothing to keep)."""
        if self.before is None:
            return None
        done = f"upgraded the database from schema {self.before} to {self.after}"
        if self.backup is not None:
            return f"{done}; the database as it was is in {self.backup}"
        if self.server:
            return (f"{done} in one transaction; docchat makes no backup of a server database: "
                    "back it up yourself (pg_dump) before upgrading docchat")
        return done


def upgrade_database(database_url: str, data_dir: Path, *, busy_timeout_s: float = 10.0) -> Upgrade | None:
    """The public way to open a data dir's database for this docchat before anything else does
    (`docchat run` calls it before starting the LLM server): refused, backed up, upgraded, closed."""
    engine = make_engine(database_url, busy_timeout_s=busy_timeout_s)
    try:
        return open_for_this_version(engine, data_dir / FOLDER, busy_timeout_s=busy_timeout_s)
    finally:
        engine.dispose()


def open_for_this_version(engine: Engine, backups: Path, *, busy_timeout_s: float = 10.0) -> Upgrade | None:
    """Brings the database `engine` opens to this docchat's schema, its automatic backup in the
    folder `backups`; None when it already was (every start but the first after an upgrade: one
    read of a small table)."""
    newest = newest_revision()
    path = sqlite_path(engine.url.render_as_string(hide_password=False))
    stored, writer = _stored(engine, path, busy_timeout_s)
    if stored is not None and stored == newest:
        return None
    known = known_revisions()
    if stored is not None and known and stored not in known:
        raise NewerDatabase(f"the database was written by {f'docchat {writer}' if writer else 'a newer docchat'} "
                            f"(schema {stored}); this is docchat {__version__} (schema {newest}). Nothing was "
                            f"changed: open it with docchat {writer or 'of that version'} or newer")
    backup = _backup(path, backups, stored, newest, busy_timeout_s) if stored is not None and path else None
    try:
        upgrade(engine)
    except Upgrading as failed:
        raise UpgradeFailed(_failure(stored, newest, known, failed, backup)) from None
    finally:
        if backup is not None:  # after a failure too: a start retried many times fills no disk
            prune(backups)
    return Upgrade(stored, newest, backup, server=path is None)


def _stored(engine: Engine, path: Path | None, busy_timeout_s: float) -> tuple[str | None, str | None]:
    """The database's revision and the docchat that last migrated it, read without writing."""
    if path is not None:
        if not path.is_file() or path.stat().st_size == 0:
            return None, None
        # mode=rw, not ro: a read-only connection to a WAL database leaves -wal and -shm files
        # behind; this one, the last to close, removes them. It only reads.
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=rw", uri=True, timeout=busy_timeout_s)) as db:
            try:
                row = db.execute("SELECT version_num FROM alembic_version").fetchone()
            except sqlite3.OperationalError:  # a new database: no version table yet
                return None, None
            return (row[0], writer_version(db)) if row else (None, None)
    with engine.connect() as connection:
        try:
            row = connection.exec_driver_sql("SELECT version_num FROM alembic_version").fetchone()
        except DBAPIError:
            return None, None
        connection.rollback()
        return (row[0], writer_version(connection.connection.dbapi_connection)) if row else (None, None)


def _backup(path: Path, backups: Path, stored: str, newest: str | None, busy_timeout_s: float) -> Path:
    partial = None
    try:
        backups.mkdir(parents=True, exist_ok=True)
        for stale in backups.glob("before-*.db.partial*"):  # a backup a killed start left unfinished
            stale.unlink(missing_ok=True)
        target = new_name(backups, newest, datetime.now(timezone.utc))
        partial = target.with_name(f"{target.name}.partial")
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=rw", uri=True, timeout=busy_timeout_s)) as live, \
                closing(sqlite3.connect(partial, isolation_level=None)) as copy:
            live.backup(copy)
            # One self-contained file: nothing beside it to lose when it is copied back.
            copy.execute("PRAGMA journal_mode=DELETE")
        with open(partial, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as error:
        if partial is not None:
            # And its rollback journal, which a write that failed part-way (a full disk) leaves.
            for written in (partial, partial.with_name(f"{partial.name}-journal")):
                written.unlink(missing_ok=True)
        raise UpgradeFailed(f"the database could not be backed up before its upgrade from schema {stored} to "
                            f"{newest} ({one_line(str(error), limit=160)}); nothing was changed") from None
    return target


def _failure(stored: str | None, newest: str | None, known: tuple[str, ...], failed: Upgrading,
             backup: Path | None) -> str:
    """One line: what failed, that nothing changed, where the backup is."""
    done = failed.after or stored
    pending = known[known.index(done) + 1:] if done in known else known
    # Every revision ran and writing them out failed (a full disk fills as the commit writes the
    # transaction's last pages to the WAL): the commit is where it stopped.
    at = f" at {pending[0]}" if pending else " at the commit" if done in known else ""
    # A driver's error as the driver words it, not SQLAlchemy's wrapper with the statement.
    cause = getattr(failed.cause, "orig", None) or failed.cause
    why = one_line(f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}", limit=200)
    line = (f"the upgrade of the database from schema {stored or '(new)'} to {newest} failed{at} ({why}); "
            "nothing was changed")
    if backup is not None:
        line += f"; a backup made before it is in {backup}"
    return line + "; the next start tries again"
