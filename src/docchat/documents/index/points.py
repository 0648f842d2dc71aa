"""What every engine keys a chunk's vector by."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from docchat.domain import Scope
from docchat.errors import DocchatError

_POINT_NAMESPACE = uuid.UUID("5d0c3c1e-2a7b-4f4e-9a51-6b1f0c9e4d27")


def point_id(chunk_id: str) -> str:
    """A chunk's point id: a UUID that depends on the chunk id only, so re-adding a chunk
    replaces it, and a copy into another engine keeps it."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))


def check_built_for(size: int | None, built_by: str | None, dimension: int, embedder: str | None) -> None:
    """Refuses an index whose vectors (`size` long, made by `built_by`) this embedder's cannot be
    compared with: two models of one size still make vectors that cannot be compared. An index
    made before the model was recorded carries none, and is taken as it is."""
    if size != dimension:
        raise DocchatError(f"The document index was built for {size}-dimensional embeddings, but the "
                           f"embedder makes {dimension}. Run `docchat documents reindex`.")
    if built_by and embedder and built_by != embedder:
        raise DocchatError(f"The document index was built with {built_by} embeddings, but docchat is set "
                           f"up for {embedder}. Run `docchat documents reindex`.")


class ByChunk:
    """What both engines derive from their own `add_points` and `closest`."""

    def add_points(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        raise NotImplementedError

    def closest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str, float]]:
        raise NotImplementedError

    def add(self, document_id: str, chunk_ids: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        """Stores a document's chunks with their dense vectors (same order)."""
        if len(chunk_ids) != len(vectors):
            raise ValueError(f"{len(chunk_ids)} chunks but {len(vectors)} vectors")
        self.add_points([(chunk_id, document_id, vector) for chunk_id, vector in zip(chunk_ids, vectors)])

    def nearest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str]]:
        """(chunk id, document id) of the `limit` chunks closest in meaning, best first.
        `scope=None` searches everything; a scope without documents finds nothing."""
        return [(chunk_id, document_id) for chunk_id, document_id, _ in
                self.closest(query_vector, limit=limit, scope=scope)]


class SharedByChunk(ByChunk):
    """An index other processes use at the same time, with nothing this process builds or waits
    for: a Qdrant server's collection (it builds out of this client's sight) or pgvector's table
    (each write updates its HNSW index)."""

    def building(self) -> int:
        return 0

    def wait_until_built(self) -> None:
        pass

    @property
    def exclusive(self) -> bool:
        return False
