"""Followed folders: the library kept in step with folders on disk.

Content decides. A file whose size and mtime are those of the last sync is not opened; one
whose stat changed is read and hashed: the same hash (a touched file) is unchanged, another
is read again as a document, and the document of its old version leaves the library (its
chunks leave the index) unless another followed file still holds that content. A file gone
from the folder takes its document out of the library the same way. Answers that cited a
removed document keep their quotes, as with any deletion. A document that was in the library
before a followed file had its content (an upload) is adopted, not owned: it stays when the
file goes.

A file the parser refuses keeps the status refused with the one-line reason, and is read
again only when its content changes; a file that failed for another reason (the embedder or
the index failed, the pass was cut off) is tried again at each sync. Files are written
`pending` before they are read, so a pass cut off by a crash leaves them visible, and tried
again.

A pass that finds nothing changed reads each file's stat and the folder's rows, and opens
neither the index nor the embedding model (`docchat folders sync` over a thousand unchanged
files takes about 1.0-1.4 s on two shared cores, nearly all of it the command's start-up: the
pass itself takes 20-65 ms; docs/perf/folders.md, docs/perf/cli-start.md). One
pass runs at a time in a process (the watcher's and a *Sync now* wait for each other).
"""

from __future__ import annotations

import builtins
import hashlib
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from docchat.domain import (FileProblem, FileStatus, Folder, FolderFile, FolderState, SeenFile, SyncCounts,
                            SyncReport, Unreadable, utcnow)
from docchat.errors import DocchatError, IndexInUse, InvalidInput, NotFound
from docchat.ports import FolderFiles, UnitOfWorkFactory
from docchat.services.conversations import ConversationService
from docchat.services.ingestion import FileToAdd
from docchat.services.library import Library

__all__ = ["FolderService"]

Progress = Callable[[str, float], None]


def _quiet(stage: str, share: float) -> None:
    pass


@dataclass
class _Pass:
    """What one pass over a folder has decided so far."""

    folder: Folder
    known: dict[str, FolderFile]
    to_read: list[tuple[SeenFile, FolderFile | None]]
    rows: list[FolderFile]
    # The documents of files gone or changed, and whether they were adopted (see FolderFile.adopted).
    gone_documents: dict[str, bool]
    counts: dict[str, int]


class FolderService:
    def __init__(self, uow: UnitOfWorkFactory, library: Library, conversations: ConversationService,
                 disk: FolderFiles):
        self._uow = uow
        self._disk = disk
        self._library = library
        self._conversations = conversations
        self._one_pass = threading.Lock()

    def add(self, path: str, conversation_id: str | None = None, *, progress: Progress = _quiet) -> SyncReport:
        """Follows the folder and adds its files to the library (and to the conversation's
        document scope, when given). A path that is not a folder, or one already followed, is
        refused with nothing changed."""
        where = self._disk.absolute(path)
        if not self._disk.is_folder(where):
            raise InvalidInput(f"{path} is not a folder")
        if conversation_id is not None:
            self._conversations.get(conversation_id)  # NotFound before anything is followed
        with self._one_pass:
            with self._uow() as uow:
                if uow.folders.by_path(where) is not None:
                    raise InvalidInput(f"{where} is followed already")
            # Refused here, with nothing followed, when the app holds the index.
            self._library.index.open()
            folder = Folder(id=str(uuid.uuid4()), path=where, conversation_id=conversation_id, added_at=utcnow())
            with self._uow(write=True) as uow:
                uow.folders.add(folder)
                uow.commit()
            return self._sync_folder(folder, progress)

    def list(self) -> builtins.list[FolderState]:
        """Each followed folder with its files by status and the files not in the library, with why."""
        with self._uow() as uow:
            folders = [(folder, uow.folders.files(folder.id)) for folder in uow.folders.list()]
        states = []
        for folder, files in folders:
            by_status: dict[str, int] = {}
            for file in files:
                by_status[file.status.value] = by_status.get(file.status.value, 0) + 1
            states.append(FolderState(folder, by_status, tuple(
                _problem(folder, f) for f in files if f.status in (FileStatus.REFUSED, FileStatus.FAILED))))
        return states

    def sync(self, *, progress: Progress = _quiet) -> SyncReport:
        """One pass over every followed folder; the counts and problems of all of them.
        `progress` hears how the reading of new and changed files goes, as ingestion says it."""
        report = SyncReport()
        with self._one_pass:
            # Read under the lock: a folder removed while this pass waited is not synced.
            with self._uow() as uow:
                folders = uow.folders.list()
            for folder in folders:
                report += self._sync_folder(folder, progress)
        return report

    def remove(self, path: str) -> int:
        """Stops following the folder. Its files' documents leave the library (unless another
        followed file holds the same content, or the document was uploaded before); the files
        on disk are not touched. Returns how many documents left."""
        where = self._disk.absolute(path)
        with self._one_pass:
            with self._uow() as uow:
                folder = uow.folders.by_path(where)
                if folder is None:
                    raise NotFound(f"{where} is not followed")
                files = uow.folders.files(folder.id)
            documents: dict[str, bool] = {}
            for file in files:
                if file.document_id:
                    documents[file.document_id] = documents.get(file.document_id, False) or file.adopted
            if documents:
                self._library.index.open()  # refused with nothing changed when the app holds it
            with self._uow(write=True) as uow:
                uow.folders.remove(folder.id)
                uow.commit()
            return len(self._drop_unheld(documents))

    def reads(self, name: str) -> bool:
        """Whether a file of this name is one a followed folder's sync looks at (its kind is read)."""
        return self._library.ingestion.reads(name)

    def paths(self) -> builtins.list[str]:
        """The followed folders' paths (what a watcher watches)."""
        with self._uow() as uow:
            return [folder.path for folder in uow.folders.list()]

    # one pass

    def _sync_folder(self, folder: Folder, progress: Progress) -> SyncReport:
        with self._uow() as uow:
            known = {f.relative_path: f for f in uow.folders.files(folder.id)}
        work = _Pass(folder, known, [], [], {}, dict.fromkeys(SyncCounts().as_dict(), 0))
        if not self._disk.is_folder(folder.path):
            # Gone, unmounted or renamed: its documents stay until it is back or unfollowed.
            problem = FileProblem(folder.path, "", FileStatus.FAILED, "the folder is not there any more")
            return SyncReport(SyncCounts(), (problem,))
        seen = set()
        closed: list[str] = []
        for found in self._disk.walk(folder.path, self._library.ingestion.reads):
            seen.add(found.relative_path)
            if isinstance(found, Unreadable):
                self._refuse_unreadable(work, found)
                if found.folder:
                    closed.append("" if found.relative_path == "." else found.relative_path + "/")
            else:
                self._look_at(work, found)
        # The files of a folder that cannot be opened now are not taken for deleted.
        gone = [path for path in known if path not in seen and not path.startswith(tuple(closed))]
        work.counts["removed"] = len(gone)
        for path in gone:
            _let_go(work, known[path])
        if work.to_read or work.gone_documents:
            # Before anything is written: the app holding the index refuses the whole pass.
            self._library.index.open()
        if gone or work.rows or work.to_read:
            with self._uow(write=True) as uow:
                uow.folders.forget_files(folder.id, gone)
                uow.folders.save_files(work.rows + [_pending(seen_file, folder, old) for seen_file, old in work.to_read])
                uow.commit()
        added = self._read_changed(work, progress)
        dropped = self._drop_unheld(work.gone_documents)
        if folder.conversation_id and (added or dropped):
            self._rescope(folder.conversation_id, added, dropped)
        counts = SyncCounts(**work.counts)
        with self._uow(write=True) as uow:
            uow.folders.record_sync(folder.id, utcnow(), counts)
            problems = uow.folders.problems(folder.id)
            uow.commit()
        return SyncReport(counts, tuple(_problem(folder, f) for f in problems))

    def _look_at(self, work: _Pass, seen: SeenFile) -> None:
        old = work.known.get(seen.relative_path)
        if old is None:
            work.to_read.append((seen, None))
            return
        if old.status in (FileStatus.PENDING, FileStatus.FAILED):
            work.to_read.append((seen, old))
            return
        if (old.size, old.mtime_ns) == (seen.size, seen.mtime_ns):
            work.counts["refused" if old.status is FileStatus.REFUSED else "unchanged"] += 1
            return
        try:
            digest = self._disk.content_hash(seen.path)
        except OSError as error:
            self._refuse(work, seen, old, f"cannot be read: {error.strerror or error}")
            return
        if digest != old.content_hash or (old.status is FileStatus.REFUSED and old.content_hash is None):
            work.to_read.append((seen, old))
            return
        # Touched: the same content under a new stat.
        work.rows.append(replace(old, size=seen.size, mtime_ns=seen.mtime_ns))
        work.counts["refused" if old.status is FileStatus.REFUSED else "unchanged"] += 1

    def _refuse(self, work: _Pass, seen: SeenFile, old: FolderFile | None, reason: str) -> None:
        work.rows.append(FolderFile(work.folder.id, seen.relative_path, seen.size, seen.mtime_ns, None, None,
                                    FileStatus.REFUSED, reason))
        work.counts["refused"] += 1
        if old is not None:
            _let_go(work, old)

    def _refuse_unreadable(self, work: _Pass, found: Unreadable) -> None:
        old = work.known.get(found.relative_path)
        work.rows.append(FolderFile(work.folder.id, found.relative_path, 0, 0, None, None, FileStatus.REFUSED,
                                    found.reason))
        work.counts["refused"] += 1
        if old is not None:
            _let_go(work, old)

    def _read_changed(self, work: _Pass, progress: Progress) -> builtins.list[str]:
        """Ingests the new and changed files; the ids of the documents they are now."""
        if not work.to_read:
            return []
        by_name = {seen.relative_path: (seen, old) for seen, old in work.to_read}
        hashes: dict[str, str] = {}
        files = [FileToAdd(seen.relative_path, partial(self._read, seen, hashes))
                 for seen, _ in work.to_read]
        rows: list[FolderFile] = []
        added: list[str] = []
        created: set[str] = set()  # documents this pass brought into the library
        try:
            for outcome in self._library.ingestion.add_many(files, progress=progress):
                seen, old = by_name.pop(outcome.name)
                # Never in the library before (new, or only pending or failed until now): added.
                new = old is None or old.status in (FileStatus.PENDING, FileStatus.FAILED) and old.document_id is None
                if outcome.report is not None:
                    document = outcome.report.document
                    if outcome.report.already_present and document.id not in created:
                        adopted = self._adopted(document.id, rows)
                    else:
                        adopted = False
                        created.add(document.id)
                    rows.append(FolderFile(work.folder.id, seen.relative_path, seen.size, seen.mtime_ns,
                                           document.content_hash, document.id, FileStatus.READY, adopted=adopted))
                    added.append(document.id)
                    work.counts["added" if new else "changed"] += 1
                else:
                    status = FileStatus.REFUSED if isinstance(outcome.error, InvalidInput) else FileStatus.FAILED
                    rows.append(FolderFile(work.folder.id, seen.relative_path, seen.size, seen.mtime_ns,
                                           hashes.get(seen.relative_path), None, status, str(outcome.error)))
                    work.counts[status.value] += 1
                if old is not None and old.document_id not in added:
                    _let_go(work, old)
        except IndexInUse:
            raise
        except DocchatError as error:
            # The embedder or the index failed (or the pass was cancelled): what was not done is failed.
            for seen, _ in by_name.values():
                rows.append(FolderFile(work.folder.id, seen.relative_path, seen.size, seen.mtime_ns, None, None,
                                       FileStatus.FAILED, str(error)))
                work.counts["failed"] += 1
        finally:
            with self._uow(write=True) as uow:
                uow.folders.save_files(rows)
                uow.commit()
        return added

    def _read(self, seen: SeenFile, hashes: dict[str, str]) -> bytes:
        """The file's bytes for ingestion, its hash kept (a refused file is read again only once it changes)."""
        try:
            data = self._disk.read(seen.path)
        except OSError as error:
            raise InvalidInput(f"{seen.relative_path} cannot be read: {error.strerror or error}") from None
        hashes[seen.relative_path] = hashlib.sha256(data).hexdigest()
        return data

    def _adopted(self, document_id: str, rows: builtins.list[FolderFile]) -> bool:
        """Whether a document found in the library is one no followed file brought in (an upload)."""
        with self._uow() as uow:
            holders = uow.folders.holders(document_id)
        holders += sum(1 for row in rows if row.document_id == document_id)
        if holders == 0:
            return True
        with self._uow() as uow:
            return uow.folders.adopted(document_id) or any(r.adopted for r in rows if r.document_id == document_id)

    def _drop_unheld(self, documents: dict[str, bool]) -> set[str]:
        """Removes from the library the documents no followed file holds any more, but those
        adopted (uploaded before a followed file had the same content); the ids removed."""
        dropped = set()
        for document_id, adopted in sorted(documents.items()):
            with self._uow() as uow:
                held = uow.folders.holders(document_id)
            if held or adopted:
                continue
            try:
                self._library.documents.delete(document_id)
            except NotFound:
                continue  # deleted by hand meanwhile
            dropped.add(document_id)
        return dropped

    def _rescope(self, conversation_id: str, added: builtins.list[str], gone: set[str]) -> None:
        try:
            scope = self._conversations.get(conversation_id).settings.document_scope
        except NotFound:
            return  # the conversation was purged: its folder goes on without it
        kept = [d for d in (scope or ()) if d not in gone]
        self._conversations.set_document_scope(conversation_id, sorted(set(kept) | set(added)))


def _pending(seen: SeenFile, folder: Folder, old: FolderFile | None) -> FolderFile:
    if old is None:
        return FolderFile(folder.id, seen.relative_path, seen.size, seen.mtime_ns, None, None, FileStatus.PENDING)
    return replace(old, size=seen.size, mtime_ns=seen.mtime_ns, status=FileStatus.PENDING, reason=None)


def _let_go(work: _Pass, file: FolderFile) -> None:
    """Notes that the file no longer holds its document (gone, changed, or now refused)."""
    if file.document_id:
        work.gone_documents[file.document_id] = work.gone_documents.get(file.document_id, False) or file.adopted


def _problem(folder: Folder, file: FolderFile) -> FileProblem:
    return FileProblem(folder.path, file.relative_path, file.status, file.reason or "")
