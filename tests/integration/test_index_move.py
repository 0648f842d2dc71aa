"""An older docchat's document index (qdrant-client's local mode, data/qdrant) moves once into
Qdrant Edge (data/vectors) at the first opening: every vector, unchanged, nothing embedded again;
and a move killed at any moment leaves the old index as it was, for the next start to move."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.documents.index.edge_index import EdgeChunkIndex
from docchat.documents.index.moving import move_local_mode
from docchat.documents.index.qdrant_index import QdrantServerIndex
from docchat.domain import Scope
from tests.conftest import NO_SERVER
from tests.upgrade import expected
from tests.upgrade.make_fixtures import DOCUMENT_QUERIES

CHUNKS, PER_DOCUMENT = 4_000, 200
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
KILLS = 5


def _old_index(folder: Path) -> None:
    """A local-mode folder as docchat before Qdrant Edge wrote it: clustered unit vectors, a
    document per PER_DOCUMENT chunks, the model recorded."""
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(CHUNKS // PER_DOCUMENT, 384))
    vectors = centres.repeat(PER_DOCUMENT, axis=0) + rng.normal(scale=0.8, size=(CHUNKS, 384))
    client = QdrantClient(path=str(folder))
    try:
        index = QdrantServerIndex(client, embedder=MODEL)
        index.ensure_collection()
        index.add_points([(f"c{n}", f"d{n // PER_DOCUMENT}", vector) for n, vector in enumerate(vectors.tolist())])
    finally:
        client.close()


@pytest.fixture(scope="module")
def old_data_dir(tmp_path_factory) -> Path:
    data_dir = tmp_path_factory.mktemp("old") / "data"
    _old_index(data_dir / "qdrant")
    return data_dir


def _state(data_dir: Path, queries: np.ndarray) -> dict:
    """What a user's searches depend on, read from whichever index the folder holds."""
    if (data_dir / "vectors").is_dir():
        index: EdgeChunkIndex | QdrantServerIndex = EdgeChunkIndex(data_dir / "vectors", embedder=MODEL)
        client = None
    else:
        client = QdrantClient(path=str(data_dir / "qdrant"))
        index = QdrantServerIndex(client, embedder=MODEL)
    try:
        index.ensure_collection()
        return {"count": index.count(), "chunks": index.chunk_ids(),
                "top": [[chunk for chunk, _ in index.nearest(q, limit=10)] for q in queries.tolist()],
                "scoped": [[chunk for chunk, _ in index.nearest(q, limit=10, scope=Scope(("d3",)))]
                           for q in queries.tolist()]}
    finally:
        (client or index).close()


def _queries() -> np.ndarray:
    return np.random.default_rng(9).normal(size=(12, 384))


def test_the_first_opening_moves_every_vector_and_the_searches_find_what_they_did(old_data_dir, tmp_path):
    data_dir = tmp_path / "data"
    shutil.copytree(old_data_dir, data_dir)
    before = _state(data_dir, _queries())
    told = []

    moved = move_local_mode(data_dir, progress=lambda copied, total: told.append((copied, total)))

    assert moved == CHUNKS and told[-1] == (CHUNKS, CHUNKS)
    assert not (data_dir / "qdrant").exists() and not (data_dir / "vectors.moving").exists()
    assert _state(data_dir, _queries()) == before
    assert move_local_mode(data_dir) is None  # once


_MOVER = """
import sys
from pathlib import Path
from docchat.documents.index import moving
moving.PAGE = 500
moving.move_local_mode(Path(sys.argv[1]), progress=lambda copied, total: print(copied, flush=True))
"""


def test_a_move_killed_at_any_moment_leaves_the_old_index_as_it_was_and_the_next_start_moves_it(
        old_data_dir, tmp_path, shared_embedder):
    """Killed after a random page of the copy (so surely mid-move, whatever the machine's
    speed), then once at a random time of a whole move's length, which may be any step."""
    data_dir = tmp_path / "data"
    shutil.copytree(old_data_dir, data_dir)
    before = _state(data_dir, _queries())
    pages = CHUNKS // 500
    calibration = tmp_path / "calibration"
    shutil.copytree(old_data_dir, calibration)
    began = time.monotonic()
    subprocess.run([sys.executable, "-c", _MOVER, str(calibration)], check=True, capture_output=True, timeout=300)
    length = time.monotonic() - began
    rng = random.Random(5)

    for round_ in range(KILLS):
        mover = subprocess.Popen([sys.executable, "-c", _MOVER, str(data_dir)], stdout=subprocess.PIPE, text=True)
        assert mover.stdout is not None
        if round_ < KILLS - 1:
            for _ in range(rng.randint(1, pages - 1)):
                assert mover.stdout.readline()
        else:
            time.sleep(rng.uniform(0.0, 1.0) * length)
        mover.send_signal(signal.SIGKILL)
        mover.wait()
        if (data_dir / "vectors").is_dir():
            assert round_ == KILLS - 1  # only the kill at a random time can come after the rename
            break
        assert (data_dir / "qdrant").is_dir()
        assert _state(data_dir, _queries()) == before

    services = build_services(Settings(data_dir=data_dir, llm_url=NO_SERVER, database_url=None, qdrant_url=None),
                              embedder=shared_embedder)
    try:
        assert services.index.open().count() == CHUNKS
    finally:
        services.index.close()
    assert not (data_dir / "qdrant").exists() and not (data_dir / "vectors.moving").exists()
    assert _state(data_dir, _queries()) == before


def test_a_kill_after_the_new_index_is_in_place_is_finished_by_the_next_start(old_data_dir, tmp_path):
    data_dir = tmp_path / "data"
    shutil.copytree(old_data_dir, data_dir)
    before = _state(data_dir, _queries())
    kept = tmp_path / "kept"
    shutil.copytree(data_dir / "qdrant", kept)
    move_local_mode(data_dir)
    shutil.copytree(kept, data_dir / "qdrant")  # as if killed between the rename and the removal

    assert move_local_mode(data_dir) is None
    assert not (data_dir / "qdrant").exists()
    assert _state(data_dir, _queries()) == before


@pytest.mark.parametrize("revision", [r for r in expected.REVISIONS if "retrieval" in expected.shown(r)][-1:])
def test_an_upgraded_library_retrieves_the_same_top_ten_as_before_the_move(revision, tmp_path, shared_embedder):
    data_dir = tmp_path / "data"
    shutil.copytree(expected.fixture(revision) / "data", data_dir)
    client = QdrantClient(path=str(data_dir / "qdrant"))
    old = QdrantServerIndex(client)
    before = {query: old.nearest(shared_embedder.embed([query])[0], limit=10) for query in DOCUMENT_QUERIES}
    client.close()

    services = build_services(Settings(data_dir=data_dir, llm_url=NO_SERVER, database_url=None, qdrant_url=None),
                              embedder=shared_embedder)
    try:
        index = services.index.open()
        after = {query: index.nearest(shared_embedder.embed([query])[0], limit=10) for query in DOCUMENT_QUERIES}
    finally:
        services.index.close()

    assert after == before
    assert all(found for found in before.values())


_WRITER = """
import sys
from pathlib import Path
import numpy as np
from docchat.documents.index import edge_index
index = edge_index.EdgeChunkIndex(Path(sys.argv[1]))
index.ensure_collection()
vectors = np.random.default_rng(4).normal(size=(edge_index.INDEX_FROM + 5_000, 384)).tolist()
# Written with no build started by the writes, so that the build begins after "written" is said
# (a build holds the GIL: one begun by the writes could hold back the line until it ended).
threshold, edge_index.INDEX_FROM = edge_index.INDEX_FROM, 10**9
index.add_points([(f"c{n}", f"d{n // 200}", vector) for n, vector in enumerate(vectors)])
edge_index.INDEX_FROM = threshold
print("written", flush=True)
index.wait_until_built()
print("built", flush=True)
"""


def test_a_process_killed_while_it_builds_the_approximate_index_loses_no_vector(tmp_path):
    from docchat.documents.index.edge_index import INDEX_FROM

    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path / "vectors")],
                              stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline() == "written\n"
    time.sleep(0.5)  # into the build, which takes several seconds at this size
    writer.send_signal(signal.SIGKILL)
    writer.wait()

    index = EdgeChunkIndex(tmp_path / "vectors")
    try:
        index.ensure_collection()
        assert index.count() == INDEX_FROM + 5_000
        assert len(index.chunk_ids()) == INDEX_FROM + 5_000
        assert index.building() == INDEX_FROM + 5_000  # what doctor shows: the build never ended
        query = index.vectors_of(["c17"])["c17"]
        assert index.nearest(query, limit=1) == [("c17", "d0")]  # searched exactly meanwhile
        index.wait_until_built()  # returns: what can be built is, the rest is searched exactly
        index.add_points([("c-new", "d-new", query)])
        assert index.count() == INDEX_FROM + 5_001
    finally:
        index.close()
