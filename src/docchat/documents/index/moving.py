"""A library's vectors moved once from qdrant-client's local mode (`data/qdrant`, what docchat
used before Qdrant Edge) into the Edge shard (`data/vectors`), and on PostgreSQL from there into
pgvector, without embedding anything again.

The copy is made in `vectors.moving` beside them, and only a whole copy, closed, is renamed to
`vectors`: a failure or a kill leaves the old folder as it was, and the next opening starts the
copy again from nothing. The old folder is removed after the rename; a kill between the two
leaves both, and the next opening finishes by removing the old one. The same rules as a schema
upgrade (docchat.store.upgrade), tested the same way: by killing it (tests/integration). Into
pgvector, the copy is one transaction: a kill leaves no table, and the shard as it was.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from docchat.documents.index.edge_index import EdgeChunkIndex
from docchat.errors import IndexInUse

if TYPE_CHECKING:
    from docchat.documents.index.pgvector_index import PgVectorChunkIndex
    from docchat.documents.index.qdrant_index import QdrantServerIndex

log = logging.getLogger(__name__)

OLD = "qdrant"
NEW = "vectors"
MOVING = "vectors.moving"
PAGE = 25_000
COLLECTION = "docchat_chunks"


def _told(copied: int, total: int) -> None:
    log.warning("moving the document index to its new engine: %s of %s vectors", f"{copied:,}", f"{total:,}")


def _told_shared(copied: int, total: int) -> None:
    log.warning("moving the document index into PostgreSQL (pgvector): %s of %s vectors", f"{copied:,}", f"{total:,}")


def move_local_mode(data_dir: Path, *, progress: Callable[[int, int], None] = _told) -> int | None:
    """Copies `data/qdrant` into `data/vectors` when only the old one is there; returns the
    number of vectors moved, or None when there was nothing to move."""
    old, new, moving = data_dir / OLD, data_dir / NEW, data_dir / MOVING
    if new.is_dir():
        if old.is_dir():
            shutil.rmtree(old)  # killed after the rename, before this
        return None
    if not old.is_dir():
        return None
    from qdrant_client import QdrantClient

    from docchat.documents.index.qdrant_index import QdrantServerIndex

    try:
        client = QdrantClient(path=str(old))
    except RuntimeError as error:
        if "already accessed" not in str(error):
            raise
        raise IndexInUse(f"The document index ({old}) is open in an older docchat (the app?); "
                         "stop it first: this docchat moves it to its new engine once.") from None
    try:
        # A library never written to has no collection: nothing to copy; a shard is made on use.
        moved = _copy(QdrantServerIndex(client), moving, progress) if client.collection_exists(COLLECTION) else None
    finally:
        client.close()
    if moved is not None:
        os.rename(moving, new)
    shutil.rmtree(old)
    return moved


def _copy(source: QdrantServerIndex, moving: Path, progress: Callable[[int, int], None]) -> int:
    dimension, embedder = source.dimension_and_embedder()
    total = source.count()
    shutil.rmtree(moving, ignore_errors=True)  # left by a run that was stopped
    target = EdgeChunkIndex(moving, dimension=dimension or 384, embedder=embedder)
    try:
        target.ensure_collection()
        for page in _pages(source.vectors(batch=PAGE), total, progress):
            target.add_points(page)
        target.wait_until_built()
    finally:
        target.close()
    return total


def move_into_pgvector(data_dir: Path, target: PgVectorChunkIndex, *, dimension: int, embedder: str | None,
                       progress: Callable[[int, int], None] = _told_shared) -> int | None:
    """Copies the data dir's shard (moved from local mode first) into pgvector's table when the
    table is not there yet, then removes the shard; returns the number of vectors moved, or None
    when there was nothing to move. A table already there (another machine of the team filled
    it) is left as it is, and so is the shard, which is no longer read."""
    move_local_mode(data_dir, progress=progress)
    folder = data_dir / NEW
    if not folder.is_dir():
        return None
    source = EdgeChunkIndex(folder, dimension=dimension, embedder=embedder)
    try:
        source.ensure_collection()  # refuses a shard of another embedder, as opening it would
        total = source.count()
        filled = target.fill(_pages(source.vectors(batch=PAGE), total, progress))
    finally:
        source.close()
    if not filled:
        log.warning("the document index in %s is no longer read: this database's pgvector table holds the "
                    "library's vectors", folder)
        return None
    shutil.rmtree(folder)
    return total


def _pages(points: Iterator[tuple[str, str, list[float]]], total: int,
           progress: Callable[[int, int], None]) -> Iterator[list[tuple[str, str, list[float]]]]:
    """The points PAGE at a time; progress is told as each page has been taken in. The source is
    held by this process alone meanwhile, so all `total` of them come out."""
    copied = 0
    while page := list(islice(points, PAGE)):
        yield page
        copied += len(page)
        progress(copied, total)
