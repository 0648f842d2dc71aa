"""Conversations over HTTP: what the page does to them, through the same services."""

from __future__ import annotations

import json

import pytest

from docchat.errors import LLMUnavailable

from tests.api.conftest import events, stored


def new_conversation(client, title: str = "Harbour Street Trust") -> dict:
    response = client.post("/api/v1/conversations", json={"title": title})
    assert response.status_code == 201
    return response.json()


def test_a_created_conversation_is_listed_pinned_first(client):
    older = new_conversation(client, "Lease questions")
    newer = new_conversation(client, "Loan facility")

    pinned = client.patch(f"/api/v1/conversations/{older['id']}", json={"pinned": True}).json()

    assert pinned["pinned"] is True
    assert [c["title"] for c in client.get("/api/v1/conversations").json()] == ["Lease questions", "Loan facility"]
    assert newer["title_source"] == "user" and newer["message_count"] == 0


def test_a_conversation_without_a_title_is_a_new_conversation(client):
    assert client.post("/api/v1/conversations").json()["title"] == "New conversation"


def test_a_renamed_conversation_keeps_its_new_title(client):
    conversation = new_conversation(client)

    client.patch(f"/api/v1/conversations/{conversation['id']}", json={"title": "  Trust   deed  "})

    assert client.get(f"/api/v1/conversations/{conversation['id']}").json()["title"] == "Trust deed"


def test_a_bad_title_changes_nothing_not_even_the_pin_asked_with_it(client):
    conversation = new_conversation(client)

    response = client.patch(f"/api/v1/conversations/{conversation['id']}", json={"title": " ", "pinned": True})

    assert response.status_code == 400 and response.json() == {"detail": "a title cannot be empty"}
    assert client.get(f"/api/v1/conversations/{conversation['id']}").json()["pinned"] is False


def test_a_message_is_stored_with_its_answer_and_both_are_in_the_conversation(client, gateway):
    conversation = new_conversation(client)
    gateway.enqueue(["It is the fifteenth ", "of each quarter's last month."])

    answer = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                         json={"content": "When is the Determination Date?"}).json()

    assert answer["conversation_id"] == conversation["id"] and answer["status"] == "complete"
    shown = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert [(m["id"], m["role"], m["content"], m["status"]) for m in shown] == [
        (answer["question_id"], "user", "When is the Determination Date?", "complete"),
        (answer["answer_id"], "assistant", "It is the fifteenth of each quarter's last month.", "complete"),
    ]


def test_a_conversation_is_found_by_a_unique_start_of_its_id(client, gateway):
    conversation = new_conversation(client)

    response = client.post(f"/api/v1/conversations/{conversation['id'][:8]}/messages",
                           json={"content": "Who is the Trustee?", "stream": True})

    assert [name for name, _ in events(response.text)][-1] == "done"
    assert json.loads(events(response.text)[-1][1])["conversation_id"] == conversation["id"]


def test_a_retry_keeps_the_earlier_answer_as_a_hidden_version(client, gateway, api_services):
    conversation = new_conversation(client)
    gateway.enqueue(["I do not know."])
    gateway.enqueue(["The fifteenth day of March, June, September and December."])
    first = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                        json={"content": "When is the Determination Date?"}).json()

    again = client.post(f"/api/v1/conversations/{conversation['id']}/retry", json={}).json()

    assert again["question_id"] == first["question_id"] and again["answer_id"] != first["answer_id"]
    shown = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert [m["content"] for m in shown] == ["When is the Determination Date?",
                                             "The fifteenth day of March, June, September and December."]
    assert shown[-1]["version_of"] == first["answer_id"]
    assert stored(api_services)[1] == 3  # the question and both answers


def test_a_retry_with_nothing_asked_is_refused(client):
    conversation = new_conversation(client)

    response = client.post(f"/api/v1/conversations/{conversation['id']}/retry")

    assert response.status_code == 400
    assert response.json() == {"detail": "there is no question to answer again in this conversation"}


def test_when_the_llm_is_down_the_question_is_kept_and_the_answer_says_why(client, gateway):
    conversation = new_conversation(client)
    gateway.down = LLMUnavailable("the LLM server is not running at http://127.0.0.1:8000/v1")

    response = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                           json={"content": "When is the Payment Date?", "stream": True})

    assert response.status_code == 503
    assert response.json()["detail"] == "the LLM server is not running at http://127.0.0.1:8000/v1"
    shown = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert [(m["role"], m["status"]) for m in shown] == [("user", "complete"), ("assistant", "error")]
    gateway.down = None
    gateway.enqueue(["The twenty-fifth."])
    assert client.post(f"/api/v1/conversations/{conversation['id']}/retry").json()["answer"] == "The twenty-fifth."


def test_a_blank_message_is_refused_and_stores_nothing(client, api_services):
    conversation = new_conversation(client)
    before = stored(api_services)

    response = client.post(f"/api/v1/conversations/{conversation['id']}/messages", json={"content": "  \n "})

    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "content"]
    assert stored(api_services) == before


def test_an_unknown_conversation_is_a_404(client):
    response = client.post("/api/v1/conversations/5b0e8f2c-0000-4000-8000-000000000000/messages",
                           json={"content": "Hello?"})

    assert response.status_code == 404
    assert response.json() == {"detail": "no conversation with id 5b0e8f2c-0000-4000-8000-000000000000"}


def test_a_deleted_conversation_goes_to_the_trash(client, api_services):
    conversation = new_conversation(client)

    response = client.delete(f"/api/v1/conversations/{conversation['id']}")

    assert response.status_code == 204 and response.content == b""
    assert client.get("/api/v1/conversations").json() == []
    assert client.get(f"/api/v1/conversations/{conversation['id']}").status_code == 404
    assert [c.id for c in api_services.trash.list()] == [conversation["id"]]


def test_search_finds_the_conversation_that_mentions_a_word(client, gateway):
    lease = new_conversation(client, "Lease")
    client.post(f"/api/v1/conversations/{lease['id']}/messages", json={"content": "When is the rent reviewed?"})
    new_conversation(client, "Loan")

    hits = client.get("/api/v1/search", params={"q": "rent"}).json()

    assert [(h["conversation_id"], h["title"]) for h in hits] == [(lease["id"], "Lease")]
    assert "rent" in hits[0]["snippet"]


def test_a_conversation_can_be_limited_to_some_documents(client, trust):
    conversation = new_conversation(client)

    scoped = client.put(f"/api/v1/conversations/{conversation['id']}/scope",
                        json={"document_ids": [trust["id"][:6]]}).json()
    unscoped = client.put(f"/api/v1/conversations/{conversation['id']}/scope", json={"document_ids": None}).json()

    assert scoped["document_scope"] == [trust["id"]]
    assert unscoped["document_scope"] is None


def test_a_scope_naming_an_unknown_document_is_refused_and_changes_nothing(client, trust):
    conversation = new_conversation(client)
    client.put(f"/api/v1/conversations/{conversation['id']}/scope", json={"document_ids": [trust["id"]]})

    response = client.put(f"/api/v1/conversations/{conversation['id']}/scope",
                          json={"document_ids": [trust["id"], "f00dfeed-0000-4000-8000-000000000000"]})

    assert response.status_code == 400
    assert client.get(f"/api/v1/conversations/{conversation['id']}").json()["document_scope"] == [trust["id"]]



# NUL: no PostgreSQL text column holds it, so neither database takes it (see docchat.text)


@pytest.mark.both_databases
def test_a_message_or_title_holding_nul_is_a_400_saying_so_and_stores_nothing(client, api_services):
    conversation = new_conversation(client)
    before = stored(api_services)

    asked = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                        json={"content": "When is the Determination\x00 Date?"})
    renamed = client.patch(f"/api/v1/conversations/{conversation['id']}", json={"title": "Trust\x00 deed"})

    assert (asked.status_code, asked.json()) == (400, {"detail": (
        "a message holds a NUL character (U+0000) at character 26, which docchat cannot store; nothing was stored")})
    assert renamed.status_code == 400 and renamed.json()["detail"].startswith("a title holds a NUL character")
    assert stored(api_services) == before
    assert client.get(f"/api/v1/conversations/{conversation['id']}").json()["title"] == "Harbour Street Trust"


@pytest.mark.both_databases
def test_an_id_holding_nul_is_a_404_not_a_crash(client):
    conversation = new_conversation(client)

    for response in (client.get(f"/api/v1/conversations/{conversation['id'][:8]}%00"),
                     client.delete("/api/v1/documents/%00")):
        assert response.status_code == 404, response.text


@pytest.mark.both_databases
def test_an_answer_holding_nul_is_kept_with_a_replacement_character_in_its_place(client, gateway, api_services):
    conversation = new_conversation(client)
    gateway.enqueue(["The fifteenth\x00 ", "of March."])

    answer = client.post(f"/api/v1/conversations/{conversation['id']}/messages", json={"content": "When?"}).json()

    assert (answer["status"], answer["answer"]) == ("complete", "The fifteenth\ufffd of March.")
    assert api_services.messages.history(conversation["id"])[-1].content == "The fifteenth\ufffd of March."
