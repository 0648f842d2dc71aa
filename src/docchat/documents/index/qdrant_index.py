"""The chunk index in Qdrant: the dense (meaning) side of document retrieval.

One point per chunk, with a dense vector ("dense", cosine) and the chunk's and its document's
ids as payload; the text, page and section stay in SQLite, which also answers the keyword
side. The same code runs over Qdrant's embedded local mode (`QdrantClient(path=...)`) and over
a server (`QdrantClient(url=...)`).

Invariants:
- A point's id is derived from its chunk id alone, so re-adding a chunk replaces it.
- A search within a scope returns the chunks an unrestricted search would rank first among
  that scope's chunks (up to the order of equal scores), and never a chunk from outside it.

Local mode searches with numpy, but per question it normalises every stored vector again,
sorts every score, checks a payload filter point by point in Python (about 170 ms at 10,000
chunks) and reads points one Python object at a time: at 10,000 chunks that was two thirds of
a hybrid search's 46-68 ms of CPU. So in local mode the index keeps its own copy of the
vectors (`_LocalVectors`), read once on the second search (0.4 s of CPU at 10,000 chunks, 8 s
at 100,000, where opening the folder already takes 10 s; this process's client is the folder's
only one and makes every write, so the copy stays exact): a search is one matrix-vector
product and a partial sort, a scope a mask over the rows. On a server, the scope goes as a
filter.
"""

from __future__ import annotations

import threading
import uuid
import warnings
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, cast

import numpy as np
from qdrant_client import QdrantClient, models

from docchat.domain import Scope
from docchat.errors import DocchatError

DENSE = "dense"
# Local mode commits every point in its own SQLite transaction whatever the batch, but larger
# calls still skip per-call validation and bookkeeping (and a request per call on a server).
UPSERT_BATCH = 256
# Local mode sorts every point id again for each page of a scroll (about 0.5 s at 100,000
# points), and a page holds its vectors as Python floats (about 12 KB each): few, large pages.
COPY_PAGE = 25_000
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
        # Local mode's copy of the vectors, read on the first search; held while it is read and
        # while a write changes both the collection and the copy, so neither misses the other.
        self._vectors: _LocalVectors | None = None
        self._vectors_lock = threading.Lock()
        self._searched = False

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
        with self._vectors_lock:
            if self._client.collection_exists(self._collection):
                self._client.delete_collection(self._collection)
            self._vectors = None
        self.ensure_collection()

    def add(self, document_id: str, chunk_ids: Sequence[str], vectors: Sequence[Sequence[float]]) -> None:
        """Stores a document's chunks with their dense vectors (same order)."""
        if len(chunk_ids) != len(vectors):
            raise ValueError(f"{len(chunk_ids)} chunks but {len(vectors)} vectors")
        self.add_points([(chunk_id, document_id, vector) for chunk_id, vector in zip(chunk_ids, vectors)])

    def add_points(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """Stores (chunk id, document id, vector) of chunks of any documents, as `vectors` gives
        them: the chunks of many small files go in a few calls instead of one each."""
        structs = [
            models.PointStruct(id=point_id(chunk_id), vector={DENSE: list(vector)},
                               payload={"document_id": document_id, "chunk_id": chunk_id})
            for chunk_id, document_id, vector in points
        ]
        with self._vectors_lock:
            for start in range(0, len(structs), UPSERT_BATCH):
                self._client.upsert(self._collection, structs[start:start + UPSERT_BATCH], wait=True)
            if self._vectors is not None:
                self._vectors.add(points)

    def nearest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str]]:
        """(chunk id, document id) of the `limit` chunks closest in meaning, best first.
        `scope=None` searches everything; a scope without documents finds nothing."""
        return [(chunk_id, document_id) for chunk_id, document_id, _ in
                self.closest(query_vector, limit=limit, scope=scope)]

    def closest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str, float]]:
        """As `nearest`, with each chunk's cosine similarity to the query (the evidence judgement
        reads it: how close the best passage is, not only which one is best)."""
        if scope is not None and not scope.document_ids:
            return []
        if self._local and self._searched:
            return self._local_vectors().nearest(query_vector, limit, scope.document_ids if scope else None)
        # A one-shot command (`docchat ask`) searches once: Qdrant's own search costs it less than
        # copying the vectors would; a process that searches again is likely to go on.
        self._searched = True
        return self._query(query_vector, limit, _scope_filter(scope.document_ids) if scope else None)

    def delete_document(self, document_id: str) -> None:
        """Removes every chunk of a document."""
        with self._vectors_lock:
            self._client.delete(
                self._collection,
                points_selector=models.FilterSelector(filter=_scope_filter([document_id])),
                wait=True,
            )
            if self._vectors is not None:
                self._vectors.remove_document(document_id)

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        """Removes the vectors of these chunks (those of documents gone while the index could
        not be opened, found by `docchat documents repair`)."""
        with self._vectors_lock:
            for start in range(0, len(chunk_ids), UPSERT_BATCH):
                batch: list[models.ExtendedPointId] = [
                    point_id(chunk_id) for chunk_id in chunk_ids[start:start + UPSERT_BATCH]]
                self._client.delete(self._collection, points_selector=models.PointIdsList(points=batch), wait=True)
            self._vectors = None  # read again on the next search: a repair is rare, the copy is cheap

    def chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every point, without their vectors."""
        found: dict[str, str] = {}
        offset = None
        while True:
            records, offset = self._client.scroll(self._collection, limit=COPY_PAGE, offset=offset,
                                                  with_payload=True, with_vectors=False)
            found.update((_payload(record)["chunk_id"], _payload(record)["document_id"]) for record in records)
            if offset is None:
                return found

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The vectors of these chunks, those the index holds: from local mode's copy once it is
        read (a row lookup), else from Qdrant (`retrieve`, one call)."""
        copy = self._vectors
        if copy is not None:
            return copy.rows(chunk_ids)
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
               scope: models.Filter | None = None) -> list[tuple[str, str, float]]:
        response = self._client.query_points(self._collection, query=list(query_vector), using=DENSE,
                                             query_filter=scope, limit=limit, with_payload=True)
        return [(_payload(point)["chunk_id"], _payload(point)["document_id"], float(point.score))
                for point in response.points]

    def _local_vectors(self) -> _LocalVectors:
        with self._vectors_lock:
            if self._vectors is None:
                vectors = _LocalVectors(self._dimension)
                points = self.vectors(batch=COPY_PAGE)
                while page := list(islice(points, COPY_PAGE)):
                    vectors.add(page)
                self._vectors = vectors
            return self._vectors


def _payload(point: models.Record | models.ScoredPoint) -> dict[str, Any]:
    assert point.payload is not None  # every point is written with one, and read with_payload=True
    return point.payload


def _dense(record: models.Record) -> list[float]:
    # Read with_vectors=True from a collection whose one vector is the named dense one.
    return cast(dict[str, list[float]], record.vector)[DENSE]


def _scope_filter(document_ids: Sequence[str]) -> models.Filter:
    return models.Filter(must=[models.FieldCondition(key="document_id", match=models.MatchAny(any=list(document_ids)))])


class _LocalVectors:
    """Every chunk's vector, unit-normalised, as rows of one float32 matrix that grows by
    doubling, with each row's chunk id and a small number for its document (for scope masks).
    Thread-safe: the app searches from several sessions while a file is ingested."""

    def __init__(self, dimension: int) -> None:
        self._lock = threading.Lock()
        self._matrix = np.empty((1024, dimension), dtype=np.float32)
        self._documents = np.empty(1024, dtype=np.int32)
        self._size = 0
        self._chunk_ids: list[str] = []
        self._row_of: dict[str, int] = {}
        self._document_ids: list[str] = []
        self._number_of: dict[str, int] = {}

    def add(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        if not points:
            return
        rows = np.asarray([vector for _, _, vector in points], dtype=np.float32)
        # As Qdrant stores a cosine collection's vectors; a zero vector stays zero.
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows /= np.where(norms > 0, norms, 1.0)
        with self._lock:
            for (chunk_id, document_id, _), row in zip(points, rows):
                number = self._number_of.setdefault(document_id, len(self._document_ids))
                if number == len(self._document_ids):
                    self._document_ids.append(document_id)
                at = self._row_of.get(chunk_id)
                if at is None:
                    at = self._append_row(chunk_id)
                self._matrix[at] = row
                self._documents[at] = number

    def remove_document(self, document_id: str) -> None:
        with self._lock:
            number = self._number_of.get(document_id)
            if number is None:
                return
            keep = self._documents[:self._size] != number
            kept = int(keep.sum())
            self._matrix[:kept] = self._matrix[:self._size][keep]
            self._documents[:kept] = self._documents[:self._size][keep]
            self._chunk_ids = [chunk for chunk, kept_row in zip(self._chunk_ids, keep) if kept_row]
            self._row_of = {chunk: row for row, chunk in enumerate(self._chunk_ids)}
            self._size = kept

    def nearest(self, query_vector: Sequence[float], limit: int,
                document_ids: Sequence[str] | None) -> list[tuple[str, str, float]]:
        query = np.asarray(query_vector, dtype=np.float32)
        with self._lock:
            if document_ids is None:
                rows = None
                scores = _scores(self._matrix[:self._size], query)
            else:
                numbers = [self._number_of[d] for d in document_ids if d in self._number_of]
                rows = np.flatnonzero(np.isin(self._documents[:self._size], numbers))
                # A small scope's rows are cheaper to copy out than every row is to score.
                scores = (_scores(self._matrix[rows], query) if len(rows) * 4 < self._size
                          else _scores(self._matrix[:self._size], query)[rows])
            count = min(limit, len(scores))
            if count == 0:
                return []
            best = np.argpartition(-scores, count - 1)[:count]
            # Best first; equal scores in the order the chunks were added, every time.
            best = best[np.lexsort((best, -scores[best]))]
            similarities = scores[best].tolist()
            if rows is not None:
                best = rows[best]
            return [(self._chunk_ids[row], self._document_ids[self._documents[row]], similarity)
                    for row, similarity in zip(best, similarities)]

    def rows(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The (unit-normalised) vectors of those of `chunk_ids` held: cosines are unchanged."""
        with self._lock:
            return {chunk_id: self._matrix[self._row_of[chunk_id]].tolist()
                    for chunk_id in chunk_ids if chunk_id in self._row_of}

    def _append_row(self, chunk_id: str) -> int:
        if self._size == len(self._matrix):
            self._matrix = np.concatenate([self._matrix, np.empty_like(self._matrix)])
            self._documents = np.concatenate([self._documents, np.empty_like(self._documents)])
        at, self._size = self._size, self._size + 1
        self._chunk_ids.append(chunk_id)
        self._row_of[chunk_id] = at
        return at


def _scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    # Not `matrix @ query`: OpenBLAS splits it over both cores, and on cores other work is using
    # the threads wait for each other (p95 13-16 ms at 10,000 chunks, against 2 ms in one thread).
    scores: np.ndarray = np.einsum("ij,j->i", matrix, query)
    return scores

