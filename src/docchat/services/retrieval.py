"""Finding the passages for a question in the library: by meaning (the vector index) and by
words (the keyword index), fused; or every passage of the documents in scope, when they fit the
prompt whole."""

from __future__ import annotations

import builtins
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from docchat.domain import ChunkRecord, Retrieved, Scope
from docchat.errors import DocchatError
from docchat.ports import ChunkIndex, Embedder, UnitOfWork, UnitOfWorkFactory, WordIndex
from docchat.retrieval.fusion import fuse
from docchat.retrieval.words import query_terms, tokenize

log = logging.getLogger(__name__)

# Chunks of the documents already cited in a conversation rank a little higher (never filtered).
ACTIVE_BOOST = 1.15
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

# The ready documents kept in whole (id, name), oldest first, and the token limit they were read under.
WholeKey = tuple[tuple[tuple[str, str], ...], int]


def term_coverage(terms: Sequence[str], chunk: ChunkRecord) -> float:
    """The share of a question's content words that a chunk (its text or heading) holds."""
    if not terms:
        return 0.0
    words = set(tokenize(f"{chunk.heading} {chunk.text}"))
    return sum(term in words for term in terms) / len(terms)


class RetrievalService:
    def __init__(self, uow: UnitOfWorkFactory, open_index: Callable[[], ChunkIndex], embedder: Embedder,
                 words: Callable[[], WordIndex] | None = None):
        self._uow = uow
        self._open_index = open_index
        self._embedder = embedder
        self._words = words  # None: the store searches its chunks by words itself (PostgreSQL)
        self._whole: OrderedDict[WholeKey, list[Retrieved] | None] = OrderedDict()
        self._whole_lock = threading.Lock()

    def retrieve(self, query: str, *, top_k: int, document_ids: builtins.list[str] | None = None,
                 active: AbstractSet[str] = frozenset()) -> builtins.list[Retrieved]:
        """The `top_k` passages for a question: the closest in meaning (the vector index) and the
        best by BM25 (the word index, or the store's text search), fused with RRF, chunks of
        `active` documents lifted a little.
        `document_ids=None` searches every document; an empty list searches none."""
        searchable, scope = self._ready(document_ids)
        if not searchable:
            return []
        return self._search(query_terms(query), self._query_vector(query), top_k=top_k, scope=scope, active=active)

    def retrieve_each(self, query: str, document_ids: builtins.list[str], *, top_k: int,
                      active: AbstractSet[str] = frozenset()) -> dict[str, builtins.list[Retrieved]]:
        """The `top_k` passages of each ready one of these documents, as `retrieve` ranks them
        within that document alone; the question is embedded once for all of them."""
        searchable, scope = self._ready(document_ids)
        if not searchable or scope is None:
            return {}
        terms, vector = query_terms(query), self._query_vector(query)
        return {document: self._search(terms, vector, top_k=top_k, scope=Scope((document,)), active=active)
                for document in scope.document_ids}

    def _ready(self, document_ids: builtins.list[str] | None) -> tuple[bool, Scope | None]:
        """Whether anything can be found, and the scope of the ready documents among those asked
        for (None: every document). Only these are looked up, never the whole library: listing
        it took 8 ms a question at 1,000 documents and 36 ms at 5,000."""
        with self._uow() as uow:
            if document_ids is None:
                return uow.documents.any_ready(), None
            in_scope = uow.documents.ready_names(document_ids)
            scope = Scope(tuple(d for d in document_ids if d in in_scope))
            return bool(scope.document_ids), scope

    def _query_vector(self, query: str) -> builtins.list[float] | None:
        try:
            return self._embedder.embed([query])[0]
        except DocchatError as error:
            # An embeddings server that is down costs the answer its search by meaning, not the answer.
            log.warning("searching by keywords only: %s", error)
            return None

    def _search(self, terms: builtins.list[str], vector: builtins.list[float] | None, *, top_k: int,
                scope: Scope | None, active: AbstractSet[str]) -> builtins.list[Retrieved]:
        candidates = CANDIDATES_PER_HIT * top_k
        keyword = self.by_words(terms, limit=candidates, document_ids=scope.document_ids if scope else None)
        try:
            closest = [] if vector is None else self._open_index().closest(vector, limit=candidates, scope=scope)
        except DocchatError as error:  # an index that cannot be opened, as a server that is down
            log.warning("searching by keywords only: %s", error)
            closest = []
        with self._uow() as uow:
            names = uow.documents.ready_names({document for _, document, _ in closest} | {d for _, d in keyword})
            # A document being ingested has vectors before it is ready; it is not searched yet
            # (nor one deleted since the searches).
            closest = [hit for hit in closest if hit[1] in names]
            keyword = [hit for hit in keyword if hit[1] in names]
            similarity = {chunk_id: value for chunk_id, _, value in closest}
            dense = [(chunk_id, document_id) for chunk_id, document_id, _ in closest]
            ranked = fuse(dense, keyword, top_k=top_k, boost_documents=set(active), boost=ACTIVE_BOOST)
            records = uow.documents.chunks([r.chunk_id for r in ranked])
        return [Retrieved(records[r.chunk_id], names[r.document_id], r.score, similarity=similarity.get(r.chunk_id),
                          coverage=term_coverage(terms, records[r.chunk_id]) if rank < WORDS_COUNTED else 0.0)
                for rank, r in enumerate(r for r in ranked if r.chunk_id in records)]

    def by_words(self, terms: Sequence[str], *, limit: int,
                 document_ids: Sequence[str] | None = None) -> builtins.list[tuple[str, str]]:
        """The keyword side alone: (chunk id, document id) of the chunks of ready documents that
        best match any of the terms by BM25, best first."""
        if self._words is not None:
            return self._words().search(terms, limit=limit, document_ids=document_ids)
        with self._uow() as uow:
            return uow.documents.keyword_search(terms, limit=limit, document_ids=document_ids)

    def in_scope(self, document_ids: builtins.list[str] | None) -> builtins.list[tuple[str, str]]:
        """(id, name) of the ready documents in scope (None: every one), oldest first."""
        with self._uow() as uow:
            return _in_scope(uow, document_ids)

    def whole(self, document_ids: builtins.list[str] | None, *, max_tokens: int) -> builtins.list[Retrieved] | None:
        """Every chunk of the documents in scope, in document order (oldest document first), when
        their tokens add up to at most `max_tokens`; None when they do not, or there are none."""
        with self._uow() as uow:
            ready = _in_scope(uow, document_ids)
            key = (tuple(ready), max_tokens)
            with self._whole_lock:
                if key in self._whole:
                    self._whole.move_to_end(key)
                    kept = self._whole[key]
                    return list(kept) if kept is not None else None
            # Summed in the database: a library too large to go in whole is never read here.
            if not ready or uow.documents.token_total([document for document, _ in ready]) > max_tokens:
                found = None
            else:
                found = [Retrieved(record, name, 0.0)
                         for document, name in ready
                         for record in uow.documents.chunks_of(document)]
        with self._whole_lock:
            self._whole[key] = found
            if len(self._whole) > WHOLE_KEPT:
                self._whole.popitem(last=False)
        return list(found) if found is not None else None


def _in_scope(uow: UnitOfWork, document_ids: builtins.list[str] | None) -> builtins.list[tuple[str, str]]:
    """(id, name) of the ready documents in scope (None: every one), oldest first, read without
    building each document in full (36 ms a question at 5,000 documents)."""
    ready = uow.documents.ready_in_order()
    if document_ids is None:
        return ready
    wanted = set(document_ids)
    return [(document, name) for document, name in ready if document in wanted]
