"""Integration fixtures: a second, independent installation next to the default one."""

from __future__ import annotations

from pathlib import Path

import pytest

from docchat.bootstrap import Services, build_services
from docchat.config import Settings

from tests.databases import StoreDatabase, new_database


@pytest.fixture
def other_data_dir(tmp_path) -> Path:
    return tmp_path / "other-data"


@pytest.fixture
def other_database(request, database, other_data_dir) -> StoreDatabase:
    """The second installation's database, of the same kind as the first's."""
    return new_database(request, database.kind, other_data_dir)


@pytest.fixture
def other_services(other_data_dir, other_database, shared_embedder) -> Services:
    """A second, independent installation: its own data dir, its own database."""
    return build_services(Settings(data_dir=other_data_dir, database_url=other_database.url), embedder=shared_embedder)


@pytest.fixture(scope="session")
def shared_embedder():
    """One MiniLM for every test that embeds: loading the model is the slow part."""
    from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()


@pytest.fixture
def services(data_dir, shared_embedder) -> Services:
    """The services over the test's data dir, embedding with the one model the tests load."""
    return build_services(Settings(data_dir=data_dir), embedder=shared_embedder)


@pytest.fixture
def library(services) -> Services:
    """The same services, named for tests of the document library (`library.ingestion.add`...)."""
    return services
