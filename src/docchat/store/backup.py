"""The store's side of a backup: a consistent copy of a live SQLite database, and what it holds.

The copy is made with SQLite's online backup API, so the app may keep writing while it runs;
it is then a single self-contained file (rollback journal, not WAL) at the newest schema.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

from docchat.errors import DocchatError, InvalidBackup
from docchat.store.engine import make_engine
from docchat.store.migrate import MIGRATIONS, Upgrading, current_revision, upgrade
from docchat.store.unit_of_work import SqlUnitOfWorkFactory


def sqlite_path(url: str) -> Path | None:
    """The database file a SQLAlchemy URL names, or None when it is not a SQLite file."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database).expanduser().resolve()


@dataclass(frozen=True)
class Snapshot:
    """What a copy of the database holds."""

    revision: str
    counts: dict[str, int]
    # The stored files of its documents, relative to the data dir.
    files: tuple[str, ...]


class SqliteFiles:
    """The live database file and copies of it."""

    def __init__(self, path: Path, *, busy_timeout_s: float = 10.0) -> None:
        self.path = path
        self._timeout = busy_timeout_s

    def snapshot(self, target: Path) -> Snapshot:
        """Copies the live database to `target` (a new file), brings the copy to the newest
        schema, and says what it holds."""
        if not self.path.is_file():
            raise DocchatError(f"nothing to back up: there is no database at {self.path}")
        # mode=rw: a missing file is an error here, never a new empty database.
        with closing(sqlite3.connect(f"{self.path.as_uri()}?mode=rw", uri=True, timeout=self._timeout)) as live, \
                closing(sqlite3.connect(target)) as copy:
            # One step (pages=-1): the pages are read inside one read transaction, which under
            # WAL sees one commit and holds no writer back. In smaller steps, a write by the
            # app between two of them would restart the copy from the beginning.
            live.backup(copy)
        # Alembic only where a backup needs it: the services import this module at start-up.
        from alembic.util import CommandError

        engine = make_engine(f"sqlite:///{target}", busy_timeout_s=self._timeout)
        try:
            try:
                upgrade(engine)
            except Upgrading as failed:
                if not isinstance(failed.cause, CommandError):
                    raise
                raise DocchatError(f"the database's schema is newer than this docchat knows ({failed.cause}); "
                                   "back it up with the docchat that wrote it") from None
            uow = SqlUnitOfWorkFactory(engine)
            with uow() as work:
                counts = work.conversations.counts()
                documents = work.documents.list()
            revision = current_revision(engine)
        finally:
            engine.dispose()
        self._single_file(target)
        counts |= {"documents": len(documents), "chunks": sum(d.chunks for d in documents)}
        return Snapshot(revision, counts, tuple(sorted({d.path for d in documents if d.path})))

    def check(self, copy: Path) -> str | None:
        """The schema revision of a database copy; InvalidBackup when it is damaged."""
        try:
            with closing(sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True)) as db:
                problems = [row[0] for row in db.execute("PRAGMA integrity_check")]
                if problems != ["ok"]:
                    raise InvalidBackup(f"its database is damaged ({'; '.join(problems[:3])})")
                row = db.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.DatabaseError as error:
            raise InvalidBackup(f"its database cannot be read ({error})") from None
        return row[0] if row else None

    def knows(self, revision: str | None) -> bool:
        """Whether this docchat can open (and upgrade) a database at `revision`."""
        from alembic.script import ScriptDirectory
        from alembic.util import CommandError

        if revision is None:
            return False
        try:
            return ScriptDirectory(str(MIGRATIONS)).get_revision(revision) is not None
        except CommandError:
            return False

    def in_use(self) -> bool:
        """Whether another connection has the live database open (a running app keeps some).
        An exclusive lock is granted only when no other connection holds the file."""
        if not self.path.is_file():
            return False
        with closing(sqlite3.connect(f"{self.path.as_uri()}?mode=rw", uri=True, timeout=0.2,
                                     isolation_level=None)) as db:
            try:
                db.execute("PRAGMA locking_mode=EXCLUSIVE")
                db.execute("BEGIN EXCLUSIVE")
            except sqlite3.OperationalError:
                return True
            db.execute("ROLLBACK")
        return False

    @staticmethod
    def _single_file(copy: Path) -> None:
        # The app opens it in WAL mode again; in the archive it is one file with nothing beside it.
        with closing(sqlite3.connect(copy, isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode=DELETE")
