"""The chunk index in pgvector: a team server's vectors in its PostgreSQL, beside the chunks and
their keyword column, so that the server needs one database for everything.

One table, `chunk_vectors`: a row per chunk (its id, its document's id, its vector), an HNSW
index for cosine distance and a b-tree on the document id. A conversation's scope is a WHERE
clause the planner answers with either index: a small scope from the b-tree, exactly; a large
one through the HNSW graph, scanned further (pgvector's iterative scan) until enough rows pass
the filter. Which model made the vectors is the table's comment. The index is kept up to date
by each write, so there is never a build to wait for; every docchat process on the server
shares it.

Invariant: a search within a scope returns only that scope's chunks, best first.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

from docchat.documents.index.points import SharedByChunk, check_built_for
from docchat.domain import Scope
from docchat.errors import DocchatError

TABLE = "chunk_vectors"
WRITE_BATCH = 1_000
READ_PAGE = 10_000
# HNSW: 16 links per node and 64 candidates while building are pgvector's defaults. Candidates
# per search: 40 by default, which gives up recall for speed; docchat asks for as many as its
# embedded engine takes (edge_index.SEARCH_CANDIDATES) up to pgvector's limit of 1,000.
LINKS, BUILD_CANDIDATES, SEARCH_CANDIDATES = 16, 64, 512
# An HNSW build's memory: each row's vector plus its links and bookkeeping (at 200,000 rows, 512 bytes
# a row gave 391 MB and 48 s, still partly on disk; 1,024 gave 489 MB and 36 s, as fast as 1 GB), and
# at most 2 GB, a share a server that holds a million chunks can spare once.
GRAPH_BYTES_PER_ROW, BUILD_MEMORY_CAP = 1024, 2 * 1024**3
# Any number no other program takes an advisory lock on in the same database ("dcvx"): the
# processes that find no table at once create it one at a time.
CREATING_LOCK = 0x64637678


class PgVectorChunkIndex(SharedByChunk):
    """Chunks of every document, searchable by meaning, in the PostgreSQL database `engine`
    connects to (the store's own)."""

    def __init__(self, engine: Engine, *, dimension: int = 384, embedder: str | None = None) -> None:
        self._engine = engine
        self._dimension = dimension
        self._embedder = embedder

    def ensure_collection(self) -> None:
        """Creates the table on first use; refuses one filled by another embedding model."""
        with self._engine.begin() as connection:
            connection.execute(text(f"SELECT pg_advisory_xact_lock({CREATING_LOCK})"))
            about = _about(connection)
            if about is None:
                self._create(connection)
                _index(connection)
                return
        check_built_for(about.get("dimension", self._dimension), about.get("embedder"), self._dimension, self._embedder)

    def fill(self, points: Iterable[Sequence[tuple[str, str, Sequence[float]]]]) -> bool:
        """Creates the table with these pages of points in one transaction, the HNSW index built
        once at the end (faster than row by row): a failure or a kill leaves no table, and the
        next opening fills it again. False, and nothing read, when the table is already there."""
        with self._engine.begin() as connection:
            connection.execute(text(f"SELECT pg_advisory_xact_lock({CREATING_LOCK})"))
            if _about(connection) is not None:
                return False
            self._create(connection)
            rows = 0
            for page in points:
                _upsert(connection, page)
                rows += len(page)
            _index(connection, rows=rows, dimension=self._dimension)
        return True

    def recreate(self) -> None:
        """Drops every vector and starts an empty table for this embedder."""
        with self._engine.begin() as connection:
            connection.execute(text(f"SELECT pg_advisory_xact_lock({CREATING_LOCK})"))
            connection.execute(text(f"DROP TABLE IF EXISTS {TABLE}"))
            self._create(connection)
            _index(connection)

    def add_points(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """Stores (chunk id, document id, vector) of chunks of any documents."""
        with self._engine.begin() as connection:
            for start in range(0, len(points), WRITE_BATCH):
                _upsert(connection, points[start:start + WRITE_BATCH])

    def closest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str, float]]:
        """As `nearest`, with each chunk's cosine similarity to the query."""
        if scope is not None and not scope.document_ids:
            return []
        where = "WHERE document_id = ANY(:documents)" if scope else ""
        with self._engine.begin() as connection:
            connection.execute(text(f"SET LOCAL hnsw.ef_search = {min(max(SEARCH_CANDIDATES, limit), 1000)}"))
            # Without it, a filtered search through the graph stops at its candidates, and a
            # small scope may come back with fewer rows than asked for (pgvector 0.8).
            connection.execute(text("SET LOCAL hnsw.iterative_scan = strict_order"))
            rows = connection.execute(text(
                f"SELECT chunk_id, document_id, 1 - (embedding <=> CAST(:query AS vector)) FROM {TABLE} {where} "
                "ORDER BY embedding <=> CAST(:query AS vector) LIMIT :limit"),
                {"query": _literal(query_vector), "limit": limit,
                 **({"documents": list(scope.document_ids)} if scope else {})})
            return [(chunk_id, document_id, float(similarity)) for chunk_id, document_id, similarity in rows]

    def delete_document(self, document_id: str) -> None:
        """Removes every chunk of a document."""
        with self._engine.begin() as connection:
            connection.execute(text(f"DELETE FROM {TABLE} WHERE document_id = :document"), {"document": document_id})

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        """Removes the vectors of these chunks (found by `docchat documents repair`)."""
        with self._engine.begin() as connection:
            connection.execute(text(f"DELETE FROM {TABLE} WHERE chunk_id = ANY(:chunks)"), {"chunks": list(chunk_ids)})

    def count(self) -> int:
        with self._engine.connect() as connection:
            return int(connection.execute(text(f"SELECT count(*) FROM {TABLE}")).scalar_one())

    def chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every vector, without the vectors."""
        with self._engine.connect() as connection:
            rows = connection.execute(text(f"SELECT chunk_id, document_id FROM {TABLE}"))
            return {chunk_id: document_id for chunk_id, document_id in rows}

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """The vectors of those of these chunks the table holds."""
        with self._engine.connect() as connection:
            rows = connection.execute(text(f"SELECT chunk_id, embedding::text FROM {TABLE} WHERE chunk_id = ANY(:chunks)"),
                                      {"chunks": list(dict.fromkeys(chunk_ids))})
            return {chunk_id: json.loads(vector) for chunk_id, vector in rows}

    def vectors(self, *, batch: int = READ_PAGE) -> Iterator[tuple[str, str, list[float]]]:
        """(chunk id, document id, vector) of every chunk, a page at a time, in chunk id order."""
        after = ""
        while True:
            with self._engine.connect() as connection:
                page = connection.execute(text(
                    f"SELECT chunk_id, document_id, embedding::text FROM {TABLE} WHERE chunk_id > :after "
                    "ORDER BY chunk_id LIMIT :batch"), {"after": after, "batch": batch}).all()
            for chunk_id, document_id, vector in page:
                yield chunk_id, document_id, json.loads(vector)
            if len(page) < batch:
                return
            after = page[-1][0]

    def close(self) -> None:
        self._engine.dispose()

    def _create(self, connection: Connection) -> None:
        _enable_pgvector(connection)
        connection.execute(text(
            f"CREATE TABLE {TABLE} (chunk_id text PRIMARY KEY, document_id text NOT NULL, "
            f"embedding vector({int(self._dimension)}) NOT NULL)"))
        about = json.dumps({"dimension": self._dimension, "embedder": self._embedder})
        connection.execute(text(f"COMMENT ON TABLE {TABLE} IS {_quoted(connection, about)}"))


def pgvector_installed(engine: Engine) -> bool:
    """Whether the server has pgvector to enable (or has it enabled)."""
    with engine.connect() as connection:
        return connection.execute(text("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")).first() is not None


def _enable_pgvector(connection: Connection) -> None:
    # A savepoint: a refused CREATE EXTENSION must not end the transaction before its message.
    try:
        with connection.begin_nested():
            connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    except DBAPIError as error:
        raise DocchatError(
            "docchat keeps a shared library's vectors in PostgreSQL with pgvector, which this database "
            "cannot enable for docchat's user. An administrator runs, once, in this database: "
            f"CREATE EXTENSION vector; ({str(error.orig).splitlines()[0]})") from None


def _index(connection: Connection, *, rows: int = 0, dimension: int = 0) -> None:
    """The two indexes. Over `rows` rows already there, the HNSW graph is built in memory when it
    fits in maintenance_work_mem, and much more slowly on disk when not: 200,000 rows of 384
    dimensions took 169 s with PostgreSQL's default of 64 MB and 37 s with 1 GB. So this
    transaction raises it (never lowers it) to what the graph needs, up to BUILD_MEMORY_CAP."""
    needed = min(rows * (dimension * 4 + GRAPH_BYTES_PER_ROW), BUILD_MEMORY_CAP)
    set_to = "SELECT pg_size_bytes(current_setting('maintenance_work_mem'))"
    if needed and needed > connection.execute(text(set_to)).scalar_one():
        connection.execute(text(f"SET LOCAL maintenance_work_mem = '{needed // 1024 // 1024 + 1}MB'"))
    connection.execute(text(
        f"CREATE INDEX IF NOT EXISTS {TABLE}_embedding ON {TABLE} USING hnsw (embedding vector_cosine_ops) "
        f"WITH (m = {LINKS}, ef_construction = {BUILD_CANDIDATES})"))
    connection.execute(text(f"CREATE INDEX IF NOT EXISTS {TABLE}_document ON {TABLE} (document_id)"))


def _about(connection: Connection) -> dict[str, Any] | None:
    """The table's comment ({dimension, embedder}), or None when there is no table."""
    found = connection.execute(text("SELECT to_regclass(:table) IS NOT NULL, obj_description(to_regclass(:table), 'pg_class')"),
                               {"table": TABLE}).one()
    if not found[0]:
        return None
    try:
        about: dict[str, Any] = json.loads(found[1] or "{}")
        return about
    except ValueError:
        return {}


def _upsert(connection: Connection, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
    if not points:
        return
    connection.execute(text(
        f"INSERT INTO {TABLE} (chunk_id, document_id, embedding) VALUES (:chunk, :document, CAST(:vector AS vector)) "
        "ON CONFLICT (chunk_id) DO UPDATE SET document_id = excluded.document_id, embedding = excluded.embedding"),
        [{"chunk": chunk_id, "document": document_id, "vector": _literal(vector)}
         for chunk_id, document_id, vector in points])


def _literal(vector: Sequence[float]) -> str:
    """pgvector's text form of a vector: "[0.1,0.2,...]"."""
    return "[" + ",".join(repr(float(value)) for value in vector) + "]"


def _quoted(connection: Connection, value: str) -> str:
    # COMMENT takes a literal, not a parameter.
    return str(connection.execute(text("SELECT quote_literal(:value)"), {"value": value}).scalar_one())
