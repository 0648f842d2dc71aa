"""Reads and writes of followed folders and of what the last sync found of each of their files.

A sync reads every file row of a folder in one query and writes only the rows that changed,
so a pass over a thousand unchanged files costs one read and one update of the folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import Connection, delete, func, insert, select, update

from docchat.domain import FileStatus, Folder, FolderFile, SyncCounts
from docchat.store.tables import folder_files, folders

_PROBLEMS = (FileStatus.REFUSED.value, FileStatus.FAILED.value)
_COUNTS = ("last_added", "last_changed", "last_removed", "last_unchanged", "last_refused", "last_failed")


def _folder(row) -> Folder:
    counts = None
    if row.last_sync_at is not None:
        counts = SyncCounts(*(getattr(row, name) or 0 for name in _COUNTS))
    return Folder(id=row.id, path=row.path, conversation_id=row.conversation_id, added_at=row.added_at,
                  last_sync_at=row.last_sync_at, last_counts=counts)


def _file(row) -> FolderFile:
    return FolderFile(folder_id=row.folder_id, relative_path=row.relative_path, size=row.size, mtime_ns=row.mtime_ns,
                      content_hash=row.content_hash, document_id=row.document_id, status=FileStatus(row.status),
                      reason=row.reason, adopted=row.adopted)


def _values(file: FolderFile) -> dict:
    return dict(folder_id=file.folder_id, relative_path=file.relative_path, size=file.size, mtime_ns=file.mtime_ns,
                content_hash=file.content_hash, document_id=file.document_id, status=file.status.value,
                reason=file.reason, adopted=file.adopted)


class FolderRepository:
    def __init__(self, connection: Connection):
        self._db = connection

    def add(self, folder: Folder) -> None:
        self._db.execute(insert(folders).values(id=folder.id, path=folder.path, conversation_id=folder.conversation_id,
                                                added_at=folder.added_at))

    def by_path(self, path: str) -> Folder | None:
        row = self._db.execute(select(folders).where(folders.c.path == path)).first()
        return _folder(row) if row else None

    def list(self) -> list[Folder]:
        return [_folder(row) for row in self._db.execute(select(folders).order_by(folders.c.pk))]

    def remove(self, folder_id: str) -> None:
        self._db.execute(delete(folder_files).where(folder_files.c.folder_id == folder_id))
        self._db.execute(delete(folders).where(folders.c.id == folder_id))

    def files(self, folder_id: str) -> list[FolderFile]:
        rows = self._db.execute(select(folder_files).where(folder_files.c.folder_id == folder_id)
                                .order_by(folder_files.c.relative_path))
        return [_file(row) for row in rows]

    def problems(self, folder_id: str) -> list[FolderFile]:
        """The folder's files refused or failed."""
        rows = self._db.execute(select(folder_files).where(folder_files.c.folder_id == folder_id,
                                                           folder_files.c.status.in_(_PROBLEMS))
                                .order_by(folder_files.c.relative_path))
        return [_file(row) for row in rows]

    def save_files(self, files: Iterable[FolderFile]) -> None:
        """Writes each file's row, replacing the one of the same folder and path."""
        for file in files:
            done = self._db.execute(update(folder_files)
                                    .where(folder_files.c.folder_id == file.folder_id,
                                           folder_files.c.relative_path == file.relative_path)
                                    .values(**_values(file)))
            if done.rowcount == 0:
                self._db.execute(insert(folder_files).values(**_values(file)))

    def forget_files(self, folder_id: str, relative_paths: Sequence[str]) -> None:
        if relative_paths:
            self._db.execute(delete(folder_files).where(folder_files.c.folder_id == folder_id,
                                                        folder_files.c.relative_path.in_(list(relative_paths))))

    def holders(self, document_id: str) -> int:
        """How many files of followed folders hold this document."""
        return self._db.execute(select(func.count()).select_from(folder_files)
                                .where(folder_files.c.document_id == document_id)).scalar_one()

    def adopted(self, document_id: str) -> bool:
        """Whether a followed file holds this document as adopted (see FolderFile.adopted)."""
        return self._db.execute(select(folder_files.c.pk).where(folder_files.c.document_id == document_id,
                                                                folder_files.c.adopted.is_(True)).limit(1)).first() is not None

    def record_sync(self, folder_id: str, at: datetime, counts: SyncCounts) -> None:
        self._db.execute(update(folders).where(folders.c.id == folder_id)
                         .values(last_sync_at=at, **dict(zip(_COUNTS, counts.as_tuple()))))
