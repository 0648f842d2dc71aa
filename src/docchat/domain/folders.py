"""Followed folders and their files: what a sync found and what the user is shown of each file."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class FileStatus(StrEnum):
    READY = "ready"  # its document is in the library
    REFUSED = "refused"  # its content cannot be read as a document (why in `reason`); retried when it changes
    PENDING = "pending"  # seen, not in the library yet (a sync is reading it, or was cut off)
    FAILED = "failed"  # reading it went wrong for a reason other than its content; retried at each sync


@dataclass(frozen=True)
class SyncCounts:
    """What one pass over a folder did. `refused` counts the files refused at the end of the
    pass (newly or still): they are not among the unchanged."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    refused: int = 0
    failed: int = 0

    def __add__(self, other: SyncCounts) -> SyncCounts:
        return SyncCounts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple())))

    def as_tuple(self) -> tuple[int, int, int, int, int, int]:
        return (self.added, self.changed, self.removed, self.unchanged, self.refused, self.failed)

    def as_dict(self) -> dict[str, int]:
        return dict(zip(("added", "changed", "removed", "unchanged", "refused", "failed"), self.as_tuple()))


@dataclass(frozen=True)
class Folder:
    id: str
    path: str  # absolute, as the user's system names it
    conversation_id: str | None
    added_at: datetime
    last_sync_at: datetime | None = None
    last_counts: SyncCounts | None = None


@dataclass(frozen=True)
class FolderFile:
    """A file of a followed folder as the last sync left it. Size and mtime decide whether it
    is read again; its content hash, whether it changed."""

    folder_id: str
    relative_path: str  # with "/" between parts
    size: int
    mtime_ns: int
    content_hash: str | None
    document_id: str | None
    status: FileStatus
    reason: str | None = None
    # Its document was in the library before any followed file held that content (an upload):
    # it stays in the library when the file goes.
    adopted: bool = False


@dataclass(frozen=True)
class SeenFile:
    """A file of a followed folder found on disk: its path relative to the folder ("/" between
    parts), where it is, and its stat."""

    relative_path: str
    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Unreadable:
    """A file or folder that could not be looked at, and why."""

    relative_path: str
    reason: str
    folder: bool = False  # a folder that cannot be opened: what it holds was not looked at


@dataclass(frozen=True)
class FileProblem:
    """A file refused or failed, with why, for the user."""

    folder: str
    relative_path: str
    status: FileStatus
    reason: str


@dataclass(frozen=True)
class SyncReport:
    counts: SyncCounts = SyncCounts()
    problems: tuple[FileProblem, ...] = ()

    def __add__(self, other: SyncReport) -> SyncReport:
        return SyncReport(self.counts + other.counts, self.problems + other.problems)


@dataclass(frozen=True)
class FolderState:
    """A followed folder as the user sees it: its files by status and those that are not in the library."""

    folder: Folder
    files_by_status: dict[str, int] = field(default_factory=dict)
    problems: tuple[FileProblem, ...] = ()
