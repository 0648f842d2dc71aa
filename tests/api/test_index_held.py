"""`docchat api` beside the page, with the document index in Qdrant Edge: the page holds the
index, so the API refuses what would change it, as a 503 that says why, and changes nothing."""

from __future__ import annotations

from fastapi.testclient import TestClient

from docchat.api import create_app
from docchat.bootstrap import build_services

from tests.api.conftest import LOCAL, TRUST
from tests.integration.test_documents import files_under


def test_an_upload_and_a_deletion_while_the_page_holds_the_index_are_503s_and_change_nothing(
        settings, gateway, counter, embedder, data_dir):
    page = build_services(settings, gateway=gateway, counter=counter, embedder=embedder, contact_llm=False)
    trust = page.ingestion.ingest("harbour-trust.md", TRUST.encode())  # the page now holds the index
    beside = build_services(settings, gateway=gateway, counter=counter, embedder=embedder, contact_llm=False)
    files = files_under(data_dir)

    with TestClient(create_app(beside), raise_server_exceptions=False, base_url=LOCAL) as client:
        uploaded = client.post("/api/v1/documents", files={
            "file": ("minutes.md", b"# Board minutes\n\nThe meeting opened at nine.\n", "text/markdown")})
        deleted = client.delete(f"/api/v1/documents/{trust.id}")

    for response in (uploaded, deleted):
        assert response.status_code == 503
        assert "is open in another docchat process (the app?); stop it first" in response.json()["detail"]
    assert [d.id for d in page.documents.list()] == [trust.id] and files_under(data_dir) == files
    assert page.index.health().problem is None  # the page's index still matches its library
    beside.close()
    page.close()
