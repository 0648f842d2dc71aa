"""The chunk index in Qdrant Edge: the dense (meaning) side of document retrieval, in the data dir.

Qdrant's engine inside this process (qdrant-edge-py): one shard folder with a write-ahead log,
segments whose vectors are memory-mapped, an HNSW graph per sealed segment, and a keyword index
on each point's document id, so a scope is a filter the engine applies inside its search. Opening
the shard maps its files; no vector is read into Python. One point per chunk, its id derived from
the chunk id alone (re-adding a chunk replaces it), with the chunk's and its document's ids as
payload; the text, page and section stay in the database, which also answers the keyword side.

Invariants:
- A search within a scope returns only that scope's chunks, best first.
- Until a segment's approximate index is built, the engine searches it exactly; `building()`
  says how many vectors are searched so (`docchat doctor` shows it).

Building the approximate index (`optimize()`) holds Python's GIL for as long as it runs
(qdrant-edge-py 0.9.0; measured: a thread ticking every 5 ms stood still for the whole 12 s of
indexing 30,000 vectors): every other thread of the process waits meanwhile. So segments are
searched exactly up to INDEX_FROM vectors (a few milliseconds), and indexed only past it, after
the writes that grew them, on a thread of its own: each build is about the size of what was
added since the last one (docs/perf/vector-engines.md gives the figures).
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import qdrant_edge as qe

from docchat.documents.index.points import ByChunk, check_built_for, point_id
from docchat.domain import Scope
from docchat.errors import DocchatError, IndexInUse

log = logging.getLogger(__name__)

DENSE = "dense"
WRITE_BATCH = 1_000
READ_PAGE = 10_000
# HNSW: 48 links per node, 100 candidates while building. Qdrant's default of 16 links loses
# passages among many nearly alike ones (template contracts, repeated boilerplate; the retrieval
# bench's generated prose is an extreme of it): at 200,000 of the bench's chunks, recall@10 against
# exact search at 512 candidates per search went from 0.978 to 0.988 written in ingestion order,
# 0.831 to 0.953 written in random order (as a move from another engine writes them). The cost,
# measured on the same vectors: a search for 40 takes about 10% longer (p50 7.9 -> 8.8 ms), writing
# and building take 20-30% longer (so a build holds the GIL that much longer), and the links take
# 256 more bytes per vector (1,536 for the vector itself).
# Candidates per search (docs/perf/vector-engines.md): on a million generated vectors, with 16
# links, recall@10 0.93 / 0.97 / 0.99 with 128 / 256 / 512 (p95 17 -> 25 ms). A shard keeps the
# links it was created with; `docchat documents reindex` makes a new one.
LINKS, BUILD_CANDIDATES, SEARCH_CANDIDATES = 48, 100, 512
# Below this many vectors a segment is searched exactly (about 1 ms per 10,000 at 384 dimensions
# here) and is not indexed: each build then costs seconds, not the whole library again. At 10,000
# the retrieval bench's library (50 documents of nearly alike generated text) was indexed, and
# recall@10 against exact search was 0.97; at 20,000 it is searched exactly.
INDEX_FROM = 20_000
# Sealed segments are merged while there are more than this many, into segments of at most
# MERGED_SIZE vectors: merging re-indexes what it merges, so both bound a build's length.
SEGMENTS, MERGED_SIZE = 16, 200_000
ABOUT = "about.json"
SHARD = "shard"


class EdgeChunkIndex(ByChunk):
    """Chunks of every document, searchable by meaning; the shard in `folder`, which this
    process alone holds until `close`."""

    def __init__(self, folder: Path, *, dimension: int = 384, embedder: str | None = None,
                 search_candidates: int | None = None) -> None:
        self._folder = folder
        self._dimension = dimension
        # Which model made the vectors: two models of one size still make vectors that cannot
        # be compared, so the folder remembers it.
        self._embedder = embedder
        self._shard: qe.EdgeShard | None = _load(folder) if (folder / SHARD).is_dir() else None
        self._builder: threading.Thread | None = None
        self._build_again = False
        self._build_lock = threading.Lock()
        self._candidates = search_candidates or SEARCH_CANDIDATES  # given: `docchat bench engines --ef`

    def ensure_collection(self) -> None:
        """Creates the shard on first use; refuses one built by another embedding model."""
        if self._shard is None:
            self._create()
            return
        about = self._about()
        check_built_for(about.get("dimension"), about.get("embedder"), self._dimension, self._embedder)
        # No build is started here: `doctor` opens the index to say how many vectors wait for one
        # (left by a process stopped before its build), and a build would hold it until done.
        # The next write starts it.

    def recreate(self) -> None:
        """Drops every vector and starts an empty shard for this embedder."""
        self._wait_for_build()
        if self._shard is not None:
            self._shard.close()
            self._shard = None
        shutil.rmtree(self._folder, ignore_errors=True)
        self._create()

    def add_points(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """Stores (chunk id, document id, vector) of chunks of any documents."""
        shard = self._opened()
        for start in range(0, len(points), WRITE_BATCH):
            shard.update(qe.UpdateOperation.upsert_points([
                qe.Point(point_id(chunk_id), {DENSE: list(vector)}, {"document_id": document_id, "chunk_id": chunk_id})
                for chunk_id, document_id, vector in points[start:start + WRITE_BATCH]]))
        self._build_if_due()

    def closest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str, float]]:
        """As `nearest`, with each chunk's cosine similarity to the query."""
        if scope is not None and not scope.document_ids:
            return []
        found = self._opened().query(qe.QueryRequest(
            limit=limit, query=qe.Query.Nearest(list(query_vector), using=DENSE),
            filter=_scope_filter(scope.document_ids) if scope else None,
            params=qe.SearchParams(hnsw_ef=max(self._candidates, limit)), with_payload=True))
        return [(_payload(point)["chunk_id"], _payload(point)["document_id"], float(point.score)) for point in found]

    def delete_document(self, document_id: str) -> None:
        """Removes every chunk of a document."""
        self._opened().update(qe.UpdateOperation.delete_points_by_filter(_scope_filter([document_id])))

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        """Removes the vectors of these chunks (those of documents gone while the index could
        not be opened, found by `docchat documents repair`)."""
        shard = self._opened()
        for start in range(0, len(chunk_ids), WRITE_BATCH):
            ids: list[qe.PointId] = [point_id(chunk_id) for chunk_id in chunk_ids[start:start + WRITE_BATCH]]
            shard.update(qe.UpdateOperation.delete_points(ids))

    def chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every point, without their vectors."""
        return {chunk_id: document_id for chunk_id, document_id, _ in self._points(with_vectors=False)}

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The (unit-length) vectors of those of these chunks the index holds."""
        records = self._opened().retrieve([point_id(c) for c in dict.fromkeys(chunk_ids)],
                                          with_payload=True, with_vector=True)
        return {_payload(record)["chunk_id"]: _dense(record) for record in records}

    def vectors(self, *, batch: int = READ_PAGE) -> Iterator[tuple[str, str, list[float]]]:
        """(chunk id, document id, vector) of every chunk, a page at a time."""
        for chunk_id, document_id, vector in self._points(with_vectors=True, page=batch):
            assert vector is not None
            yield chunk_id, document_id, vector

    def count(self) -> int:
        return self._opened().count(qe.CountRequest(exact=True))

    def building(self) -> int:
        """How many vectors are searched exactly, in segments that have no approximate index,
        when they are INDEX_FROM or more (fewer cost about a millisecond, and are never indexed).
        A process stopped during a build leaves its vectors so, in segments that may each be too
        small to be indexed until later writes fill them."""
        info = self._opened().info()
        waiting = info.points_count - info.indexed_vectors_count
        return waiting if waiting >= INDEX_FROM else 0

    def wait_until_built(self) -> None:
        """Returns once no build is running or due (a command that wrote many vectors)."""
        self._build_if_due()
        self._wait_for_build()

    @property
    def exclusive(self) -> bool:
        """The shard's write-ahead log is locked by the one process that opened it."""
        return True

    def close(self) -> None:
        """Lets go of the shard (and of its lock), after a build in progress ends."""
        self._wait_for_build()
        if self._shard is not None:
            self._shard.flush()
            self._shard.close()
            self._shard = None

    def _create(self) -> None:
        self._folder.mkdir(parents=True, exist_ok=True)
        per_vector_kb = self._dimension * 4 / 1024
        self._shard = qe.EdgeShard.create(str(self._folder / SHARD), qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=self._dimension, distance=qe.Distance.Cosine)},
            hnsw_config=qe.HnswIndexConfig(m=LINKS, ef_construct=BUILD_CANDIDATES, full_scan_threshold=10_000),
            optimizers=qe.EdgeOptimizersConfig(
                indexing_threshold=int(INDEX_FROM * per_vector_kb), default_segment_number=SEGMENTS,
                max_segment_size=int(MERGED_SIZE * per_vector_kb))))
        self._shard.update(qe.UpdateOperation.create_field_index("document_id", qe.PayloadSchemaType.Keyword))
        (self._folder / ABOUT).write_text(json.dumps({"dimension": self._dimension, "embedder": self._embedder}))

    def _about(self) -> dict[str, Any]:
        try:
            about: dict[str, Any] = json.loads((self._folder / ABOUT).read_text())
            return about
        except (OSError, ValueError):
            return {"dimension": self._dimension}  # written after the shard: a crash between

    def _opened(self) -> qe.EdgeShard:
        if self._shard is None:
            raise DocchatError("The document index is not open.")
        return self._shard

    def _points(self, *, with_vectors: bool, page: int = READ_PAGE) -> Iterator[tuple[str, str, list[float] | None]]:
        shard, offset = self._opened(), None
        while True:
            records, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=page, with_payload=True,
                                                            with_vector=with_vectors))
            for record in records:
                payload = _payload(record)
                yield payload["chunk_id"], payload["document_id"], _dense(record) if with_vectors else None
            if offset is None:
                return

    def _build_if_due(self) -> None:
        if self.building() == 0:
            return
        with self._build_lock:
            if self._builder is not None:
                self._build_again = True
                return
            self._builder = threading.Thread(target=self._build, name="docchat-index-build", daemon=True)
            self._builder.start()

    def _build(self) -> None:
        try:
            while True:
                shard = self._shard
                if shard is not None:
                    shard.optimize()
                with self._build_lock:  # a write meanwhile asked for another pass, or this one ends
                    if not self._build_again:
                        self._builder = None
                        return
                    self._build_again = False
        except Exception:
            # Searches stay exact where the build did not get to; the next write or opening tries again.
            log.exception("building the document index's approximate index failed")
            with self._build_lock:
                self._builder = None

    def _wait_for_build(self) -> None:
        with self._build_lock:
            builder = self._builder
        if builder is not None:
            builder.join()


def _load(folder: Path) -> qe.EdgeShard:
    try:
        return qe.EdgeShard.load(str(folder / SHARD))
    except Exception as error:  # the binding raises plain Exception
        if "WouldBlock" in str(error):
            raise IndexInUse(f"The document index ({folder}) is open in another docchat process (the app?); "
                             "stop it first, or use a Qdrant server (DOCCHAT_QDRANT_URL).") from None
        raise DocchatError(f"The document index ({folder}) could not be opened: {error}") from error


def _payload(point: qe.ScoredPoint | qe.Record) -> dict[str, Any]:
    assert point.payload is not None  # every point is written with one and read with it
    return point.payload


def _dense(record: qe.Record) -> list[float]:
    vector = record.vector
    assert isinstance(vector, dict)  # read with_vector=True from a shard whose one vector is named
    dense = vector[DENSE]
    assert isinstance(dense, list)
    return cast(list[float], dense)  # a plain dense vector: floats, not a multi-vector's lists


def _scope_filter(document_ids: Sequence[str]) -> qe.Filter:
    return qe.Filter(must=[qe.FieldCondition(key="document_id", match=qe.MatchAny(any=list(document_ids)))])
