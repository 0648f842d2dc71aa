"""The chunk index on a Qdrant server (`DOCCHAT_QDRANT_URL`), through qdrant-client.

One point per chunk, with a dense vector ("dense", cosine) and the chunk's and its document's
ids as payload; the text, page and section stay in the database, which also answers the keyword
side. The scope goes to the server as a filter on the document id, which has a payload index.
The same client also reads the folders of qdrant-client's local mode, which docchat used before
Qdrant Edge (edge_index.py): moving.py copies them over once.

Invariants:
- A point's id is derived from its chunk id alone, so re-adding a chunk replaces it.
- A search within a scope returns only that scope's chunks, best first.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any, cast

from qdrant_client import QdrantClient, models

from docchat.documents.index.points import SharedByChunk, check_built_for, point_id
from docchat.domain import Scope

DENSE = "dense"
# Local mode commits every point in its own SQLite transaction whatever the batch, but larger
# calls still skip per-call validation and bookkeeping (and a request per call on a server).
UPSERT_BATCH = 256
# Local mode sorts every point id again for each page of a scroll (about 0.5 s at 100,000
# points), and a page holds its vectors as Python floats (about 12 KB each): few, large pages.
READ_PAGE = 25_000


class QdrantServerIndex(SharedByChunk):
    """Chunks of every document, searchable by meaning, in a Qdrant collection."""

    def __init__(self, client: QdrantClient, collection: str = "docchat_chunks", dimension: int = 384,
                 *, embedder: str | None = None) -> None:
        self._client = client
        self._collection = collection
        self._dimension = dimension
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
        # For the scope filter and for deletes. Local mode (the tests' stand-in for a server)
        # has no payload indexes and says so in a warning that would only be noise here.
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

    def add_points(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """Stores (chunk id, document id, vector) of chunks of any documents: the chunks of many
        small files go in a few requests instead of one each."""
        structs = [
            models.PointStruct(id=point_id(chunk_id), vector={DENSE: list(vector)},
                               payload={"document_id": document_id, "chunk_id": chunk_id})
            for chunk_id, document_id, vector in points
        ]
        for start in range(0, len(structs), UPSERT_BATCH):
            self._client.upsert(self._collection, structs[start:start + UPSERT_BATCH], wait=True)

    def closest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str, float]]:
        """As `nearest`, with each chunk's cosine similarity to the query (the evidence judgement
        reads it: how close the best passage is, not only which one is best)."""
        if scope is not None and not scope.document_ids:
            return []
        response = self._client.query_points(
            self._collection, query=list(query_vector), using=DENSE, limit=limit, with_payload=True,
            query_filter=_scope_filter(scope.document_ids) if scope else None)
        return [(_payload(point)["chunk_id"], _payload(point)["document_id"], float(point.score))
                for point in response.points]

    def delete_document(self, document_id: str) -> None:
        """Removes every chunk of a document."""
        self._client.delete(self._collection, points_selector=models.FilterSelector(filter=_scope_filter([document_id])),
                            wait=True)

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        """Removes the vectors of these chunks (those of documents gone while the index could
        not be reached, found by `docchat documents repair`)."""
        for start in range(0, len(chunk_ids), UPSERT_BATCH):
            batch: list[models.ExtendedPointId] = [point_id(chunk_id) for chunk_id in chunk_ids[start:start + UPSERT_BATCH]]
            self._client.delete(self._collection, points_selector=models.PointIdsList(points=batch), wait=True)

    def chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every point, without their vectors."""
        found: dict[str, str] = {}
        offset = None
        while True:
            records, offset = self._client.scroll(self._collection, limit=READ_PAGE, offset=offset,
                                                  with_payload=True, with_vectors=False)
            found.update((_payload(record)["chunk_id"], _payload(record)["document_id"]) for record in records)
            if offset is None:
                return found

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The vectors of those of these chunks the index holds (one request)."""
        records = self._client.retrieve(self._collection, ids=[point_id(c) for c in dict.fromkeys(chunk_ids)],
                                        with_payload=True, with_vectors=True)
        return {_payload(record)["chunk_id"]: list(_dense(record)) for record in records}

    def vectors(self, *, batch: int = UPSERT_BATCH) -> Iterator[tuple[str, str, list[float]]]:
        """(chunk id, document id, vector) of every chunk, a batch at a time: to copy the
        vectors into another index without embedding the chunks again."""
        offset = None
        while True:
            records, offset = self._client.scroll(self._collection, limit=batch, offset=offset,
                                                  with_payload=True, with_vectors=True)
            for record in records:
                yield _payload(record)["chunk_id"], _payload(record)["document_id"], _dense(record)
            if offset is None:
                return

    def close(self) -> None:
        self._client.close()

    def count(self) -> int:
        return self._client.count(self._collection, exact=True).count

    def dimension_and_embedder(self) -> tuple[int | None, str | None]:
        """The size of the collection's vectors and the model recorded as making them."""
        config = self._client.get_collection(self._collection).config
        vectors = config.params.vectors
        size = vectors[DENSE].size if isinstance(vectors, dict) and DENSE in vectors else None
        return size, (config.metadata or {}).get("embedder")

    def _check_embedder(self) -> None:
        check_built_for(*self.dimension_and_embedder(), self._dimension, self._embedder)


def _payload(point: models.Record | models.ScoredPoint) -> dict[str, Any]:
    assert point.payload is not None  # every point is written with one, and read with_payload=True
    return point.payload


def _dense(record: models.Record) -> list[float]:
    # Read with_vectors=True from a collection whose one vector is the named dense one.
    return cast(dict[str, list[float]], record.vector)[DENSE]


def _scope_filter(document_ids: Sequence[str]) -> models.Filter:
    return models.Filter(must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=list(document_ids)))])
