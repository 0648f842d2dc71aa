"""What every engine keys a chunk's vector by."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from docchat.domain import Scope

_POINT_NAMESPACE = uuid.UUID("5d0c3c1e-2a7b-4f4e-9a51-6b1f0c9e4d27")


def point_id(chunk_id: str) -> str:
    """A chunk's point id: a UUID that depends on the chunk id only, so re-adding a chunk
    replaces it, and a copy into another engine keeps it."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))


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
