"""Document use cases: ingest with progress and cancel, list, delete, scope, usage, retrieval.

Ingestion is all or nothing per file, one file or a batch (see docchat.services.ingestion):
a file is parsed and chunked before anything is written; if embedding or indexing fails or is
cancelled, the document row, its chunks, its vectors and its stored file are removed again.
The same content is ingested once (by hash).
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from typing import Callable, Protocol

from docchat.retrieval.fusion import fuse
from docchat.retrieval.words import query_terms, tokenize
from docchat.domain import (
    ChunkRecord,
    Citation,
    Document,
    DocumentStatus,
    DocumentUse,
    IndexCheck,
    IndexRepair,
    IngestReport,
    LibraryHealth,
    Retrieved,
    Scope,
    SourceView,
)
from docchat.errors import DocchatError, IndexInUse, NotFound
from docchat.ports import ChunkIndex, Embedder, FileStore, PageRenderer, Parser, TokenCounter, UnitOfWorkFactory
from docchat.services.id_prefixes import resolve
from docchat.services.ingestion import FileToAdd, Ingested, Ingestion, IngestionCancelled
from docchat.services.library_check import LibraryCheck
from docchat.wording import count

__all__ = ["DocumentService", "FileToAdd", "Ingested", "IngestionCancelled"]

log = logging.getLogger(__name__)

# Chunks of the documents already cited in a conversation rank a little higher (never filtered).
ACTIVE_BOOST = 1.15
# Kinds whose cited page is drawn with the passage marked (a scan or an image by OCR's word boxes).
DRAWN = ("pdf", "image")
# Each side of a hybrid search offers this many candidates per passage asked for, so fusion
# has overlap to work with.
CANDIDATES_PER_HIT = 4
# Libraries (sets of ready documents) whose whole-document answer is kept: a ready document's
# chunks never change, so the same set gives the same answer until a document comes or goes.
WHOLE_KEPT = 8
# The best passages whose share of the question's words is counted (for the evidence judgement,
# which reads the first few of a ranking): 80 µs a 256-token chunk, 20 ms for the 256 passages
# a large budget asks for, against under 1 ms for these.
WORDS_COUNTED = 12

Progress = Callable[[str, float], None]
# The ready documents kept in whole (id, name), oldest first, and the token limit they were read under.
WholeKey = tuple[tuple[tuple[str, str], ...], int]


def term_coverage(terms: Sequence[str], chunk: ChunkRecord) -> float:
    """The share of a question's content words that a chunk (its text or heading) holds."""
    if not terms:
        return 0.0
    words = set(tokenize(f"{chunk.heading} {chunk.text}"))
    return sum(term in words for term in terms) / len(terms)


class ClosableIndex(ChunkIndex, Protocol):
    """The index as this service holds it: the one client of this process, let go of by `close`."""

    def close(self) -> None: ...


class DocumentService:
    def __init__(self, uow: UnitOfWorkFactory, index_factory: Callable[[], ClosableIndex], embedder: Embedder,
                 counter: TokenCounter, *, parser: Parser, files: FileStore, renderer: PageRenderer, max_bytes: int,
                 chunk_tokens: int = 256, overlap: int = 48):
        self._uow = uow
        self._parser = parser
        self._files = files
        self._renderer = renderer
        self._index_factory = index_factory
        self._index: ClosableIndex | None = None
        self._index_checked = False
        self._index_lock = threading.Lock()
        self._embedder = embedder
        self._whole: OrderedDict[WholeKey, list[Retrieved] | None] = OrderedDict()
        self._whole_lock = threading.Lock()
        self._ingestion = Ingestion(uow, counter, parser=parser, files=files, open_index=self.index,
                                    remove=self._remove, max_bytes=max_bytes, chunk_tokens=chunk_tokens,
                                    overlap=overlap)
        self._check = LibraryCheck(uow, self.index, embedder, self._ingestion)

    # library

    def reads(self, name: str) -> bool:
        """Whether a file of this name is of a kind the library reads (by its suffix)."""
        return self._parser.reads(name)

    def kinds_in_words(self) -> str:
        """The kinds the library reads, named for a sentence: "docchat reads {this}"."""
        return self._parser.kinds_in_words()

    def list(self) -> list[Document]:
        with self._uow() as uow:
            return [d for d in uow.documents.list() if d.status is DocumentStatus.READY]

    def delete(self, document_id: str) -> None:
        """Removes the document, its chunks and its vectors, and a mail's attachments that no
        other mail holds; the file goes unless another uses it."""
        with self._uow() as uow:
            document = uow.documents.get(document_id)
        if document is None:
            raise NotFound(f"no document with id {document_id}")
        try:
            self.index()
        except IndexInUse:
            # Refused with nothing removed: the vectors would outlive their document in the
            # index of the process that holds it.
            raise
        except DocchatError:
            pass  # an embeddings server that is down does not stop a deletion: see `_remove`
        self._remove(document)

    def resolve_id(self, prefix: str) -> str:
        """The id of the one document whose id starts with `prefix` (a full id names its own)."""
        with self._uow() as uow:
            repo = uow.documents
            return resolve(prefix, "document", exists=lambda found: repo.get(found) is not None,
                           starting_with=lambda start: [(d.id, d.name) for d in repo.documents_starting_with(start)])

    def attachments_leaving_with(self, document_id: str) -> builtins.list[Document]:
        """The mail's attachments that deleting it deletes: those no other mail holds."""
        with self._uow() as uow:
            return [d for d in uow.documents.attachments_of(document_id) if uow.documents.mails_holding(d.id) == 1]

    def usage(self, document_id: str) -> builtins.list[DocumentUse]:
        with self._uow() as uow:
            if uow.documents.get(document_id) is None:
                raise NotFound(f"no document with id {document_id}")
            return uow.documents.usage(document_id)

    def source(self, citation: Citation) -> SourceView:
        """The cited passage in its document, as a reader checks it (see SourceView)."""
        with self._uow() as uow:
            document = uow.documents.get(citation.document_id) if citation.document_id else None
        if document is None:
            return SourceView(citation, None)
        original = self._files.read(document.path)
        if document.kind in DRAWN and citation.page and original is not None:
            try:
                image, marked = self._renderer(original, citation.page, citation.text, kind=document.kind)
            except DocchatError as error:  # a scan read again by OCR, and tesseract gone since: the text is shown
                log.warning("the cited page could not be drawn: %s", error)
            else:
                return SourceView(citation, document, page_image=image, marked=marked, original=original)
        with self._uow() as uow:  # the section around the passage, for the formats not drawn
            chunks: list[ChunkRecord] = uow.documents.chunks_of(document.id)
        section = [c for c in chunks if c.label == citation.section and citation.section] or \
                  [c for c in chunks if c.id == citation.chunk_id]
        shown = tuple((c.text, c.id == citation.chunk_id) for c in section) or ((citation.text, True),)
        return SourceView(citation, document, section=shown, original=original)

    def health(self) -> LibraryHealth:
        """Documents, chunks and vectors; a problem when the index is unreachable or behind."""
        documents = self.list()
        chunks = sum(d.chunks for d in documents)
        embedder = getattr(self._embedder, "name", type(self._embedder).__name__)
        try:
            vectors = self.index().count()
        except DocchatError as error:
            return LibraryHealth(len(documents), chunks, None, embedder, str(error))
        problem = None
        if vectors != chunks:
            # Fewer: chunks found by keywords only. More: vectors left by documents deleted while
            # the index could not be opened (never returned, but taking space).
            problem = (f"the index holds {count(vectors, 'vector')} for {count(chunks, 'chunk')}; "
                       "repair it on the Documents page, or with `docchat documents repair`")
        return LibraryHealth(len(documents), chunks, vectors, embedder, problem)

    def check_index(self) -> IndexCheck:
        """Whether the chunks, the keyword index and the vector index agree, by counts and ids."""
        return self._check.check()

    def repair(self, *, progress: Progress = lambda stage, share: None,
               cancel: threading.Event | None = None) -> IndexRepair:
        """Mends what `check_index` finds: missing vectors embedded again, stray ones dropped,
        the keyword index rebuilt."""
        return self._check.repair(progress=progress, cancel=cancel or threading.Event())

    # ingestion

    def ingest(self, name: str, data: bytes, *, progress: Progress = lambda stage, share: None,
               cancel: threading.Event | None = None) -> Document:
        """The document made of this file: added now, or the one already in the library."""
        return self.add(name, data, progress=progress, cancel=cancel).document

    def add(self, name: str, data: bytes, *, progress: Progress = lambda stage, share: None,
            cancel: threading.Event | None = None) -> IngestReport:
        """Ingests the file, saying whether the same content was in the library already (then
        it changes nothing and returns the document that holds it)."""
        return self._ingestion.add(self._embedder, name, data, progress=progress, cancel=cancel or threading.Event())

    def add_many(self, files: Sequence[FileToAdd], *, progress: Progress = lambda stage, share: None,
                 cancel: threading.Event | None = None) -> Iterator[Ingested]:
        """Ingests many files in shared batches, each all or nothing; yields each file's outcome
        (see `Ingestion.add_many`)."""
        return self._ingestion.add_many(self._embedder, files, progress=progress, cancel=cancel or threading.Event())

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
        with self._index_lock:
            index = self._raw_index()
            index.recreate()
            self._index_checked = True
        indexed = 0

        def cancelled() -> None:
            raise IngestionCancelled(f"re-indexing was cancelled after {indexed} of {total} chunks; "
                                     "run it again to finish")

        def done(so_far: int, of: int) -> None:
            nonlocal indexed
            indexed = so_far
            progress(f"{so_far} of {of} chunks", so_far / max(of, 1))

        records = [record for document in documents for record in chunks[document.id]]
        self._ingestion.index_chunks(index, self._embedder, records, done, cancel, cancelled)
        progress("ready", 1.0)
        return indexed

    def _remove(self, document: Document) -> None:
        with self._uow(write=True) as uow:
            attachments = uow.documents.unlink_attachments(document.id)
            uow.commit()
        for attachment in attachments:  # those no other mail holds leave with it
            self._remove(attachment)
        # Marked first: a crash part-way leaves a document that is not searched and is cleared
        # the next time the index opens, never a ready one missing its vectors.
        with self._uow(write=True) as uow:
            uow.documents.mark_removing(document.id)
            uow.commit()
        try:
            index = self.index()
        except DocchatError as error:
            # An index that cannot be opened (its embeddings server is down) received nothing
            # from this ingestion; vectors left from before match no document row, are never
            # returned, and go with the next `docchat documents reindex`.
            log.warning("document %s removed without touching the index: %s", document.id, error)
        else:
            index.delete_document(document.id)
        with self._uow(write=True) as uow:
            uow.documents.delete(document.id)
            others = uow.documents.by_hash(document.content_hash)
            uow.commit()
        if others is None and document.path:
            self._files.remove(document.path)

    # retrieval

    def retrieve(self, query: str, *, top_k: int, document_ids: builtins.list[str] | None = None,
                 active: AbstractSet[str] = frozenset()) -> builtins.list[Retrieved]:
        """The `top_k` passages for a question: the closest in meaning (Qdrant) and the best by
        BM25 (SQLite FTS5), fused with RRF, chunks of `active` documents lifted a little.
        `document_ids=None` searches every document; an empty list searches none."""
        candidates = CANDIDATES_PER_HIT * top_k
        terms = query_terms(query)
        with self._uow() as uow:
            names = {d.id: d.name for d in uow.documents.list() if d.status is DocumentStatus.READY}
            scope = None
            if document_ids is not None:
                in_scope = [d for d in document_ids if d in names]
                scope = Scope(tuple(in_scope))
            keyword = uow.documents.keyword_search(terms, limit=candidates,
                                                   document_ids=scope.document_ids if scope else None)
        if not names or (scope is not None and not scope.document_ids):
            return []
        try:
            closest = self.index().closest(self._embedder.embed([query])[0], limit=candidates, scope=scope)
        except DocchatError as error:
            # An embeddings server that is down costs the answer its search by meaning, not the answer.
            log.warning("searching by keywords only: %s", error)
            closest = []
        # A document being ingested has vectors before it is ready; it is not searched yet.
        closest = [hit for hit in closest if hit[1] in names]
        similarity = {chunk_id: value for chunk_id, _, value in closest}
        dense = [(chunk_id, document_id) for chunk_id, document_id, _ in closest]
        ranked = fuse(dense, keyword, top_k=top_k, boost_documents=set(active), boost=ACTIVE_BOOST)
        with self._uow() as uow:
            records = uow.documents.chunks([r.chunk_id for r in ranked])
        return [Retrieved(records[r.chunk_id], names[r.document_id], r.score, similarity=similarity.get(r.chunk_id),
                          coverage=term_coverage(terms, records[r.chunk_id]) if rank < WORDS_COUNTED else 0.0)
                for rank, r in enumerate(r for r in ranked if r.chunk_id in records)]

    def whole(self, document_ids: builtins.list[str] | None, *, max_tokens: int) -> builtins.list[Retrieved] | None:
        """Every chunk of the documents in scope, in document order (oldest document first), when
        their tokens add up to at most `max_tokens`; None when they do not, or there are none."""
        with self._uow() as uow:
            ready = [d for d in uow.documents.list() if d.status is DocumentStatus.READY]
            if document_ids is not None:
                wanted = set(document_ids)
                ready = [d for d in ready if d.id in wanted]
            ready.sort(key=lambda d: (d.added_at, d.id))
            key = (tuple((d.id, d.name) for d in ready), max_tokens)
            with self._whole_lock:
                if key in self._whole:
                    self._whole.move_to_end(key)
                    kept = self._whole[key]
                    return list(kept) if kept is not None else None
            # Summed in the database: a library too large to go in whole is never read here.
            if not ready or uow.documents.token_total([d.id for d in ready]) > max_tokens:
                found = None
            else:
                found = [Retrieved(record, document.name, 0.0)
                         for document in ready
                         for record in uow.documents.chunks_of(document.id)]
        with self._whole_lock:
            self._whole[key] = found
            if len(self._whole) > WHOLE_KEPT:
                self._whole.popitem(last=False)
        return list(found) if found is not None else None

    def passage_vectors(self, chunk_ids: Sequence[str]) -> dict[str, builtins.list[float]]:
        """The index's vectors of these chunks, for the citation check; {} while the index is not
        open (an answer from the whole-documents block searched nothing): opening it for the
        check would cost seconds, and the check embeds the passages instead."""
        with self._index_lock:
            index = self._index if self._index_checked else None
        return index.vectors_of(chunk_ids) if index is not None and chunk_ids else {}

    def close(self) -> None:
        with self._index_lock:
            if self._index is not None:
                self._index.close()
                self._index, self._index_checked = None, False

    def index(self) -> ClosableIndex:
        """The one index client of this process (Qdrant's local mode allows one per path)."""
        with self._index_lock:
            index = self._raw_index()
            if not self._index_checked:
                index.ensure_collection()
                self._index_checked = True
                if index.exclusive:
                    self._clear_leftovers(index)
            return index

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
