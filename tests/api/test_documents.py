"""Documents over HTTP: the page's checks and limits, all or nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from docchat.api import create_app
from docchat.bootstrap import build_services

from tests.api.conftest import LOCAL, TRUST, stored
from tests.integration.test_documents import files_under, trust_pdf
from tests.office_files import xlsx_of


def upload(client, name: str, data: bytes, kind: str = "application/octet-stream"):
    return client.post("/api/v1/documents", files={"file": (name, data, kind)})


def test_an_uploaded_pdf_is_in_the_library_with_its_pages_and_chunks(client):
    response = upload(client, "Harbour Street Trust.pdf", trust_pdf(), "application/pdf")

    assert response.status_code == 201
    added = response.json()
    assert added["already_present"] is False
    assert (added["document"]["name"], added["document"]["kind"], added["document"]["pages"]) == \
        ("Harbour Street Trust.pdf", "pdf", 3)
    assert client.get("/api/v1/documents").json() == [added["document"]]


def test_an_uploaded_workbook_is_in_the_library_as_an_xlsx_and_the_upload_names_the_kinds_read(client):
    workbook = xlsx_of({"Fees": [["Fee", "GBP"], ["Trustee", 40000], ["Auditor", 12500]]})

    response = upload(client, "fees.xlsx", workbook)

    assert response.status_code == 201
    assert (response.json()["document"]["kind"], response.json()["document"]["pages"]) == ("xlsx", None)
    described = client.get("/openapi.json").json()["paths"]["/api/v1/documents"]["post"]["description"]
    assert described.endswith("docchat reads PDF, DOCX, Markdown, text, HTML, slides (PPTX), spreadsheets "
                              "(XLSX, ODS, CSV, TSV), e-books (EPUB), mail (EML, MSG), source code and notebooks "
                              "(Python, JavaScript, TypeScript, Java, Go, Rust, C, C++ and more; IPYNB), and images "
                              "and scans by OCR (PNG, JPEG, TIFF, WebP).")


def test_the_same_content_uploaded_again_is_said_to_be_in_the_library(client, trust):
    response = upload(client, "a copy.md", TRUST.encode())

    assert response.status_code == 200
    assert response.json() == {"document": trust, "already_present": True, "attachments": [],
                               "refused_attachments": []}


def test_a_mail_s_attachments_are_documents_of_their_own_named_after_it(client):
    from tests.integration.test_mail_attachments import quote

    response = upload(client, "quote.eml", bytes(quote()))

    assert response.status_code == 201
    added = response.json()
    assert [(a["document"]["name"], a["already_present"]) for a in added["attachments"]] == [
        ("quote.eml › stock.xlsx", False), ("quote.eml › delivery.md", False)]
    assert added["refused_attachments"] == [
        'attached to quote.eml: "terms.docx" is not a readable Word document (.docx)']
    listed = sorted(d["name"] for d in client.get("/api/v1/documents").json())
    assert listed == ["quote.eml", "quote.eml › delivery.md", "quote.eml › stock.xlsx"]


@pytest.mark.parametrize(("name", "data", "status", "detail"), [
    ("trust.exe", b"MZ\x90\x00", 415, '"trust.exe" is not a supported type; docchat reads PDF, DOCX, Markdown, '
                                       'text, HTML, slides (PPTX), spreadsheets (XLSX, ODS, CSV, TSV), e-books (EPUB), '
                                       'mail (EML, MSG), source code and notebooks (Python, JavaScript, '
                                       'TypeScript, Java, Go, Rust, C, C++ and more; IPYNB), and images and '
                                       'scans by OCR (PNG, JPEG, TIFF, WebP)'),
    ("trust.pdf", b"%PDF-1.7 this is not really a PDF", 400, '"trust.pdf" is not a readable PDF (it may be damaged)'),
    ("empty.txt", b"", 400, '"empty.txt" is empty'),
])
def test_a_file_that_cannot_be_read_is_refused_with_its_reason_and_nothing_is_kept(
        client, api_services, data_dir, name, data, status, detail):
    before = stored(api_services)

    response = upload(client, name, data)

    assert (response.status_code, response.json()) == (status, {"detail": detail})
    assert stored(api_services) == before and files_under(data_dir) == []


def test_a_file_over_the_upload_limit_is_a_413_and_nothing_is_kept(settings, gateway, counter, embedder, data_dir):
    services = build_services(settings.model_copy(update={"max_upload_mb": 1}), gateway=gateway, counter=counter,
                              embedder=embedder, contact_llm=False)
    with TestClient(create_app(services), base_url=LOCAL) as client:
        just_over = upload(client, "minutes.txt", b"The meeting opened at nine. " * 38_000)  # 1.01 MB
        far_over = upload(client, "archive.txt", b"x" * (3 * 1024 * 1024))

    assert just_over.status_code == 413 and just_over.json()["detail"].startswith('"minutes.txt" is ')
    assert just_over.json()["detail"].endswith("the limit is 1 MB")
    assert (far_over.status_code, far_over.json()) == (413, {"detail": "the request body is too large: "
                                                                       "a file can be at most 1.0 MB"})
    assert services.documents.list() == [] and files_under(data_dir) == []
    services.close()


def test_a_deleted_document_leaves_the_library(client, trust, data_dir):
    response = client.delete(f"/api/v1/documents/{trust['id'][:8]}")

    assert response.status_code == 204
    assert client.get("/api/v1/documents").json() == [] and files_under(data_dir) == []
    assert client.delete(f"/api/v1/documents/{trust['id']}").status_code == 404


def test_the_usage_of_a_document_names_the_conversations_that_cited_it(client, gateway, trust):
    conversation = client.post("/api/v1/conversations", json={"title": "Fees"}).json()
    assert client.get(f"/api/v1/documents/{trust['id']}/usage").json() == []
    # A stateless answer (stored nowhere) says how the prompt numbers the passages.
    given = client.post("/api/v1/rag/query", json={"query": "When is interest paid?"}).json()["citations"]
    paid = next(c["n"] for c in given if "Interest on the Notes is paid" in c["text"])
    gateway.enqueue([f"Interest on the Notes is paid to the Noteholders on each Payment Date [{paid}]."])

    client.post(f"/api/v1/conversations/{conversation['id']}/messages", json={"content": "When is interest paid?"})

    [use] = client.get(f"/api/v1/documents/{trust['id']}/usage").json()
    assert (use["conversation_id"], use["title"]) == (conversation["id"], "Fees") and use["citations"] == 1


def test_a_document_given_to_the_model_but_not_cited_has_no_usage(client, gateway, trust):
    conversation = client.post("/api/v1/conversations", json={"title": "Weather"}).json()
    gateway.enqueue(["It will rain in Lisbon tomorrow afternoon, with strong winds off the sea."])

    answer = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                         json={"content": "When is interest paid?"}).json()

    assert answer["citations"] and answer["cited"] == []
    assert [s["note"] for s in answer["citation_check"]["sentences"]] == ["unsupported: no passage given holds this"]
    assert client.get(f"/api/v1/documents/{trust['id']}/usage").json() == []


@pytest.mark.both_databases
def test_a_text_file_with_a_stray_nul_in_it_is_added(client):
    response = upload(client, "minutes.txt", b"The Trustee met the Account Bank\x00 on the Payment Date.\n", "text/plain")

    assert response.status_code == 201, response.text
    assert response.json()["document"]["chunks"] == 1
