"""Checking that a chunk's three homes agree, and mending them when they do not.

A chunk lives in the database (its row: text, page, section), in the keyword index (on SQLite
a Tantivy index that follows the rows; on PostgreSQL a column of the row itself) and in the
vector index. A crash between two of them, a document deleted while the index could not be
opened, an index folder restored from another day, or a hand edit of the database leaves them
apart, and then a passage is silently not found by meaning, or not by its words. `check` says
what differs, by counts and ids; `repair` mends it from the database, which is what the library
is: missing vectors are embedded again from the chunks' text, vectors of no chunk are dropped,
and the keyword index is rebuilt.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from docchat.domain import ChunkRecord, Document, DocumentStatus, IndexCheck, IndexRepair
from docchat.domain.documents import TABLE_KINDS, has_pipe_table
from docchat.errors import DocchatError
from docchat.ports import ChunkIndex, Embedder, FileStore, Parser, SheetTables, UnitOfWorkFactory, WordIndex
from docchat.services.ingestion import IngestionCancelled, embed_chunks
from docchat.wording import count

log = logging.getLogger(__name__)
Progress = Callable[[str, float], None]
READ_BATCH = 1000


def problems(check: IndexCheck) -> list[str]:
    """What does not agree, one line each, in words a user can act on."""
    found = []
    if check.missing_vectors:
        found.append(f"{count(len(check.missing_vectors), 'chunk')} without a vector (not found by meaning)")
    if check.stray_vectors:
        found.append(f"{count(len(check.stray_vectors), 'vector')} of no chunk in the library")
    if check.missing_keywords:
        found.append(f"{count(check.missing_keywords, 'chunk')} missing from the keyword index (not found by words)")
    if check.stray_keywords:
        found.append(f"{count(check.stray_keywords, 'keyword entry', 'keyword entries')} of no chunk")
    if check.sheets_without_tables:
        found.append(f"{count(len(check.sheets_without_tables), 'document')} whose sheets or tables are not kept as "
                     "tables (no figure is computed from them)")
    return found


class SheetReader:
    """Reads spreadsheets' stored files again into their tables: those added before tables were
    kept, and every one after a restore (the tables file is not in a backup)."""

    def __init__(self, files: FileStore, parser: Parser, tables: SheetTables):
        self._files = files
        self._parser = parser
        self._tables = tables

    def missing(self, documents: list[Document]) -> tuple[str, ...]:
        kept = self._tables.kept()
        return tuple(d.id for d in documents if d.kind in TABLE_KINDS and d.id not in kept and self._may_hold(d))

    def _may_hold(self, document: Document) -> bool:
        """Whether a document's tables are worth reading again (issue 55): a Markdown document or a
        mail added before their tables were kept is, only if its stored file has a pipe table or an
        HTML part (whose table may be encoded: base64); any other kind kept as tables, always (a
        PDF, an e-book: only reading them tells whether they have one)."""
        if document.kind not in ("markdown", "email"):
            return True
        data = self._files.read(document.path) if document.path else None
        if data is None:
            return False
        return has_pipe_table(data) if document.kind == "markdown" else b"text/html" in data.lower()

    def write(self, documents: list[Document]) -> int:
        """Each spreadsheet's tables from its stored file; one that cannot be read again is passed
        over (its passages answer), and said in the log. Returns how many were written."""
        written = 0
        for document in documents:
            data = self._files.read(document.path) if document.path else None
            try:
                if data is None:
                    raise DocchatError("its stored file is missing")
                parsed = self._parser.parse(document.name, data, max_bytes=max(len(data), 1))
            except DocchatError as error:
                log.warning("the sheets of %s are not kept as tables: %s", document.name, error)
                continue
            self._tables.write(document.id, parsed.tables)
            written += 1
        return written


class LibraryCheck:
    def __init__(self, uow: UnitOfWorkFactory, open_index: Callable[[], ChunkIndex], embedder: Embedder,
                 words: Callable[[], WordIndex] | None = None, sheets: SheetReader | None = None):
        self._uow = uow
        self._open_index = open_index
        self._embedder = embedder
        self._words = words  # None: the keyword index is part of the chunk's row (PostgreSQL)
        self._sheets = sheets  # None: no sheet is kept as a table

    def check(self) -> IndexCheck:
        """Compares the ids of the ready documents' chunks with the vector index's, and the
        chunks with the keyword index. Raises DocchatError when the index cannot be opened."""
        index = self._open_index()
        with self._uow() as uow:
            chunks = uow.documents.ready_chunk_ids()
            sheets = [d for d in uow.documents.list() if d.status is DocumentStatus.READY and d.kind in TABLE_KINDS]
        vectors = index.chunk_ids()
        missing_keywords, stray_keywords = self._words().check() if self._words else (None, None)
        return IndexCheck(
            chunks=len(chunks), vectors=len(vectors),
            missing_vectors=tuple(sorted(set(chunks) - set(vectors))),
            # A vector whose chunk moved to another document is as stray as one of no chunk.
            stray_vectors=tuple(sorted(c for c, d in vectors.items() if chunks.get(c) != d)),
            # The word index takes each chunk's text from its row: its entries are counted, not read.
            missing_keywords=missing_keywords, stray_keywords=stray_keywords,
            sheets_without_tables=self._sheets.missing(sheets) if self._sheets else ())

    def repair(self, *, progress: Progress, cancel: threading.Event) -> IndexRepair:
        """Mends what `check` finds, from the database. Cancelled, what was embedded stays (a
        later repair embeds the rest)."""
        found = self.check()
        index = self._open_index()
        if found.stray_vectors:
            progress(f"dropping {count(len(found.stray_vectors), 'stray vector')}", 0.0)
            index.delete_chunks(found.stray_vectors)
        rebuilt = bool(found.missing_keywords or found.stray_keywords)
        if rebuilt and self._words:
            progress("rebuilding the keyword index", 0.05)
            self._words().rebuild()
        embedded = 0
        if found.missing_vectors:
            records: list[ChunkRecord] = []
            with self._uow() as uow:
                # A batch at a time: a lost index misses every chunk, more than a query may bind.
                for start in range(0, len(found.missing_vectors), READ_BATCH):
                    batch = list(found.missing_vectors[start:start + READ_BATCH])
                    records += uow.documents.chunks(batch).values()

            def done(so_far: int, of: int) -> None:
                nonlocal embedded
                embedded = so_far
                progress(f"embedded {so_far} of {of} chunks", 0.1 + 0.9 * so_far / max(of, 1))

            def cancelled() -> None:
                raise IngestionCancelled(f"the repair was cancelled after {embedded} of "
                                         f"{count(len(records), 'chunk')}; run it again to finish")

            embed_chunks(index, self._embedder, records, done, cancel, cancelled)
        written = 0
        if found.sheets_without_tables and self._sheets is not None:
            progress(f"reading the tables of {count(len(found.sheets_without_tables), 'document')}", 1.0)
            with self._uow() as uow:
                written = self._sheets.write([d for d in uow.documents.list() if d.id in found.sheets_without_tables])
        progress("done", 1.0)
        return IndexRepair(embedded=embedded, dropped=len(found.stray_vectors), keyword_index_rebuilt=rebuilt,
                           tables_written=written)
