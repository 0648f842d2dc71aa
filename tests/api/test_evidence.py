"""Evidence over HTTP: every answer says whether the documents held it; what they do not hold
docchat answers itself, without asking the model, unless the caller asks for the model's words."""

from __future__ import annotations

import json

from docchat.errors import LLMUnavailable
from docchat.services.documents_only import NOT_FOUND_REPLY

from tests.api.conftest import events


def test_an_answer_from_the_documents_is_judged_found(client, gateway, trust):
    gateway.enqueue(["GBP 40,000 a year [1]."])

    body = client.post("/api/v1/rag/query", json={"query": "What annual fee is the Trustee paid?"}).json()

    assert body["evidence"]["judgement"] == "found"
    assert body["evidence"]["score"] >= 0.65


def test_a_question_about_nothing_in_the_documents_gets_docchat_s_reply_naming_the_nearest(client, gateway, trust):
    body = client.post("/api/v1/rag/query", json={"query": "Who won the football World Cup in 1998?"}).json()

    assert body["answer"].startswith(f"{NOT_FOUND_REPLY} The nearest passages docchat found are in harbour-trust.md (")
    assert body["evidence"]["judgement"] == "not found" and body["citations"]
    assert gateway.requests == []


def test_the_model_s_own_answer_comes_when_the_caller_asks_for_its_words(client, gateway, trust):
    gateway.enqueue(["France won it."])

    body = client.post("/api/v1/rag/query", json={"query": "Who won the football World Cup in 1998?",
                                                  "form": "free"}).json()

    assert body["answer"] == "France won it."
    assert body["evidence"]["judgement"] == "not found" and body["answer_form"] == "free"


def test_a_documents_only_conversation_replies_itself_and_keeps_the_reply(client, gateway, trust):
    conversation = client.post("/api/v1/conversations", json={}).json()
    changed = client.patch(f"/api/v1/conversations/{conversation['id']}", json={"documents_only": True}).json()
    assert changed["documents_only"] is True

    response = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                           json={"content": "Who won the football World Cup in 1998?", "stream": True})

    done = json.loads(events(response.text)[-1][1])
    assert done["answer"].startswith(NOT_FOUND_REPLY)
    assert done["evidence"]["judgement"] == "not found" and done["citations"]
    assert gateway.requests == []
    [_, answer] = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert answer["content"].startswith(NOT_FOUND_REPLY) and answer["evidence"]["judgement"] == "not found"



def test_with_the_llm_server_gone_a_documents_only_retry_replies_itself_instead_of_failing(client, gateway, trust):
    conversation = client.post("/api/v1/conversations", json={}).json()
    gateway.enqueue(["France won it."])
    client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                json={"content": "Who won the football World Cup in 1998?", "form": "free"})
    client.patch(f"/api/v1/conversations/{conversation['id']}", json={"documents_only": True})
    gateway.down = LLMUnavailable("the LLM server is not running")

    response = client.post(f"/api/v1/conversations/{conversation['id']}/retry")

    assert response.status_code == 200, response.text
    assert response.json()["answer"].startswith(NOT_FOUND_REPLY)
    assert len(gateway.requests) == 1  # the first answer's; none since
    [_, answer] = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert answer["content"].startswith(NOT_FOUND_REPLY)
