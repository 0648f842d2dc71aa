"""Export and import over HTTP, as `docchat export` and `docchat import` do them."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from fastapi.testclient import TestClient

from docchat.api import create_app
from docchat.bootstrap import build_services
from docchat.config import Settings

from tests.api.conftest import LOCAL, stored
from tests.integration.test_transfer import zip_of


@pytest.fixture
def answered(client, gateway) -> str:
    conversation = client.post("/api/v1/conversations", json={"title": "Harbour Street Trust"}).json()
    gateway.enqueue(["The fifteenth day of March, June, September and December."])
    client.post(f"/api/v1/conversations/{conversation['id']}/messages", json={"content": "When is the Determination Date?"})
    return conversation["id"]


@pytest.fixture
def elsewhere(tmp_path, gateway, counter, embedder):
    """A second installation, empty, with its own data dir."""
    services = build_services(Settings(data_dir=tmp_path / "elsewhere", context_programs=False), gateway=gateway,
                              counter=counter, embedder=embedder, contact_llm=False)
    with TestClient(create_app(services), raise_server_exceptions=False, base_url=LOCAL) as client:
        yield client
    services.close()


def test_a_conversation_downloads_as_markdown_with_its_file_name(client, answered):
    response = client.get(f"/api/v1/conversations/{answered[:8]}/export", params={"format": "md"})

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/markdown")
    assert response.headers["content-disposition"] == f'attachment; filename="conversation-{answered}.md"'
    assert response.text.startswith("# Harbour Street Trust")
    assert "When is the Determination Date?" in response.text


def test_an_export_imported_elsewhere_comes_out_the_same(client, answered, elsewhere):
    exported = client.get(f"/api/v1/conversations/{answered}/export", params={"format": "json"}).content

    reports = elsewhere.post("/api/v1/import", files={"file": ("trust.json", exported, "application/json")}).json()
    again = elsewhere.get(f"/api/v1/conversations/{answered}/export", params={"format": "json"}).content

    assert reports == [{"conversation_id": answered, "title": "Harbour Street Trust", "messages": 2,
                        "already_present": False, "present_but_deleted": False}]
    assert json.loads(again)["messages"] == json.loads(exported)["messages"]
    assert json.loads(again)["checksum"] == json.loads(exported)["checksum"]


def test_the_citation_check_of_an_answer_survives_export_and_import(client, gateway, elsewhere, trust):
    conversation = client.post("/api/v1/conversations", json={"title": "Harbour Street Trust"}).json()
    gateway.enqueue(["The Determination Date is in March [7]. The Trustee lives on a houseboat [7]."])
    answer = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                         json={"content": "When is the Determination Date?"}).json()
    exported = client.get(f"/api/v1/conversations/{conversation['id']}/export", params={"format": "json"}).content

    elsewhere.post("/api/v1/import", files={"file": ("trust.json", exported, "application/json")})
    [_, kept] = elsewhere.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]

    assert [s["note"] for s in answer["citation_check"]["sentences"]] == ["not found in [7]"] * 2
    assert kept["citation_check"] == answer["citation_check"]
    assert kept["cited"] == answer["cited"]


def test_importing_the_same_file_again_adds_nothing_and_says_so(client, answered):
    exported = client.get(f"/api/v1/conversations/{answered}/export", params={"format": "json"}).content

    reports = client.post("/api/v1/import", files={"file": ("trust.json", exported)}).json()

    assert [(r["conversation_id"], r["already_present"], r["messages"]) for r in reports] == [(answered, True, 0)]


def test_the_zip_of_everything_imports_whole_elsewhere(client, answered, elsewhere):
    client.post("/api/v1/conversations", json={"title": "Lease questions"})

    archive = client.get("/api/v1/export")
    reports = elsewhere.post("/api/v1/import", files={"file": ("all.zip", archive.content, "application/zip")}).json()

    assert archive.headers["content-disposition"] == 'attachment; filename="docchat-conversations.zip"'
    assert len(zipfile.ZipFile(io.BytesIO(archive.content)).namelist()) == 2
    assert sorted(r["title"] for r in reports) == ["Harbour Street Trust", "Lease questions"]
    assert len(elsewhere.get("/api/v1/conversations").json()) == 2


def test_a_zip_with_one_bad_export_imports_nothing(client, answered, elsewhere, api_services):
    good = client.get(f"/api/v1/conversations/{answered}/export", params={"format": "json"}).content
    damaged = json.loads(good)
    damaged["messages"][0]["content"] = "When is the Payment Date?"  # the checksum no longer matches
    bad_zip = zip_of(("good.json", good), ("tampered.json", json.dumps(damaged).encode()))

    response = elsewhere.post("/api/v1/import", files={"file": ("both.zip", bad_zip)})

    assert response.status_code == 400 and "checksum" in response.json()["detail"]
    assert elsewhere.get("/api/v1/conversations").json() == []


def test_a_file_that_is_no_export_is_refused_in_one_line(client, api_services):
    before = stored(api_services)

    response = client.post("/api/v1/import", files={"file": ("notes.json", b'{"hello": "world"}')})

    assert response.status_code == 400 and "\n" not in response.json()["detail"]
    assert stored(api_services) == before


def test_an_import_without_a_file_names_the_missing_field(client):
    response = client.post("/api/v1/import")

    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "file"]


def test_an_unknown_export_format_is_a_422(client, answered):
    response = client.get(f"/api/v1/conversations/{answered}/export", params={"format": "pdf"})

    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["query", "format"]


@pytest.mark.both_databases
def test_an_export_holding_nul_is_refused_in_one_line_and_nothing_is_written(client, answered, api_services):
    document = json.loads(client.get(f"/api/v1/conversations/{answered}/export", params={"format": "json"}).content)
    client.delete(f"/api/v1/conversations/{answered}")
    document["messages"][0]["content"] = "When is the Determination\x00 Date?"
    before = stored(api_services)

    response = client.post("/api/v1/import", files={"file": ("trust.json", json.dumps(document).encode())})

    assert (response.status_code, response.json()) == (
        400, {"detail": "trust.json: holds a NUL character (\\u0000), which docchat cannot store"})
    assert stored(api_services) == before
