"""API-tier fixtures: the app over real services (SQLite, Qdrant Edge, MiniLM) in a
temporary data dir, with a scripted LLM (`gateway.enqueue(...)`) in place of vLLM."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from docchat.api import create_app
from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.memory.tokens import counter_for

from tests.unit.fakes import FakeGateway

# The API answers only to the names it was started for: TestClient's own "testserver" is not one.
LOCAL = "http://127.0.0.1"

TRUST = """# Harbour Street Trust Agreement

## Determination Date

The Determination Date is the fifteenth day of March, June, September and December. On each
Determination Date the Calculation Agent fixes the rate of interest for the next Interest Period.

## Payment Date

Interest on the Notes is paid to the Noteholders on each Payment Date, the twenty-fifth day of the
month after each Determination Date, out of the collections of the Trust.

## Trustee fees

The Trustee is paid an annual fee of GBP 40,000, in four equal instalments on the Payment Dates,
ahead of any interest on the Notes.

## Reserve Account

The Trustee keeps a Reserve Account with the Account Bank, drawn on only when collections are not
enough to pay interest on the Notes in full.
"""


@pytest.fixture(scope="session")
def embedder():
    """One MiniLM for the tier: loading the model is the slow part."""
    from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()


@pytest.fixture(scope="session")
def counter():
    return counter_for(Settings().tokenizer_model)


@pytest.fixture
def gateway(counter):
    return FakeGateway(counter=counter)


@pytest.fixture
def settings(data_dir, gateway):
    learned_to_cite(data_dir, gateway.info().model)
    # No DSPy programs: the scripted LLM answers only the answers.
    return Settings(data_dir=data_dir, context_programs=False)


def learned_to_cite(data_dir, model: str) -> None:
    """The scripted model judged to cite well on its own, as docchat learns a model from its
    answers: the API's answers are its words, as a served model's are once learned, not the
    quotes a fresh install shows while the citation gate learns it (tests/unit/test_citation_gate.py)."""
    from docchat.context.citing import CITE, JUDGED_ENOUGH
    from docchat.llm.skill_record import JsonSkillRecord

    data_dir.mkdir(parents=True, exist_ok=True)
    record = JsonSkillRecord(data_dir)
    for _ in range(JUDGED_ENOUGH):
        record.note(model, CITE, usable=True)


@pytest.fixture
def api_services(settings, gateway, counter, embedder):
    services = build_services(settings, gateway=gateway, counter=counter, embedder=embedder, contact_llm=False)
    yield services
    services.close()


@pytest.fixture
def client(api_services):
    with TestClient(create_app(api_services), raise_server_exceptions=False, base_url=LOCAL) as client:
        yield client


@pytest.fixture
def docchat(client):
    """The OpenAI SDK's client, on docchat's OpenAI-compatible endpoint."""
    import openai

    return openai.OpenAI(base_url=f"{client.base_url}/v1", api_key="unused", http_client=client, max_retries=0)


@pytest.fixture
def trust(client) -> dict:
    """The trust agreement, uploaded: the document as the API returned it."""
    response = client.post("/api/v1/documents", files={"file": ("harbour-trust.md", TRUST.encode(), "text/markdown")})
    assert response.status_code == 201, response.text
    return response.json()["document"]


def stored(services) -> tuple[int, int, int]:
    """What the data dir holds: conversations, messages, documents."""
    health = services.health.store()
    return health.conversations + health.deleted_conversations, health.messages, len(services.documents.list())


def events(text: str) -> list[tuple[str, str]]:
    """(event, data) of each server-sent event in a response body."""
    found = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        found.append((fields.get("event", "message"), fields["data"]))
    return found


def wait_for(condition, timeout_s: float = 10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return condition()


class Server:
    """The API on a real uvicorn, on a free port, in a thread of this process."""

    def __init__(self, app, port: int):
        import uvicorn

        self.url = f"http://127.0.0.1:{port}"
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, name="api-under-test", daemon=True)

    def __enter__(self) -> "Server":
        self._thread.start()
        if not wait_for(lambda: self._server.started):
            raise RuntimeError("uvicorn did not start")
        return self

    def __exit__(self, *exc) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
