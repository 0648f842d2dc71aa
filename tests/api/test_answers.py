"""Answers over HTTP: stateless (/api/v1/rag/query) and what a refused request looks like."""

from __future__ import annotations

import json

import pytest

from docchat.errors import LLMUnavailable
from docchat_bench.followups import DOCUMENTS, markdown

from tests.api.conftest import events, stored


def test_a_question_is_answered_with_citations_of_the_uploaded_document(client, gateway, trust):
    gateway.enqueue(["The Trustee is paid ", "GBP 40,000 a year [1]."])

    response = client.post("/api/v1/rag/query", json={"query": "What annual fee is the Trustee paid?"})

    assert response.status_code == 200
    body = response.json()
    assert (body["answer"], body["status"]) == ("The Trustee is paid GBP 40,000 a year [1].", "complete")
    # The document fits the window: it goes in whole, and the best passage is cited first.
    assert body["mode"] == "documents"
    first = body["citations"][0]
    assert (first["document_id"], first["document"], first["section"]) == (trust["id"], "harbour-trust.md", "Trustee fees")
    assert "GBP 40,000" in first["text"]
    assert body["budget"]["prompt"] == body["usage"]["prompt_tokens"]
    assert body["memory"]["total_messages"] == 1


def test_a_streamed_answer_arrives_as_deltas_then_one_done_with_the_citations(client, gateway, trust):
    gateway.enqueue(["Interest is paid ", "on the twenty-fifth ", "[1]."])

    response = client.post("/api/v1/rag/query", json={"query": "When is interest on the Notes paid?", "stream": True})

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    received = events(response.text)
    assert [name for name, _ in received] == ["delta", "delta", "delta", "done"]
    assert "".join(json.loads(data)["text"] for name, data in received[:-1]) == "Interest is paid on the twenty-fifth [1]."
    done = json.loads(received[-1][1])
    assert done["answer"] == "Interest is paid on the twenty-fifth [1]." and done["status"] == "complete"
    assert done["citations"][0]["section"] == "Payment Date"


def test_an_answer_cut_at_the_length_limit_says_so(client, gateway):
    gateway.enqueue(["The Determination Date is"], finish_reason="length")

    body = client.post("/api/v1/rag/query", json={"query": "When is the Determination Date?"}).json()

    assert body["status"] == "truncated"


def test_a_stateless_answer_stores_nothing(client, api_services, trust):
    before = stored(api_services)

    client.post("/api/v1/rag/query", json={"query": "Who keeps the Reserve Account?",
                                           "conversation_history": [{"role": "user", "content": "Hello"},
                                                                    {"role": "assistant", "content": "Hi."}]})

    assert stored(api_services) == before


def test_a_follow_up_with_its_history_finds_the_passage_it_refers_to(client, gateway):
    # The trust agreement of `docchat bench followups`, whose dialogs chose how follow-ups are read.
    client.post("/api/v1/documents", files={"file": ("trust.md", markdown(DOCUMENTS["harbour-trust-agreement.md"]))})
    history = [{"role": "user", "content": "What fees does the Trustee charge?"},
               {"role": "assistant", "content": "An annual fee of GBP 40,000."}]
    follow_up = {"query": "When are they paid?", "top_k": 1}

    alone = client.post("/api/v1/rag/query", json=follow_up).json()
    with_history = client.post("/api/v1/rag/query", json={**follow_up, "conversation_history": history}).json()

    assert [c["section"] for c in alone["citations"]] == ["Payment Date"]
    assert [c["section"] for c in with_history["citations"]] == ["Trustee fees"]
    assert with_history["rewritten_query"] == "When are they paid? What fees does the Trustee charge?"
    # The one passage went into the question's turn, not the whole document into the prompt.
    sent = gateway.requests[-1][0][-1]["content"]
    assert "annual fee of GBP 40,000" in sent and "Governing law" not in sent


def test_the_search_can_be_limited_to_some_documents(client, gateway, trust):
    other = client.post("/api/v1/documents", files={"file": ("notes.txt", b"The Trustee fees are paid by standing order.",
                                                             "text/plain")}).json()["document"]

    body = client.post("/api/v1/rag/query", json={"query": "How are the Trustee fees paid?",
                                                  "document_ids": [other["id"][:8]]}).json()

    assert {c["document"] for c in body["citations"]} == {"notes.txt"}


def test_an_unknown_document_in_the_scope_is_refused(client):
    response = client.post("/api/v1/rag/query", json={"query": "What is the fee?",
                                                      "document_ids": ["0000000-no-such-document"]})

    assert response.status_code == 400
    assert response.json() == {"detail": "no document starts with 0000000-no-such-document"}


@pytest.mark.parametrize(("body", "where", "kind"), [
    ({"query": "Hi", "conversation_history": [{"role": "robot", "content": "beep"}]},
     ["body", "conversation_history", 0, "role"], "literal_error"),
    ({"query": "   "}, ["body", "query"], "value_error"),
    ({"query": ""}, ["body", "query"], "string_too_short"),
    ({"query": "Hi", "temperature": 0.2}, ["body", "temperature"], "extra_forbidden"),
    ({"query": "Hi", "top_k": "3"}, ["body", "top_k"], "int_type"),
    ({"query": "Hi", "top_k": 0}, ["body", "top_k"], "greater_than_equal"),
    ({"query": ["Hi"]}, ["body", "query"], "string_type"),
    ({"query": "Hi", "conversation_history": [{"role": "user"}]}, ["body", "conversation_history", 0, "content"],
     "missing"),
])
def test_a_malformed_question_is_refused_with_the_field_that_is_wrong(client, api_services, gateway, body, where, kind):
    before = stored(api_services)

    response = client.post("/api/v1/rag/query", json=body)

    assert response.status_code == 422
    assert {"loc": where, "type": kind} in [{"loc": e["loc"], "type": e["type"]} for e in response.json()["detail"]]
    assert gateway.requests == [] and stored(api_services) == before


def test_a_body_that_is_not_json_is_a_422_not_a_crash(client):
    response = client.post("/api/v1/rag/query", content=b"{not json", headers={"Content-Type": "application/json"})

    assert response.status_code == 422 and response.json()["detail"][0]["type"] == "json_invalid"


def test_a_question_too_long_for_the_window_is_refused_in_one_line(client, gateway):
    response = client.post("/api/v1/rag/query", json={"query": "interest " * 3_000})

    assert response.status_code == 400
    assert "\n" not in response.json()["detail"] and gateway.requests == []


def test_when_the_llm_server_is_down_the_answer_is_a_503_saying_so(client, gateway):
    gateway.down = LLMUnavailable("the LLM server is not running at http://127.0.0.1:8000/v1")

    response = client.post("/api/v1/rag/query", json={"query": "When is the Payment Date?", "stream": True})

    assert response.status_code == 503
    assert response.json() == {"detail": "the LLM server is not running at http://127.0.0.1:8000/v1"}


def test_a_failure_in_the_middle_of_a_stream_ends_it_with_an_error_event(client, gateway):
    from docchat.errors import StreamCut

    gateway.enqueue(["The Payment Date is "], failure=StreamCut("the LLM server closed the answer before it was finished"))

    response = client.post("/api/v1/rag/query", json={"query": "When is the Payment Date?", "stream": True})

    assert [name for name, _ in events(response.text)] == ["delta", "error"]
    assert json.loads(events(response.text)[-1][1]) == {"detail": "the LLM server closed the answer before it was finished"}
