"""The HTTP API's OpenAI-compatible endpoint on a real uvicorn, in front of the real vLLM-CPU
server, through the official `openai` client: an answer, and citations of an uploaded document."""

import httpx
import openai
import pytest

from docchat.api import create_app

from tests.api.conftest import Server
from tests.network import free_port

NOTICE = """# Harbour Street Trust: notice to Noteholders

## Determination Date

The Determination Date is the fifteenth day of March, June, September and December.

## Trustee fees

The Trustee is paid an annual fee of GBP 40,000, in four equal instalments.
"""


@pytest.fixture
def api(live_services):
    with Server(create_app(live_services), free_port()) as server:
        added = httpx.post(f"{server.url}/api/v1/documents", files={"file": ("notice.md", NOTICE.encode())}, timeout=120)
        assert added.status_code == 201, added.text
        yield server, added.json()["document"]


def test_the_openai_client_gets_an_answer_with_citations_of_the_document(api):
    server, document = api
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0, timeout=300)

    completion = client.chat.completions.create(
        model="docchat", messages=[{"role": "user", "content": "When is the Determination Date?"}])

    assert completion.choices[0].message.content.strip()
    assert completion.choices[0].finish_reason in {"stop", "length"}
    assert completion.usage.completion_tokens > 0
    cited = completion.model_extra["docchat"]["citations"]
    assert cited and {c["document_id"] for c in cited} == {document["id"]}


@pytest.mark.both_servers
def test_the_openai_client_streams_an_answer_ending_with_citations(api):
    server, document = api
    client = openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0, timeout=300)

    # The model's own words, streamed (on a fresh install docchat quotes, in one piece, while it learns the model).
    chunks = list(client.chat.completions.create(
        model="docchat", stream=True, messages=[{"role": "user", "content": "What fee is the Trustee paid?"}],
        extra_body={"docchat": {"form": "free"}}))

    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1 and text.strip()
    [last] = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert last.choices[0].finish_reason in {"stop", "length"}
    cited = last.model_extra["docchat"]["citations"]
    assert cited and cited[0]["document"] == "notice.md" and "GBP 40,000" in " ".join(c["text"] for c in cited)
