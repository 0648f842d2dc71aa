"""Fuzz-tier fixtures: docchat's real services over real SQLite files, and a count of the examples run.

Hypothesis draws many inputs per test, so the services are built once per module (a fixture
scoped to one test would be shared by all its examples anyway), and each property compares
the database before and after every example it refuses.
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis.configuration import set_hypothesis_home_dir

from docchat.bootstrap import Services, build_services
from docchat.config import Settings

from tests.fault.fake_server import FakeLLMServer

# Hypothesis keeps caches (Unicode tables, constants read from the code) in ./.hypothesis even
# with no example database; once this tier is collected, the session keeps them out of the checkout.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "docchat-hypothesis")

_examples: Counter[str] = Counter()


def pytest_collection_modifyitems(items):
    """Counts the examples each property runs: Hypothesis calls `hypothesis.inner_test` once per
    example (shrinking included), and lets it be replaced for exactly this kind of wrapping."""
    here = Path(__file__).parent
    for item in items:
        if here not in item.path.parents:
            continue  # the hook sees the whole session's tests; only this tier's are counted
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        if handle is None or getattr(handle.inner_test, "counted", False):
            continue
        handle.inner_test = _counted(handle.inner_test, item.nodeid.split("[")[0])


def _counted(test, name: str):
    @functools.wraps(test)
    def run(*args, **kwargs):
        _examples[name] += 1
        return test(*args, **kwargs)

    run.counted = True
    return run


def pytest_terminal_summary(terminalreporter):
    if not _examples:
        return
    terminalreporter.section("fuzz: Hypothesis examples run")
    for name, count in sorted(_examples.items()):
        terminalreporter.write_line(f"{count:6d}  {name}")
    terminalreporter.write_line(f"{sum(_examples.values()):6d}  in all, over {len(_examples)} properties")


@pytest.fixture(scope="module")
def fuzz_llm():
    """The fake OpenAI-compatible server, answering every question the same way."""
    server = FakeLLMServer().start()
    yield server
    server.stop()


class FakeEmbedder:
    """Vectors from the text's letters: enough for Qdrant to index, with no model to load."""

    name = "letters (fuzz tier)"
    model_id = "fuzz/letters"
    dimension = 8

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[float(sum(ord(ch) % (slot + 2) for ch in text[:400]) % 97 + 1) for slot in range(self.dimension)]
                for text in texts]


@pytest.fixture(scope="module")
def fuzz_root(tmp_path_factory) -> Path:
    """A folder of its own: anything written outside its data dir is an escape."""
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def fuzz_services(fuzz_root, fuzz_llm) -> Services:
    """Real services over `<root>/data`, asking the fake server, without the DSPy programs."""
    with pytest.MonkeyPatch.context() as patch:
        # Settings also read the environment: a developer's own database must not be touched.
        patch.delenv("DOCCHAT_DATABASE_URL", raising=False)
        services = build_services(
            Settings(data_dir=fuzz_root / "data", llm_url=fuzz_llm.url + "/v1", context_programs=False,
                     database_url=None, qdrant_url=None, embeddings_url=None),
            embedder=FakeEmbedder(),
        )
    yield services
    services.close()


@pytest.fixture(scope="module")
def cli_environment(fuzz_root, fuzz_llm):
    """The environment `docchat` commands run in: the fuzz data dir and the fake server."""
    values = {"DOCCHAT_DATA_DIR": str(fuzz_root / "data"), "DOCCHAT_LLM_URL": fuzz_llm.url + "/v1",
              "DOCCHAT_CONTEXT_PROGRAMS": "false"}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in values.items():
            patch.setenv(name, value)
        patch.delenv("DOCCHAT_DATABASE_URL", raising=False)
        yield {**os.environ}
