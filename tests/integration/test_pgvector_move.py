"""With the store on PostgreSQL, the library's vectors live in pgvector beside the chunks. An
installation that kept them in its data dir (local mode, then Qdrant Edge) has them moved into
pgvector at its first opening, unchanged and not embedded again; a move killed at any moment
leaves no table and the data dir's index as it was; a database user who may not enable pgvector
is told what an administrator runs, and nothing changes."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.documents.index.moving import move_local_mode
from docchat.errors import DocchatError
from tests.conftest import NO_SERVER
from tests.integration.test_index_move import CHUNKS, _old_index, _queries, _state
from tests.postgres import SUPERUSER

PAGE = 500


@pytest.fixture(scope="module")
def old_data_dir(tmp_path_factory) -> Path:
    data_dir = tmp_path_factory.mktemp("old") / "data"
    _old_index(data_dir / "qdrant")
    return data_dir


@pytest.fixture
def database_url(postgres):
    url = postgres.create_database()
    yield url
    postgres.drop_database(url)


def _opened_state(data_dir: Path, database_url: str, embedder) -> dict:
    """What the user's searches find through the installation, as it opens its index."""
    from docchat.domain import Scope

    services = build_services(Settings(data_dir=data_dir, llm_url=NO_SERVER, database_url=database_url, qdrant_url=None),
                              embedder=embedder)
    try:
        index = services.index.open()
        queries = _queries().tolist()
        return {"count": index.count(), "chunks": index.chunk_ids(),
                "top": [[chunk for chunk, _ in index.nearest(q, limit=10)] for q in queries],
                "scoped": [[chunk for chunk, _ in index.nearest(q, limit=10, scope=Scope(("d3",)))] for q in queries]}
    finally:
        services.index.close()


def _tables(database_url: str) -> set[str]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return set(connection.execute(text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")).scalars())
    finally:
        engine.dispose()


def test_the_first_opening_on_postgresql_moves_the_vectors_into_pgvector_and_finds_what_it_did(
        old_data_dir, tmp_path, database_url, shared_embedder):
    data_dir = tmp_path / "data"
    shutil.copytree(old_data_dir, data_dir)
    before = _state(data_dir, _queries())

    after = _opened_state(data_dir, database_url, shared_embedder)

    assert after == before
    assert "chunk_vectors" in _tables(database_url)
    assert not (data_dir / "qdrant").exists() and not (data_dir / "vectors").exists()
    assert _opened_state(data_dir, database_url, shared_embedder) == before  # moved once, read since


_MOVER = """
import sys
from pathlib import Path
from docchat.documents.index import moving
from docchat.documents.index.pgvector_index import PgVectorChunkIndex
from docchat.store.engine import make_engine
moving.PAGE = int(sys.argv[3])
moving.move_into_pgvector(Path(sys.argv[1]), PgVectorChunkIndex(make_engine(sys.argv[2]), embedder=sys.argv[4]),
                          dimension=384, embedder=sys.argv[4], progress=lambda copied, total: print(copied, flush=True))
"""


def test_a_move_into_pgvector_killed_midway_leaves_no_table_and_the_next_opening_moves_it(
        old_data_dir, tmp_path, database_url, shared_embedder):
    from tests.integration.test_index_move import MODEL

    data_dir = tmp_path / "data"
    shutil.copytree(old_data_dir, data_dir)
    move_local_mode(data_dir)  # the data dir as the docchat before this one left it: a shard
    before = _state(data_dir, _queries())
    mover = subprocess.Popen([sys.executable, "-c", _MOVER, str(data_dir), database_url, str(PAGE), MODEL],
                             stdout=subprocess.PIPE, text=True)
    assert mover.stdout is not None
    for _ in range(random.Random(6).randint(1, CHUNKS // PAGE - 1)):  # surely mid-move, on any machine
        assert mover.stdout.readline()
    mover.send_signal(signal.SIGKILL)
    mover.wait()

    assert "chunk_vectors" not in _tables(database_url)
    assert _state(data_dir, _queries()) == before
    assert _opened_state(data_dir, database_url, shared_embedder) == before
    assert not (data_dir / "vectors").exists()


def test_a_user_who_may_not_enable_pgvector_is_told_what_an_administrator_runs(
        old_data_dir, tmp_path, database_url, shared_embedder):
    admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("CREATE ROLE reader LOGIN"))
        connection.execute(text("GRANT ALL ON SCHEMA public TO reader"))
    admin.dispose()
    data_dir = tmp_path / "data"
    shutil.copytree(old_data_dir, data_dir)
    move_local_mode(data_dir)
    before = _state(data_dir, _queries())
    as_reader = database_url.replace(f"//{SUPERUSER}@", "//reader@")

    try:
        with pytest.raises(DocchatError, match=r"An administrator runs, once, in this database: CREATE EXTENSION vector;"):
            _opened_state(data_dir, as_reader, shared_embedder)
    finally:
        admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text("DROP OWNED BY reader"))
            connection.execute(text("DROP ROLE reader"))
        admin.dispose()

    assert "chunk_vectors" not in _tables(database_url)
    assert _state(data_dir, _queries()) == before
