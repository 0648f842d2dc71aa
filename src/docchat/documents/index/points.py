"""What every engine keys a chunk's vector by."""

from __future__ import annotations

import uuid

_POINT_NAMESPACE = uuid.UUID("5d0c3c1e-2a7b-4f4e-9a51-6b1f0c9e4d27")


def point_id(chunk_id: str) -> str:
    """A chunk's point id: a UUID that depends on the chunk id only, so re-adding a chunk
    replaces it, and a copy into another engine keeps it."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))
