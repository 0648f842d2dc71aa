"""An embeddings server that is missing or wrong: a clear message, nothing half-kept, and
answers that still find passages by keywords."""

from __future__ import annotations

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.errors import DocchatError

from tests.conftest import NO_SERVER
from tests.integration.sqlite_files import sql
from tests.integration.test_documents import files_under, trust_pdf


def test_ingesting_with_an_embeddings_server_that_is_not_running_keeps_nothing(data_dir):
    services = build_services(Settings(data_dir=data_dir, embeddings_url=NO_SERVER))

    with pytest.raises(DocchatError, match=r"embeddings server at http://127\.0\.0\.1:9/v1 is not reachable"):
        services.ingestion.ingest("trust.pdf", trust_pdf())

    assert services.documents.list() == []
    assert sql(data_dir, "SELECT count(*) FROM chunks") == [(0,)]
    assert files_under(data_dir) == []
    health = services.index.health()
    assert health.vectors is None and "is not reachable" in health.problem


def test_a_chat_server_without_embeddings_is_named_with_its_refusal(data_dir, fake_llm):
    services = build_services(Settings(data_dir=data_dir, embeddings_url=fake_llm.url + "/v1",
                                       embeddings_model="smollm2"))

    with pytest.raises(DocchatError, match="refused the request: HTTP 404"):
        services.ingestion.ingest("trust.pdf", trust_pdf())

    assert services.documents.list() == []


def test_when_the_embeddings_server_goes_away_passages_are_still_found_by_keywords(data_dir):
    bundled = build_services(Settings(data_dir=data_dir))
    bundled.ingestion.ingest("trust.pdf", trust_pdf())
    bundled.index.open().close()  # one holder at a time

    services = build_services(Settings(data_dir=data_dir, embeddings_url=NO_SERVER))
    [best, *_] = services.retrieval.retrieve("When is the Determination Date?", top_k=3)

    assert (best.document, best.chunk.page) == ("trust.pdf", 2)
