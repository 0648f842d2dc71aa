"""`docchat bench engines`: embedded vector engines side by side, on the vectors alone.

The engine that holds the document library's vectors was chosen with these figures (issue 37;
docs/perf/vector-engines.md): Qdrant Edge against LanceDB, and against exact search in numpy
(what qdrant-client's local mode and docchat's own copy did). LanceDB is not one of docchat's
dependencies (pyarrow and lance add some 350 MB): it is measured when it is installed. pgvector
(a team server's engine, through docchat's own index) is measured in the PostgreSQL database
given with `--database-url`; its table there is replaced.

The library is generated: documents of 200 chunks, each document's vectors spread around a
centre of its own, the centres around a few dozen topics, every vector unit length (MiniLM's
are clustered like this; uniform random vectors would make any approximate index look worse
than it is on text). Questions are chunks of random documents, jittered. For each engine and
size: the time to write every vector, to build the approximate index, to open the folder in a
new process (its import apart), query p50/p95 over every document and scoped to 1 and to 25
documents, recall@10 against exact search, and the new process's resident memory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# `--jittered`: bench retrieval's layout, its embedded chunks then stand-ins.
from docchat_bench.retrieval import EMBEDDED as JITTERED_FROM, JITTER

DIMENSION = 384
PER_DOCUMENT = 200
TOPICS = 40
QUESTIONS = 200
TOP_K = 10
DATABASE_URL = "database_url"  # the file in an engine's folder that names pgvector's database
SCOPES = (1, 25)
WRITE_BATCH = 1_000


def library(chunks: int, seed: int = 7, *, jittered: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(vectors float32 [chunks, DIMENSION], document number of each), deterministic. `jittered`:
    past the first JITTERED_FROM vectors, each is one of them jittered, as `bench retrieval`'s
    stand-ins copy its embedded chunks (so the graph meets a hundred near-copies of each at a
    million), apart from what those chunks' text makes of them."""
    if jittered and chunks > JITTERED_FROM:
        base, _ = library(JITTERED_FROM, seed)
        rng = np.random.default_rng(seed + 1)
        vectors = np.empty((chunks, DIMENSION), dtype=np.float32)
        vectors[:JITTERED_FROM] = base
        for start in range(JITTERED_FROM, chunks, 100_000):
            stop = min(chunks, start + 100_000)
            picked = base[rng.integers(0, JITTERED_FROM, stop - start)]
            noise = rng.normal(scale=JITTER / np.sqrt(DIMENSION), size=(stop - start, DIMENSION)).astype(np.float32)
            vectors[start:stop] = _unit(picked + noise)
        return vectors, np.arange(chunks) // PER_DOCUMENT
    rng = np.random.default_rng(seed)
    documents = -(-chunks // PER_DOCUMENT)
    topics = _unit(rng.normal(size=(TOPICS, DIMENSION)).astype(np.float32))
    centres = _unit(topics[rng.integers(0, TOPICS, documents)]
                    + rng.normal(scale=0.9 / np.sqrt(DIMENSION), size=(documents, DIMENSION)).astype(np.float32))
    owner = np.arange(chunks) // PER_DOCUMENT
    vectors = np.empty((chunks, DIMENSION), dtype=np.float32)
    for start in range(0, chunks, 100_000):  # in slices: the noise of a million rows at once is 3 GB of float64
        stop = min(chunks, start + 100_000)
        noise = rng.normal(scale=1.1 / np.sqrt(DIMENSION), size=(stop - start, DIMENSION)).astype(np.float32)
        vectors[start:stop] = _unit(centres[owner[start:stop]] + noise)
    return vectors, owner


def questions(vectors: np.ndarray, owner: np.ndarray, seed: int = 11) -> tuple[np.ndarray, list[list[int]]]:
    """QUESTIONS query vectors and, per question, the scopes (document numbers) it is asked in."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(vectors), QUESTIONS)
    queries = _unit(vectors[rows] + rng.normal(scale=0.8 / np.sqrt(DIMENSION),
                                               size=(QUESTIONS, DIMENSION)).astype(np.float32))
    documents = int(owner[-1]) + 1
    scopes = [[int(owner[row])] + [int(d) for d in rng.choice(documents, min(SCOPES[1], documents) - 1,
                                                                     replace=False)]
              for row in rows]
    return queries, scopes


def exact(vectors: np.ndarray, owner: np.ndarray, queries: np.ndarray,
          scopes: list[list[int]]) -> dict[str, list[list[int]]]:
    """The true top 10 row numbers per question, per mode."""
    truth: dict[str, list[list[int]]] = {"all": [], "scoped_1": [], "scoped_25": []}
    for query, scope in zip(queries, scopes):
        scores = vectors @ query
        truth["all"].append(_top(scores, np.arange(len(scores))))
        for mode, documents in (("scoped_1", scope[:1]), ("scoped_25", scope)):
            rows = np.flatnonzero(np.isin(owner, documents))
            truth[mode].append(_top(scores[rows], rows))
    return truth


def _top(scores: np.ndarray, rows: np.ndarray) -> list[int]:
    best = np.argsort(-scores, kind="stable")[:TOP_K]
    return [int(r) for r in rows[best]]


def _unit(rows: np.ndarray) -> np.ndarray:
    normalised: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normalised


# --- Qdrant Edge, through docchat's own index (edge_index.py: its settings, ids and payload) ------

def edge_build(folder: Path, vectors: np.ndarray, owner: np.ndarray) -> dict[str, float]:
    from docchat.documents.index.edge_index import EdgeChunkIndex

    index = EdgeChunkIndex(folder, dimension=DIMENSION)
    index.ensure_collection()
    began = time.perf_counter()
    for start in range(0, len(vectors), 10 * WRITE_BATCH):
        rows = vectors[start:start + 10 * WRITE_BATCH].tolist()
        index.add_points([(f"c{start + n}", f"d{owner[start + n]}", row) for n, row in enumerate(rows)])
        # What ingestion does: a build starts after the writes that pass the threshold.
    write_s = time.perf_counter() - began
    index.wait_until_built()
    build_s = time.perf_counter() - began - write_s
    index.close()
    return {"write_s": write_s, "build_s": build_s}


def edge_search(folder: Path, ef: int):
    from docchat.documents.index import edge_index

    return _searcher(edge_index.EdgeChunkIndex(folder, dimension=DIMENSION, search_candidates=ef or None))


def _searcher(index):
    """A bench search over one of docchat's own indexes, whose chunks are "c<row>" of "d<document>"."""
    from docchat.domain import Scope

    index.ensure_collection()

    def search(query: np.ndarray, scope: list[int] | None) -> list[int]:
        found = index.nearest(query.tolist(), limit=TOP_K,
                              scope=None if scope is None else Scope(tuple(f"d{d}" for d in scope)))
        return [int(chunk_id[1:]) for chunk_id, _ in found]
    return search


# --- pgvector, through docchat's own index (pgvector_index.py), in the database named in `folder` -

def pgvector_build(folder: Path, vectors: np.ndarray, owner: np.ndarray) -> dict[str, float]:
    """Written as the one-time move writes (`fill`): rows first, the HNSW index built once after
    them, in one transaction; `write_s` is the rows, `build_s` the index."""
    from sqlalchemy import text

    from docchat.documents.index import pgvector_index

    index = _pgvector(folder)
    index.recreate()
    began = time.perf_counter()
    with index._engine.begin() as connection:  # the bench times the two halves of `fill` apart
        connection.execute(text(f"DROP INDEX {pgvector_index.TABLE}_embedding"))
        for start in range(0, len(vectors), 10 * WRITE_BATCH):
            rows = vectors[start:start + 10 * WRITE_BATCH].tolist()
            pgvector_index._upsert(connection, [(f"c{start + n}", f"d{owner[start + n]}", row) for n, row in enumerate(rows)])
        write_s = time.perf_counter() - began
        pgvector_index._index(connection, rows=len(vectors), dimension=DIMENSION)
        connection.execute(text(f"ANALYZE {pgvector_index.TABLE}"))  # the planner's figures, as autovacuum would
    build_s = time.perf_counter() - began - write_s
    with index._engine.connect() as connection:
        size = connection.execute(text(f"SELECT pg_total_relation_size('{pgvector_index.TABLE}')")).scalar_one()
    index.close()
    return {"write_s": write_s, "build_s": build_s, "disk_mb": size / 2**20}


def pgvector_search(folder: Path, ef: int):
    return _searcher(_pgvector(folder))


def _pgvector(folder: Path):
    from docchat.documents.index.pgvector_index import PgVectorChunkIndex
    from docchat.store.engine import make_engine

    return PgVectorChunkIndex(make_engine((folder / DATABASE_URL).read_text()), dimension=DIMENSION)


# --- LanceDB -----------------------------------------------------------------------------------

def lance_build(folder: Path, vectors: np.ndarray, owner: np.ndarray) -> dict[str, float]:
    import lancedb
    import pyarrow as pa
    from lancedb.index import BTree

    schema = pa.schema([pa.field("id", pa.int64()), pa.field("document_id", pa.string()),
                        pa.field("vector", pa.list_(pa.float32(), DIMENSION))])
    table = lancedb.connect(str(folder)).create_table("chunks", schema=schema)
    began = time.perf_counter()
    for start in range(0, len(vectors), 50_000):
        rows = vectors[start:start + 50_000]
        table.add(pa.table({
            "id": pa.array(np.arange(start, start + len(rows)), pa.int64()),
            "document_id": pa.array([f"d{d}" for d in owner[start:start + len(rows)]]),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(rows.ravel()), DIMENSION)}, schema=schema))
    write_s = time.perf_counter() - began
    began = time.perf_counter()
    table.create_index("document_id", config=BTree())
    if len(vectors) >= 20_000:  # IVF needs rows to train its partitions on
        table.create_index(metric="cosine", index_type="IVF_HNSW_SQ",
                           num_partitions=max(1, len(vectors) // 50_000))
    build_s = time.perf_counter() - began
    return {"write_s": write_s, "build_s": build_s}


def lance_search(folder: Path, ef: int):
    import lancedb

    table = lancedb.connect(str(folder)).open_table("chunks")

    def search(query: np.ndarray, scope: list[int] | None) -> list[int]:
        built = table.search(query, vector_column_name="vector").distance_type("cosine").limit(TOP_K).ef(ef or 128)
        if scope is not None:
            built = built.where("document_id IN (" + ",".join(f"'d{d}'" for d in scope) + ")", prefilter=True)
        return [int(row["id"]) for row in built.select(["id"]).to_list()]
    return search


# --- exact numpy (the path being replaced) ------------------------------------------------------

def numpy_build(folder: Path, vectors: np.ndarray, owner: np.ndarray) -> dict[str, float]:
    folder.mkdir(parents=True)
    began = time.perf_counter()
    np.save(folder / "vectors.npy", vectors)
    np.save(folder / "owner.npy", owner)
    return {"write_s": time.perf_counter() - began, "build_s": 0.0}


def numpy_search(folder: Path, ef: int):
    vectors, owner = np.load(folder / "vectors.npy"), np.load(folder / "owner.npy")

    def search(query: np.ndarray, scope: list[int] | None) -> list[int]:
        rows = np.arange(len(vectors)) if scope is None else np.flatnonzero(np.isin(owner, scope))
        scores = np.einsum("ij,j->i", vectors[rows] if scope is not None else vectors, query)
        best = np.argpartition(-scores, min(TOP_K, len(scores) - 1))[:TOP_K]
        return [int(r) for r in rows[best[np.argsort(-scores[best])]]]
    return search


ENGINES = {"qdrant_edge": (edge_build, edge_search, "docchat.documents.index.edge_index"),
           "pgvector": (pgvector_build, pgvector_search, "docchat.documents.index.pgvector_index"),
           "lancedb": (lance_build, lance_search, "lancedb"),
           "numpy_exact": (numpy_build, numpy_search, "numpy")}


def measure(engine: str, folder: Path, data: Path, ef: int) -> dict[str, float]:
    """In a new process: import, open, ask every question in each mode, read the resident memory."""
    _, searcher, module = ENGINES[engine]
    began = time.perf_counter()
    __import__(module)
    import_s = time.perf_counter() - began
    began = time.perf_counter()
    search = searcher(folder, ef)
    open_s = time.perf_counter() - began
    queries = np.load(data / "queries.npy")
    scopes = json.loads((data / "scopes.json").read_text())
    truth = json.loads((data / "truth.json").read_text())
    result: dict[str, float] = {"import_s": round(import_s, 3), "open_s": round(open_s, 3)}
    first = time.perf_counter()
    search(queries[0], None)
    result["first_query_ms"] = round((time.perf_counter() - first) * 1000, 2)
    for mode in ("all", "scoped_1", "scoped_25"):
        times, hits = [], 0
        for query, scope, true in zip(queries, scopes, truth[mode]):
            asked = None if mode == "all" else scope[:1] if mode == "scoped_1" else scope
            began = time.perf_counter()
            found = search(query, asked)
            times.append((time.perf_counter() - began) * 1000)
            hits += len(set(found) & set(true))
        result[f"{mode}_p50_ms"] = round(float(np.percentile(times, 50)), 2)
        result[f"{mode}_p95_ms"] = round(float(np.percentile(times, 95)), 2)
        result[f"{mode}_recall_at_10"] = round(hits / (TOP_K * len(queries)), 4)
    result["rss_mb"] = round(_rss_kb() / 1024, 1)
    return result


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def run_engines_bench(*, chunks: int, engines: list[str], ef: int = 0, as_json: bool = False,
                      database_url: str | None = None, jittered: bool = False) -> list[dict]:
    rows = []
    engines = [engine for engine in engines if engine != "lancedb" or _installed("lancedb")]
    if "pgvector" in engines and not database_url:
        print("pgvector needs a PostgreSQL database with pgvector (--database-url), so it is left out", file=sys.stderr)
        engines.remove("pgvector")
    with tempfile.TemporaryDirectory(prefix="docchat-bench-engines-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        vectors, owner = library(chunks, jittered=jittered)
        queries, scopes = questions(vectors, owner)
        np.save(data / "queries.npy", queries)
        (data / "scopes.json").write_text(json.dumps(scopes))
        (data / "truth.json").write_text(json.dumps(exact(vectors, owner, queries, scopes)))
        for engine in engines:
            folder = Path(tmp) / engine
            if engine == "pgvector":
                folder.mkdir()
                (folder / DATABASE_URL).write_text(str(database_url))
            built = ENGINES[engine][0](folder, vectors, owner)
            disk_mb = built.pop("disk_mb", sum(f.stat().st_blocks * 512 for f in folder.rglob("*") if f.is_file()) / 2**20)
            # Dropped from the page cache would be a cold start; the figures are a warm one, as a
            # second start of the app is.
            measured = subprocess.run(
                [sys.executable, "-c", "import json, sys; from pathlib import Path; "
                 "from docchat_bench.engines import measure; "
                 "print(json.dumps(measure(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]))))",
                 engine, str(folder), str(data), str(ef)],
                capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
            row = {"engine": engine, "chunks": chunks, "ef": ef, "jittered": jittered, **{k: round(v, 2) for k, v in built.items()},
                   "disk_mb": round(disk_mb, 1),
                   **json.loads(measured.stdout.strip().splitlines()[-1])}
            rows.append(row)
            print(json.dumps(row) if as_json else _line(row), flush=True)
            shutil.rmtree(folder)
    return rows


def _installed(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        print(f"{module} is not installed, so it is left out (pip install lancedb==0.40.0 to compare it)",
              file=sys.stderr)
        return False
    return True


def _line(row: dict) -> str:
    return (f"{row['engine']:12} {row['chunks']:>9,} chunks: write {row['write_s']:.1f} s, index {row['build_s']:.1f} s, "
            f"open {row['open_s']:.2f} s (import {row['import_s']:.2f} s), "
            f"p50/p95 ms all {row['all_p50_ms']}/{row['all_p95_ms']}, 1 doc {row['scoped_1_p50_ms']}/"
            f"{row['scoped_1_p95_ms']}, 25 docs {row['scoped_25_p50_ms']}/{row['scoped_25_p95_ms']}; recall@10 "
            f"{row['all_recall_at_10']}/{row['scoped_1_recall_at_10']}/{row['scoped_25_recall_at_10']}; "
            f"{row['rss_mb']} MB resident, {row['disk_mb']} MB on disk")


if __name__ == "__main__":
    run_engines_bench(chunks=int(sys.argv[1]), engines=sys.argv[2].split(","),
                      ef=int(sys.argv[3]) if len(sys.argv) > 3 else 0)
