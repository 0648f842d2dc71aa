"""Adding files to the library: one (the page) or a thousand at once (`docchat ingest`).

Invariants, whatever the batch:
- A file is parsed and chunked before anything of it is written: a bad one is refused with one
  line naming it and leaves nothing behind, and the other files of its batch go in.
- A document is written `ingesting`, with its chunks, before its first vector, and becomes
  ready only once all its vectors are in. A failure, a cancel or Ctrl-C before that removes it
  again (rows, vectors, stored file); a crash leaves it `ingesting`, and the next opening of
  the local index clears it. A ready document always has every chunk, vector and its file.
- The same content is ingested once (by hash), also when one batch holds it twice.
- A scan is read by OCR at about a second a page: its pages are shown as they are read, and a
  cancel is seen between two pages (the parser stops its worker when its progress call raises).

Why groups: the chunks of a group of files (up to GROUP_CHUNKS) go to the model together, in
order of length, so each run of the model holds texts of about one length (little padding) and
short ones share a run; their rows and vectors are written in two transactions and a few index
calls instead of a few of each per file. Embedding stays most of the cost (85-90% measured):
the model already runs at well over half of this CPU's peak for float arithmetic.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from docchat.retrieval.chunking import chunk
from docchat.domain import (ChunkRecord, Document, DocumentStatus, IngestReport, ParsedDocument, chunk_heading,
                            content_hash, utcnow)
from docchat.errors import DocchatError, InvalidInput
from docchat.ports import ChunkIndex, Embedder, FileStore, Parser, SheetTables, TokenCounter, UnitOfWorkFactory
from docchat.domain.documents import TABLE_KINDS, SheetTable
from docchat.wording import count

# Texts per call to the embedder: between two calls a cancel is seen and progress is shown.
EMBED_BATCH = 64
# A group closes at this many chunks, files or bytes read: larger ones embed no faster, and a
# failure, a cancel or a crash takes back at most one group of work.
GROUP_CHUNKS = 512
GROUP_FILES = 256
GROUP_BYTES = 64 * 1024 * 1024

Progress = Callable[[str, float], None]
Embedded = Callable[[int, int], None]  # chunks embedded so far, of how many


class IngestionCancelled(DocchatError):
    pass


@dataclass(frozen=True)
class FileToAdd:
    """A file of a batch: its name, and how to read it when its turn comes (a thousand files are
    never all in memory). `read` raises DocchatError or OSError for a file it cannot read."""

    name: str
    read: Callable[[], bytes]


@dataclass(frozen=True)
class Ingested:
    """How one file of a batch went: added or already there (`report`), or refused (`error`)."""

    name: str
    report: IngestReport | None = None
    error: DocchatError | None = None


@dataclass(frozen=True)
class _Pending:
    """A parsed, chunked file, nothing of it written yet; a mail with its attachments: those to
    write with it (`attached`), those in the library already (`present`) and those refused."""

    name: str
    data: bytes
    document: Document
    records: list[ChunkRecord]
    tables: tuple[SheetTable, ...] = ()  # a spreadsheet's sheets, kept for figures computed over them
    attached: tuple[_Pending, ...] = ()
    present: tuple[IngestReport, ...] = ()
    refused: tuple[str, ...] = ()
    # The attachments this mail holds: those it brings, and those present that another mail holds.
    holds: tuple[str, ...] = ()

    def content_hashes(self) -> set[str]:
        return {self.document.content_hash, *(p.document.content_hash for p in self.attached)}


class IngestionService:
    def __init__(self, uow: UnitOfWorkFactory, counter: TokenCounter, embedder: Embedder, *, parser: Parser,
                 files: FileStore, open_index: Callable[[], ChunkIndex], remove: Callable[[Document], None],
                 max_bytes: int, chunk_tokens: int = 256, overlap: int = 48, tables: SheetTables | None = None):
        self._uow = uow
        self._embedder = embedder
        self._parser = parser
        self._files = files
        self._counter = counter
        self._open_index = open_index
        self._remove = remove
        self._max_bytes = max_bytes
        self._chunk_tokens = chunk_tokens
        self._overlap = overlap
        self._tables = tables

    def reads(self, name: str) -> bool:
        """Whether a file of this name is of a kind the library reads (by its suffix)."""
        return self._parser.reads(name)

    def kinds_in_words(self) -> str:
        """The kinds the library reads, named for a sentence: "docchat reads {this}"."""
        return self._parser.kinds_in_words()

    def ingest(self, name: str, data: bytes, *, progress: Progress = lambda stage, share: None,
               cancel: threading.Event | None = None) -> Document:
        """The document made of this file: added now, or the one already in the library."""
        return self.add(name, data, progress=progress, cancel=cancel).document

    def add(self, name: str, data: bytes, *, progress: Progress = lambda stage, share: None,
            cancel: threading.Event | None = None) -> IngestReport:
        """Ingests the file, saying whether the same content was in the library already (then
        it changes nothing and returns the document that holds it)."""
        cancel = cancel or threading.Event()

        def read(page: int, pages: int) -> None:
            # A scan is read by OCR at about a second a page: the user sees it go, and may stop it.
            if cancel.is_set():
                raise IngestionCancelled(f"ingestion of {name} was cancelled; nothing was kept")
            progress(f"reading page {page} of {pages} (OCR)", 0.05 * page / pages)

        parsed = self._parser.parse(name, data, max_bytes=self._max_bytes, progress=read)
        # Opened before anything is written or removed: an index held by another process (the
        # app) refuses this ingestion with nothing touched, not even a half-ingested copy of the
        # same file, which may be the app's own ingestion under way. Opening it also clears what
        # a crash left.
        index = self._open_index()
        pending = self._prepare(name, data, parsed)
        if isinstance(pending, IngestReport):
            progress("already in the library", 1.0)
            return pending
        progress("parsed", 0.05)

        def embedded(done: int, total: int) -> None:
            progress(f"embedded {done} of {total} chunks", 0.1 + 0.9 * done / total)

        def cancelled() -> None:
            raise IngestionCancelled(f"ingestion of {pending.document.name} was cancelled; nothing was kept")

        [report] = self._ingest(index, [pending], embedded, cancel, cancelled)
        progress("ready", 1.0)
        return report

    def add_many(self, files: Sequence[FileToAdd], *, progress: Progress = lambda stage, share: None,
                 cancel: threading.Event | None = None) -> Iterator[Ingested]:
        """Each file's outcome as soon as it is known: refused and already-present files at
        once, added ones when their group is ready. A cancel, or a failure of the embedder or
        the index, removes the group under way and raises; the files reported before stay."""
        cancel = cancel or threading.Event()
        index = self._open_index()
        total, finished = len(files), 0
        group: list[_Pending] = []

        def ingest_group() -> Iterator[Ingested]:
            nonlocal finished, group
            taken, group = group, []
            if not taken:
                return

            def embedded(done: int, chunks: int) -> None:
                progress(f"{finished} of {total} files; chunk {done} of {chunks}",
                         (finished + len(taken) * done / chunks) / total)

            def cancelled() -> None:
                raise IngestionCancelled(f"ingestion was cancelled after {finished} of {count(total, 'file')}; "
                                         f"nothing of the {count(len(taken), 'file')} under way was kept")

            for pending, report in zip(taken, self._ingest(index, taken, embedded, cancel, cancelled)):
                finished += 1
                yield Ingested(pending.name, report=report)

        for file in files:
            if cancel.is_set():
                raise IngestionCancelled(f"ingestion was cancelled after {finished} of {count(total, 'file')}")
            reading = f"{finished} of {total} files; reading {file.name}"
            progress(reading, finished / total)

            def read(page: int, pages: int, reading: str = reading) -> None:
                if cancel.is_set():
                    raise IngestionCancelled(f"ingestion was cancelled after {finished} of {count(total, 'file')}")
                progress(f"{reading}, page {page} of {pages} (OCR)", finished / total)

            outcome: _Pending | Ingested
            try:
                data, parsed = self._read(file, read)
            except IngestionCancelled:
                raise  # between two pages of a scan: no verdict on the file
            except DocchatError as error:
                outcome = Ingested(file.name, error=error)
            else:
                coming = {content_hash(data), *(content_hash(a.data) for a in parsed.attachments)}
                if coming & {digest for p in group for digest in p.content_hashes()}:
                    yield from ingest_group()  # the first copy ready, this one is found in the library
                outcome = self._pending(file.name, data, parsed)
            if isinstance(outcome, _Pending):
                group.append(outcome)
                if (sum(len(p.records) for p in group) >= GROUP_CHUNKS or len(group) >= GROUP_FILES
                        or sum(len(p.data) for p in group) >= GROUP_BYTES):
                    yield from ingest_group()
                continue
            finished += 1
            yield outcome
        yield from ingest_group()
        progress(f"{total} of {total} files", 1.0)

    def _read(self, file: FileToAdd, read: Callable[[int, int], None]) -> tuple[bytes, ParsedDocument]:
        try:
            data = file.read()
        except OSError as error:
            raise InvalidInput(f"{file.name} cannot be read: {error.strerror or error}") from None
        return data, self._parser.parse(file.name, data, max_bytes=self._max_bytes, progress=read)

    def _pending(self, name: str, data: bytes, parsed: ParsedDocument) -> _Pending | Ingested:
        """The file to write, or its outcome: already in the library, or refused."""
        try:
            prepared = self._prepare(name, data, parsed)
        except DocchatError as error:
            return Ingested(name, error=error)
        return Ingested(name, report=prepared) if isinstance(prepared, IngestReport) else prepared

    def _prepare(self, name: str, data: bytes, parsed: ParsedDocument) -> _Pending | IngestReport:
        """The file's document and chunks, to be written; or the document already holding it."""
        digest = content_hash(data)
        with self._uow() as uow:
            existing = uow.documents.by_hash(digest)
        if existing is not None and existing.status is DocumentStatus.READY:
            return IngestReport(existing, already_present=True)
        if existing is not None:  # left half-ingested by a crash: start again
            self._remove(existing)
        pieces = chunk(parsed.sections, count_tokens=self._counter.count_text, max_tokens=self._chunk_tokens,
                       overlap=self._overlap)
        if not pieces:
            raise InvalidInput(f"{name} has no text to index")
        document = Document(
            id=str(uuid.uuid4()), name=parsed.name, kind=parsed.kind, path="", size=len(data), content_hash=digest,
            pages=max((s.page or 0) for s in parsed.sections) or None, chunks=len(pieces),
            status=DocumentStatus.INGESTING, added_at=utcnow(),
        )
        records = [ChunkRecord(id=str(uuid.uuid4()), document_id=document.id, position=p.index, label=p.label,
                               page=p.page, text=p.text, token_count=p.token_count,
                               heading=chunk_heading(document.name, p.label)) for p in pieces]
        pending = _Pending(name, data, document, records, tables=parsed.tables)
        return self._with_attachments(pending, parsed) if parsed.attachments else pending

    def _with_attachments(self, mail: _Pending, parsed: ParsedDocument) -> _Pending:
        """The mail with its attachments parsed and chunked, each named after it ("quote.eml ›
        prices.xlsx"). An attachment that cannot be read is refused alone: the mail goes in. One
        in the library already is held by this mail too when it is another mail's attachment,
        and left alone when it was added on its own."""
        attached: list[_Pending] = []
        present: list[IngestReport] = []
        refused: list[str] = []
        for attachment in parsed.attachments:
            try:
                inner = self._parser.parse(attachment.name, attachment.data, max_bytes=self._max_bytes)
                # One level: what is inside an attachment (a forwarded mail's own) stays named only.
                inner = replace(inner, name=f"{parsed.name} › {inner.name}", attachments=())
                prepared = self._prepare(inner.name, attachment.data, inner)
            except DocchatError as error:
                refused.append(f"attached to {parsed.name}: {error}")
                continue
            if isinstance(prepared, IngestReport):
                present.append(prepared)
            else:
                attached.append(prepared)
        with self._uow() as uow:
            shared = [p.document.id for p in present if uow.documents.mails_holding(p.document.id)]
        return replace(mail, attached=tuple(attached), present=tuple(present), refused=tuple(refused),
                       holds=tuple(p.document.id for p in attached) + tuple(shared))

    def _ingest(self, index: ChunkIndex, group: list[_Pending], embedded: Embedded,
                cancel: threading.Event, cancelled: Callable[[], None]) -> list[IngestReport]:
        """Ingests the group's files with their attachments, together: each file's report
        carries its attachments'."""
        flat = [p for pending in group for p in (pending, *pending.attached)]
        reports = iter(self._ingest_files(index, flat, embedded, cancel, cancelled))
        found = []
        for pending in group:
            report = next(reports)
            attached = tuple(next(reports) for _ in pending.attached) + pending.present
            found.append(replace(report, attached=attached, refused=pending.refused))
        return found

    def _ingest_files(self, index: ChunkIndex, group: list[_Pending], embedded: Embedded,
                      cancel: threading.Event, cancelled: Callable[[], None]) -> list[IngestReport]:
        """Stores the group's files, writes their rows (`ingesting`), embeds and indexes their
        chunks, and marks them ready together; on any failure removes all of them again."""
        documents: list[Document] = []
        try:
            for pending in group:
                documents.append(replace(pending.document, path=self._files.store(pending.name, pending.data)))
            with self._uow(write=True) as uow:
                for document, pending in zip(documents, group):
                    uow.documents.add(document)
                    uow.documents.add_chunks(pending.records)
                for pending in group:
                    uow.documents.link_attachments(pending.document.id, pending.holds)
                uow.commit()
        except BaseException:
            self._drop_files(documents)
            raise
        try:
            embed_chunks(index, self._embedder, [r for p in group for r in p.records], embedded, cancel, cancelled)
            if self._tables is not None:
                for document, pending in zip(documents, group):
                    if document.kind in TABLE_KINDS:
                        self._tables.write(document.id, pending.tables)
        except BaseException:
            for document in documents:
                self._remove(document)
            raise
        with self._uow(write=True) as uow:
            for document in documents:
                uow.documents.mark_ready(document.id, chunk_count=document.chunks)
            uow.commit()
        return [IngestReport(replace(d, status=DocumentStatus.READY), already_present=False) for d in documents]

    def _drop_files(self, documents: list[Document]) -> None:
        """Files stored for documents whose rows were never written, unless a row (another
        process's) now names the same content."""
        with self._uow() as uow:
            unused = [d for d in documents if uow.documents.by_hash(d.content_hash) is None]
        for document in unused:
            self._files.remove(document.path)


def embed_chunks(index: ChunkIndex, embedder: Embedder, records: list[ChunkRecord], embedded: Embedded,
                 cancel: threading.Event, cancelled: Callable[[], None]) -> None:
    """Embeds chunks of any documents into the index, shortest first: each call to the
    model gets texts of about one length, so its batches pad little. The index is written
    between two calls: the model already keeps both cores busy (writing while the next
    batch embeds gained nothing)."""
    ordered = sorted(records, key=lambda r: len(r.text))
    for start in range(0, len(ordered), EMBED_BATCH):
        if cancel.is_set():
            cancelled()
        batch = ordered[start:start + EMBED_BATCH]
        vectors = embedder.embed([r.text for r in batch])
        index.add_points([(r.id, r.document_id, vector) for r, vector in zip(batch, vectors, strict=True)])
        embedded(start + len(batch), len(ordered))
