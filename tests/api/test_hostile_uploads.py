"""Hostile uploads over HTTP: a parsing bomb is refused while the API goes on answering, and no
upload's name becomes a path outside the data folder's documents folder."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from docchat.api import create_app
from docchat.bootstrap import build_services

from tests.api.conftest import Server, stored
from tests.hostile_files import pdf_of_pages_sharing_a_stream
from tests.integration.test_parsing import pdf_of
from tests.network import free_port

PARSE_TIMEOUT_S = 3


def test_health_answers_while_a_parsing_bomb_is_refused_and_the_library_is_unchanged(settings, counter, embedder,
                                                                                     gateway):
    services = build_services(settings.model_copy(update={"parse_timeout_s": PARSE_TIMEOUT_S}), gateway=gateway,
                              counter=counter, embedder=embedder, contact_llm=False)
    bomb = pdf_of_pages_sharing_a_stream(50)  # about ten seconds of a worker's time, unstopped
    health: list[tuple[int, float]] = []
    uploading = threading.Event()
    try:
        with Server(create_app(services), free_port()) as server:
            # The first health check opens the document index (seconds): the app has been serving.
            assert httpx.get(f"{server.url}/api/v1/health", timeout=30).status_code == 200
            before = stored(services)

            def ask_health() -> None:
                with httpx.Client(base_url=server.url, timeout=10) as client:
                    while uploading.is_set():
                        started = time.monotonic()
                        status = client.get("/api/v1/health").status_code
                        health.append((status, time.monotonic() - started))

            uploading.set()
            asking = threading.Thread(target=ask_health)
            asking.start()
            try:
                response = httpx.post(f"{server.url}/api/v1/documents", files={"file": ("bomb.pdf", bomb)},
                                      timeout=PARSE_TIMEOUT_S + 30)
            finally:
                uploading.clear()
                asking.join()
            after = stored(services)
    finally:
        services.close()

    assert response.status_code == 400
    assert response.json()["detail"] == ('"bomb.pdf" was refused: parsing it needed more than '
                                         f"{PARSE_TIMEOUT_S} s of processor time")
    assert after == before
    # Answered again and again while the bomb was parsed. How fast is not asserted: on a loaded
    # machine one answer took 2.6 s, and a test must not fail on the machine's load.
    assert len(health) >= 3
    assert all(status == 200 for status, _ in health)


HOSTILE_NAMES = [
    "/abs/path.pdf",
    "C:\\Windows\\x.pdf",
    "..\\..\\x.pdf",
    "../../../../tmp/escape.pdf",
    "minutes\x00.pdf",
    "invoice\u202efdp.pdf",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_an_upload_named_to_climb_out_is_stored_under_the_documents_folder_only(client, data_dir, name):
    before = _files(data_dir.parent)

    response = client.post("/api/v1/documents", files={"file": (name, pdf_of(f"Uploaded as {name!r}."))})

    assert response.status_code == 201, response.text
    [added] = _files(data_dir.parent) - before
    assert added.parent.parent == data_dir / "documents"
    assert added.name.endswith(".pdf") and "\x00" not in added.name and "\u202e" not in added.name


def test_an_upload_named_like_a_system_file_is_refused_and_creates_nothing(client, data_dir):
    before = _files(data_dir.parent)

    passwd = b"root:x:0:0:root:/root:/bin/sh\n"
    response = client.post("/api/v1/documents", files={"file": ("../../etc/passwd", passwd)})

    assert response.status_code == 415
    assert _files(data_dir.parent) == before


def _files(root) -> set:
    """Every file under root but the database's, the kept tables' and the index's own."""
    return {path for path in root.rglob("*") if path.is_file()
            and not path.name.startswith(("docchat.db", "tables.sqlite")) and "vectors" not in path.parts}
