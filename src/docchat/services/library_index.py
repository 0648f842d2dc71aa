"""The library's vector index as this process holds it: opened once (a Qdrant Edge shard allows
one holder), what a crash left cleared at its first opening, and its care: how it
stands against the chunks, checked, mended and rebuilt from the database.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from docchat.domain import ChunkRecord, DocumentStatus, IndexCheck, IndexRepair, LibraryHealth
from docchat.domain.documents import TABLE_KINDS
from docchat.errors import DocchatError
from docchat.ports import ChunkIndex, Embedder, FileStore, UnitOfWorkFactory, WordIndex
from docchat.services.ingestion import IngestionCancelled, Progress, embed_chunks
from docchat.services.library_check import LibraryCheck, SheetReader
from docchat.wording import count

log = logging.getLogger(__name__)


class ClosableIndex(ChunkIndex, Protocol):
    """The index as this service holds it: the one client of this process, let go of by `close`."""

    def close(self) -> None: ...


class IndexService:
    def __init__(self, uow: UnitOfWorkFactory, index_factory: Callable[[], ClosableIndex], embedder: Embedder,
                 files: FileStore, words: Callable[[], WordIndex] | None = None, sheets: SheetReader | None = None):
        self._uow = uow
        self._sheets = sheets
        self._files = files
        self._embedder = embedder
        self._index_factory = index_factory
        self._index: ClosableIndex | None = None
        self._checked = False
        self._lock = threading.Lock()
        self._check = LibraryCheck(uow, self.open, embedder, words, sheets)

    def open(self) -> ClosableIndex:
        """The one index client of this process, opened at the first call. Raises IndexInUse
        when another process holds the local index, DocchatError when it cannot be opened."""
        with self._lock:
            index = self._raw_index()
            if not self._checked:
                index.ensure_collection()
                self._checked = True
                if index.exclusive:
                    self._clear_leftovers(index)
            return index

    def close(self) -> None:
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index, self._checked = None, False

    def passage_vectors(self, chunk_ids: Sequence[str]) -> dict[str, builtins.list[float]]:
        """The index's vectors of these chunks, for the citation check; {} while the index is not
        open (an answer from the whole-documents block searched nothing): opening it for the
        check would cost seconds, and the check embeds the passages instead."""
        with self._lock:
            index = self._index if self._checked else None
        return index.vectors_of(chunk_ids) if index is not None and chunk_ids else {}

    def health(self) -> LibraryHealth:
        """Documents, chunks and vectors; a problem when the index is unreachable or behind."""
        with self._uow() as uow:
            documents = [d for d in uow.documents.list() if d.status is DocumentStatus.READY]
        chunks = sum(d.chunks for d in documents)
        embedder = getattr(self._embedder, "name", type(self._embedder).__name__)
        try:
            index = self.open()
            vectors, building = index.count(), index.building()
        except DocchatError as error:
            return LibraryHealth(len(documents), chunks, None, embedder, str(error))
        problem = None
        if vectors != chunks:
            # Fewer: chunks found by keywords only. More: vectors left by documents deleted while
            # the index could not be opened (never returned, but taking space).
            problem = (f"the index holds {count(vectors, 'vector')} for {count(chunks, 'chunk')}; "
                       "repair it on the Documents page, or with `docchat documents repair`")
        return LibraryHealth(len(documents), chunks, vectors, embedder, problem, exact_until_indexed=building)

    def check(self) -> IndexCheck:
        """Whether the chunks, the keyword index and the vector index agree, by counts and ids."""
        return self._check.check()

    def repair(self, *, progress: Progress = lambda stage, share: None,
               cancel: threading.Event | None = None) -> IndexRepair:
        """Mends what `check` finds: missing vectors embedded again, stray ones dropped, the
        keyword index rebuilt."""
        return self._check.repair(progress=progress, cancel=cancel or threading.Event())

    def reindex(self, *, progress: Progress = lambda stage, share: None,
                cancel: threading.Event | None = None) -> int:
        """Embeds every chunk of every document again into a new, empty index, from the text
        kept in the database: after switching the embedding model, or if data/qdrant was lost.
        The old index is dropped first, so searches by meaning find nothing until it finishes:
        run it with the app stopped.
        Returns the number of chunks indexed. Cancelled, it leaves a partial index; run it again."""
        cancel = cancel or threading.Event()
        with self._uow() as uow:
            documents = [d for d in uow.documents.list() if d.status is DocumentStatus.READY]
            chunks: dict[str, list[ChunkRecord]] = {d.id: uow.documents.chunks_of(d.id) for d in documents}
        total = sum(len(records) for records in chunks.values())
        with self._lock:
            index = self._raw_index()
            index.recreate()
            self._checked = True
        indexed = 0

        def cancelled() -> None:
            raise IngestionCancelled(f"re-indexing was cancelled after {indexed} of {total} chunks; "
                                     "run it again to finish")

        def done(so_far: int, of: int) -> None:
            nonlocal indexed
            indexed = so_far
            progress(f"{so_far} of {of} chunks", so_far / max(of, 1))

        records = [record for document in documents for record in chunks[document.id]]
        embed_chunks(index, self._embedder, records, done, cancel, cancelled)
        if self._sheets is not None:  # a restore's, too: the tables file is not in a backup
            progress("reading the documents' tables", 1.0)
            self._sheets.write([d for d in documents if d.kind in TABLE_KINDS])
        progress("ready", 1.0)
        return indexed

    def _clear_leftovers(self, index: ChunkIndex) -> None:
        """Removes what a crash left half-done: documents still being ingested or removed (their
        vectors, rows and files), and stored files no document names. Only with the local index:
        holding it, this process knows no other one is ingesting. (With a Qdrant server, a
        document cut off mid-ingestion stays unsearched until the same file is added again.)"""
        with self._uow() as uow:
            stored = uow.documents.list()
        for document in (d for d in stored if d.status is not DocumentStatus.READY):
            log.warning("removing %s, left half-%s by an earlier run", document.name,
                        "ingested" if document.status is DocumentStatus.INGESTING else "removed")
            index.delete_document(document.id)
            with self._uow(write=True) as uow:
                uow.documents.delete(document.id)
                uow.commit()
        kept = {d.path for d in stored if d.status is DocumentStatus.READY}
        for path in self._files.strays(kept):
            self._files.remove(path)

    def _raw_index(self) -> ClosableIndex:
        # Kept even when the collection check fails: a second client on the same local-mode
        # folder would be refused, and `reindex` needs this one.
        if self._index is None:
            self._index = self._index_factory()
        return self._index
