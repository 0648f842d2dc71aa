"""The chunk index in Qdrant, and hybrid retrieval over it.

One point per chunk, with a dense vector ("dense", cosine) and a BM25 sparse vector ("bm25",
IDF supplied by Qdrant), and the chunk itself as payload. The same code runs over Qdrant's
embedded local mode (`QdrantClient(path=...)`) and over a server (`QdrantClient(url=...)`).

Invariants:
- A point's id is derived from its chunk id alone, so re-adding a chunk replaces it.
- A search restricted to `document_ids` never returns a chunk of another document (the filter
  sits on both prefetches, so nothing from outside the scope can enter the fusion).
- The bias towards `boost_documents` reorders hits and never removes one: with or without it,
  a search returns the same number of hits as long as there are that many candidates.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from qdrant_client import QdrantClient, models

from docchat.documents import sparse
from docchat.errors import DocchatError

DENSE = "dense"
SPARSE = "bm25"
# The constant of the original RRF paper. Qdrant's default (a bare FusionQuery) is 2, which lets
# the top of either list dominate; 60 lets agreement between the two lists count for more.
RRF_K = 60
DEFAULT_BOOST = 1.15
# Local mode commits every point in its own SQLite transaction whatever the batch, but larger
# calls still skip per-call validation and bookkeeping (and a request per call on a server).
UPSERT_BATCH = 256
# Each side offers this many candidates per hit asked for, so fusion has overlap to work with.
CANDIDATES_PER_HIT = 4
_POINT_NAMESPACE = uuid.UUID("5d0c3c1e-2a7b-4f4e-9a51-6b1f0c9e4d27")


@dataclass(frozen=True)
class IndexedChunk:
    """A chunk as the index stores it: where it comes from, and its text."""

    document_id: str
    chunk_id: str
    text: str
    label: str
    page: int | None
    index: int


@dataclass(frozen=True)
class Hit:
    chunk: IndexedChunk
    score: float


def point_id(chunk_id: str) -> str:
    """The Qdrant point id of a chunk: a UUID that depends on the chunk id only."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))


def rrf(rank_lists: Sequence[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion, as Qdrant computes it: each list adds 1 / (k + position) for an
    item, positions counted from 0. Highest first; ties keep the order of first appearance."""
    scores: dict[str, float] = {}
    for ranking in rank_lists:
        for position, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + position)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)


def apply_bias(hits: Iterable[Hit], boost_documents: set[str] | frozenset[str],
               boost: float = DEFAULT_BOOST) -> list[Hit]:
    """Multiplies the score of hits from `boost_documents` by `boost` and re-sorts (stable).
    Every hit comes back: a bias, never a filter."""
    biased = [
        replace(hit, score=hit.score * boost) if hit.chunk.document_id in boost_documents else hit
        for hit in hits
    ]
    return sorted(biased, key=lambda hit: hit.score, reverse=True)


class ChunkIndex:
    """Chunks of every document, searchable by meaning and by exact terms at once."""

    def __init__(self, client: QdrantClient, collection: str = "docchat_chunks",
                 dimension: int = 384) -> None:
        self._client = client
        self._collection = collection
        self._dimension = dimension

    def ensure_collection(self) -> None:
        """Creates the collection on first use; refuses one built for another embedding size."""
        if self._client.collection_exists(self._collection):
            self._check_dimension()
            return
        self._client.create_collection(
            self._collection,
            vectors_config={DENSE: models.VectorParams(size=self._dimension, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        # A server uses this index for the scope filter and for deletes; local mode has no
        # payload indexes and says so in a warning that would only be noise here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self._client.create_payload_index(
                self._collection, "document_id", field_schema=models.PayloadSchemaType.KEYWORD
            )

    def add(self, chunks: Sequence[IndexedChunk], vectors: Sequence[Sequence[float]]) -> None:
        """Stores chunks with their dense vectors (same order); the sparse ones are made here."""
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        points = [self._point(chunk, vector) for chunk, vector in zip(chunks, vectors)]
        for start in range(0, len(points), UPSERT_BATCH):
            self._client.upsert(self._collection, points[start:start + UPSERT_BATCH], wait=True)

    def search(self, query: str, query_vector: Sequence[float], *, top_k: int = 10,
               document_ids: list[str] | None = None,
               boost_documents: set[str] | frozenset[str] = frozenset(),
               boost: float = DEFAULT_BOOST) -> list[Hit]:
        """The `top_k` best chunks for a question: dense and sparse candidates fused with RRF by
        Qdrant, then biased towards `boost_documents`. `document_ids=None` searches everything;
        an empty list searches nothing."""
        if document_ids is not None and not document_ids:
            return []
        scope = _scope(document_ids)
        candidates = CANDIDATES_PER_HIT * top_k
        prefetch = [models.Prefetch(query=list(query_vector), using=DENSE, filter=scope, limit=candidates)]
        terms = sparse.query_vector(query)
        # A question of stopwords alone has no terms; the dense side still answers it.
        if terms:
            prefetch.append(models.Prefetch(
                query=models.SparseVector(indices=list(terms.indices), values=list(terms.values)),
                using=SPARSE, filter=scope, limit=candidates,
            ))
        response = self._client.query_points(
            self._collection,
            prefetch=prefetch,
            query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
            # Every fused candidate, not just top_k: the bias may lift one from below the cut.
            limit=candidates,
            with_payload=True,
        )
        hits = apply_bias((_hit(point) for point in response.points), boost_documents, boost)
        return hits[:top_k]

    def delete_document(self, document_id: str) -> None:
        """Removes every chunk of a document."""
        self._client.delete(
            self._collection,
            points_selector=models.FilterSelector(filter=_scope([document_id])),
            wait=True,
        )

    def count(self) -> int:
        return self._client.count(self._collection, exact=True).count

    def _check_dimension(self) -> None:
        vectors = self._client.get_collection(self._collection).config.params.vectors
        size = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        if size != self._dimension:
            raise DocchatError(
                f"The document index '{self._collection}' was built for {size}-dimensional "
                f"embeddings, but the embedder makes {self._dimension}. Re-index the documents."
            )

    def _point(self, chunk: IndexedChunk, vector: Sequence[float]) -> models.PointStruct:
        terms = sparse.document_vector(chunk.text)
        named: dict = {DENSE: list(vector)}
        # A chunk with no terms (only punctuation, or only stopwords) gets no sparse vector;
        # it stays findable by meaning.
        if terms:
            named[SPARSE] = models.SparseVector(indices=list(terms.indices), values=list(terms.values))
        return models.PointStruct(
            id=point_id(chunk.chunk_id),
            vector=named,
            payload={
                "document_id": chunk.document_id,
                "chunk_id": chunk.chunk_id,
                "text": chunk.text,
                "label": chunk.label,
                "page": chunk.page,
                "index": chunk.index,
            },
        )


def _scope(document_ids: list[str] | None) -> models.Filter | None:
    if document_ids is None:
        return None
    return models.Filter(must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=document_ids))])


def _hit(point: models.ScoredPoint) -> Hit:
    payload = point.payload or {}
    chunk = IndexedChunk(
        document_id=payload["document_id"],
        chunk_id=payload["chunk_id"],
        text=payload["text"],
        label=payload["label"],
        page=payload["page"],
        index=payload["index"],
    )
    return Hit(chunk=chunk, score=point.score)
