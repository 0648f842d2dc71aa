"""The chunk index in Qdrant: the dense (meaning) side of document retrieval.

One point per chunk, with a dense vector ("dense", cosine) and the chunk's and its document's
ids as payload; the text, page and section stay in SQLite, which also answers the keyword
side. The same code runs over Qdrant's embedded local mode (`QdrantClient(path=...)`) and over
a server (`QdrantClient(url=...)`).

Invariants:
- A point's id is derived from its chunk id alone, so re-adding a chunk replaces it.
- A search within a scope returns the chunks an unrestricted search would rank first among
  that scope's chunks (up to the order of equal scores, and float rounding when a small scope
  is scored here), and never a chunk from outside it.

Local mode computes dense similarities with numpy, but checks a payload filter point by point
in Python (about 170 ms at 10,000 chunks). So in local mode a scope is not sent as a filter:
a small scope is scored directly from its own vectors, and a large one is cut out of an
unrestricted search that fetches enough candidates, with the filter as the last resort.
"""

from __future__ import annotations

import math
import uuid
import warnings
from collections.abc import Iterator, Sequence

import numpy as np
from qdrant_client import QdrantClient, models

from docchat.domain import Scope
from docchat.errors import DocchatError

DENSE = "dense"
# Local mode commits every point in its own SQLite transaction whatever the batch, but larger
# calls still skip per-call validation and bookkeeping (and a request per call on a server).
UPSERT_BATCH = 256
# Up to this many chunks, a scope is scored from its own vectors (about 12 ms for 1,000).
RESCORE_MAX = 1_000
# A large scope's share of an unrestricted search is estimated from its share of the chunks;
# fetching this many times the estimate makes falling back to the slow filter rare.
OVERFETCH = 2
_POINT_NAMESPACE = uuid.UUID("5d0c3c1e-2a7b-4f4e-9a51-6b1f0c9e4d27")


def point_id(chunk_id: str) -> str:
    """The Qdrant point id of a chunk: a UUID that depends on the chunk id only."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))


class ChunkIndex:
    """Chunks of every document, searchable by meaning."""

    def __init__(self, client: QdrantClient, collection: str = "docchat_chunks", dimension: int = 384,
                 *, local: bool = True, embedder: str | None = None) -> None:
        self._client = client
        self._collection = collection
        self._dimension = dimension
        self._local = local
        # Which model made the vectors: two models of one size still make vectors that
        # cannot be compared, so the collection remembers it.
        self._embedder = embedder

    def ensure_collection(self) -> None:
        """Creates the collection on first use; refuses one built by another embedding model."""
        if self._client.collection_exists(self._collection):
            self._check_embedder()
            return
        self._client.create_collection(
            self._collection,
            vectors_config={DENSE: models.VectorParams(size=self._dimension, distance=models.Distance.COSINE)},
            metadata={"embedder": self._embedder} if self._embedder else None,
        )
        # A server uses this index for the scope filter and for deletes; local mode has no
        # payload indexes and says so in a warning that would only be noise here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            self._client.create_payload_index(
                self._collection, "document_id", field_schema=models.PayloadSchemaType.KEYWORD
            )

    def recreate(self) -> None:
        """Drops every point and starts an empty collection for this embedding size."""
        if self._client.collection_exists(self._collection):
            self._client.delete_collection(self._collection)
        self.ensure_collection()

    def add(self, document_id: str, chunk_ids: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        """Stores a document's chunks with their dense vectors (same order)."""
        if len(chunk_ids) != len(vectors):
            raise ValueError(f"{len(chunk_ids)} chunks but {len(vectors)} vectors")
        points = [
            models.PointStruct(id=point_id(chunk_id), vector={DENSE: list(vector)},
                               payload={"document_id": document_id, "chunk_id": chunk_id})
            for chunk_id, vector in zip(chunk_ids, vectors)
        ]
        for start in range(0, len(points), UPSERT_BATCH):
            self._client.upsert(self._collection, points[start:start + UPSERT_BATCH], wait=True)

    def nearest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str]]:
        """(chunk id, document id) of the `limit` chunks closest in meaning, best first.
        `scope=None` searches everything; a scope without documents finds nothing."""
        if scope is None:
            return self._query(query_vector, limit)
        if not scope.document_ids:
            return []
        if not self._local:
            return self._query(query_vector, limit, _scope_filter(scope.document_ids))
        if len(scope.chunk_ids) <= RESCORE_MAX:
            return self._rescore(query_vector, scope.chunk_ids, limit)
        total = self.count()
        fetch = min(total, math.ceil(OVERFETCH * limit * total / len(scope.chunk_ids)))
        wanted = set(scope.document_ids)
        # The scope's chunks keep their order in an unrestricted ranking, so once enough of
        # them are in, they are exactly the scope's best.
        found = [hit for hit in self._query(query_vector, fetch) if hit[1] in wanted]
        if len(found) >= limit or fetch >= total:
            return found[:limit]
        return self._query(query_vector, limit, _scope_filter(scope.document_ids))

    def delete_document(self, document_id: str) -> None:
        """Removes every chunk of a document."""
        self._client.delete(
            self._collection,
            points_selector=models.FilterSelector(filter=_scope_filter([document_id])),
            wait=True,
        )

    def vectors(self) -> Iterator[tuple[str, str, list[float]]]:
        """(chunk id, document id, vector) of every chunk, a batch at a time: to copy the
        vectors into another index without embedding the chunks again."""
        offset = None
        while True:
            records, offset = self._client.scroll(self._collection, limit=UPSERT_BATCH, offset=offset,
                                                  with_payload=True, with_vectors=True)
            for record in records:
                yield record.payload["chunk_id"], record.payload["document_id"], record.vector[DENSE]
            if offset is None:
                return

    @property
    def exclusive(self) -> bool:
        """Local mode: this process is the only one that can read or write the index."""
        return self._local

    def close(self) -> None:
        """Lets go of the index; in local mode, of the folder's lock."""
        self._client.close()

    def count(self) -> int:
        return self._client.count(self._collection, exact=True).count

    def _check_embedder(self) -> None:
        config = self._client.get_collection(self._collection).config
        vectors = config.params.vectors
        size = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        if size != self._dimension:
            raise DocchatError(
                f"The document index '{self._collection}' was built for {size}-dimensional "
                f"embeddings, but the embedder makes {self._dimension}. Run `docchat documents reindex`."
            )
        # Collections made before the model was recorded carry none; they are taken as they are.
        built_by = (config.metadata or {}).get("embedder")
        if built_by and self._embedder and built_by != self._embedder:
            raise DocchatError(
                f"The document index was built with {built_by} embeddings, but docchat is set up for "
                f"{self._embedder}. Run `docchat documents reindex`."
            )

    def _query(self, query_vector: Sequence[float], limit: int,
               scope: models.Filter | None = None) -> list[tuple[str, str]]:
        response = self._client.query_points(self._collection, query=list(query_vector), using=DENSE,
                                             query_filter=scope, limit=limit, with_payload=True)
        return [(point.payload["chunk_id"], point.payload["document_id"]) for point in response.points]

    def _rescore(self, query_vector: Sequence[float], chunk_ids: Sequence[str],
                 limit: int) -> list[tuple[str, str]]:
        records = self._client.retrieve(self._collection, [point_id(c) for c in chunk_ids],
                                        with_payload=True, with_vectors=[DENSE])
        if not records:
            return []
        matrix = np.array([record.vector[DENSE] for record in records], dtype=np.float32)
        query = np.asarray(query_vector, dtype=np.float32)
        # Cosine, as Qdrant scores it; norms guard against vectors stored unnormalised.
        scores = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query) + 1e-12)
        # Stable, so equal scores rank the same way every time.
        order = np.argsort(-scores, kind="stable")[:limit]
        return [(records[i].payload["chunk_id"], records[i].payload["document_id"]) for i in order]


def _scope_filter(document_ids: Sequence[str]) -> models.Filter:
    return models.Filter(must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=list(document_ids)))])

