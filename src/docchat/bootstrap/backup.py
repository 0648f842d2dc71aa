"""Backup and restore of a data dir, wired apart from the services: a backup reads the database
file beside a running app, and a restore rebuilds the restored folder's index as its own
installation will."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from docchat import preferences
from docchat.config import Settings
from docchat.documents.files import StoredFiles
from docchat.documents.index.opening import embedder_for, open_chunk_index
from docchat.errors import DocchatError
from docchat.ports import Embedder
from docchat.services.backup import DATABASE, BackupService, Progress
from docchat.documents.isolated import IsolatedParser
from docchat.services.library_check import SheetReader
from docchat.services.library_index import IndexService
from docchat.store.sheet_tables import SqliteSheetTables
from docchat.store.backup import SqliteFiles, sqlite_path
from docchat.store.engine import make_engine
from docchat.store.migrate import Upgrading, upgrade
from docchat.store.unit_of_work import SqlUnitOfWorkFactory
from docchat.text import one_line


def build_backup(settings: Settings | None = None, *, embedder: Embedder | None = None) -> BackupService:
    """Backup and restore of the data dir. Nothing is opened until they run."""
    settings = settings or Settings()
    path = sqlite_path(settings.resolved_database_url)
    database = SqliteFiles(path, busy_timeout_s=settings.busy_timeout_s) if path else None
    return BackupService(settings.resolved_data_dir, database,
                         lambda folder, progress: _rebuild_index(settings, folder, embedder, progress))


def _rebuild_index(settings: Settings, folder: Path, embedder: Embedder | None, progress: Progress) -> int:
    """Upgrades the database restored into `folder` and embeds its chunks into the folder's own
    index (or the Qdrant server's), as the restored installation will: with the embedder its
    settings.json names, unless the environment names another."""
    restored = preferences.load(data_dir=folder, database_url=f"sqlite:///{folder / DATABASE}",
                                qdrant_url=settings.qdrant_url)
    engine = make_engine(restored.resolved_database_url, busy_timeout_s=restored.busy_timeout_s)
    try:
        try:
            upgrade(engine)
        except Upgrading as failed:
            raise DocchatError(f"the backup's database could not be upgraded ({one_line(str(failed), limit=200)}); "
                               "nothing was changed") from None
        embedder = embedder or embedder_for(restored)
        files = StoredFiles(restored.resolved_data_dir)
        # The spreadsheets' tables are not in a backup: read again from their files, in isolation.
        parser = IsolatedParser(timeout_s=restored.parse_timeout_s, memory_mb=restored.parse_memory_mb)
        sheets = SheetReader(files, parser, SqliteSheetTables(restored.resolved_data_dir,
                                                              busy_timeout_s=restored.busy_timeout_s))
        index = IndexService(SqlUnitOfWorkFactory(engine), partial(open_chunk_index, restored, embedder), embedder,
                             files, sheets=sheets)
        try:
            return index.reindex(progress=progress)
        finally:
            index.close()
            parser.close()
    finally:
        # Every connection closed, so the database is one file again before it is moved.
        engine.dispose()
