"""`docchat chat --url`'s side of the HTTP API contract, against a stand-in server (httpx's
MockTransport) that answers as the contract says: JSON, and answers as server-sent events."""

from __future__ import annotations

import json

import httpx
import pytest

from docchat.cli.terminal_http import HttpChat
from docchat.domain.approach import covered_line
from docchat.errors import DocchatError

URL = "http://127.0.0.1:8502"
TOKEN = "kestrel-7f3a"
CONVERSATION = "5b0e8f2c-1d7a-4e6b-9c3f-2a8d4e6f1b90"
CITATION = {"n": 1, "document_id": "d-1", "document": "harbour-trust.md", "page": None,
            "section": "1.2 Determination Date", "text": "The Determination Date is the last Business Day."}


def sse(*events: tuple[str, dict]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def answered(text: str, **extra) -> bytes:
    words = text.split(" ")
    deltas = [("delta", {"text": w + (" " if i < len(words) - 1 else "")}) for i, w in enumerate(words)]
    return sse(*deltas, ("done", {"answer": text, "status": "complete", "citations": [CITATION], **extra}))


class StandIn:
    """Records every request; `reply(request)` says what to answer."""

    def __init__(self, reply):
        self.requests: list[httpx.Request] = []
        self._reply = reply

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self._reply(request)

    def chat(self, **options) -> HttpChat:
        return HttpChat(URL, transport=httpx.MockTransport(self), **options)


def stored_api(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if request.method == "POST" and path == "/api/v1/conversations":
        return httpx.Response(201, json={"id": CONVERSATION, "title": "New conversation"})
    if request.method == "POST" and path == f"/api/v1/conversations/{CONVERSATION}/messages":
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=answered("The last Business Day of each quarter.", conversation_id=CONVERSATION))
    if request.method == "GET" and path == "/api/v1/conversations":
        return httpx.Response(200, json=[{"id": CONVERSATION, "title": "Harbour trust dates", "pinned": False}])
    # As the API does, any start of the id will do.
    if request.method == "GET" and CONVERSATION.startswith(path.removeprefix("/api/v1/conversations/")):
        return httpx.Response(200, json={"id": CONVERSATION, "title": "Harbour trust dates", "messages": [
            {"id": "m1", "role": "user", "content": "When is the Determination Date?", "status": "complete",
             "citations": []},
            {"id": "m2", "role": "assistant", "content": "The last Business Day of each quarter.",
             "status": "complete", "citations": [CITATION]}]})
    return httpx.Response(404, json={"detail": f"no route {path}"})


def read(answer) -> str:
    return "".join(answer)


def test_a_first_question_creates_the_conversation_then_streams_its_answer_with_the_token():
    server = StandIn(stored_api)
    chat = server.chat(token=TOKEN)

    first = chat.ask("When is the Determination Date?")
    text = read(first)
    outcome = first.end()
    read(chat.ask("And the Distribution Date?"))

    assert text == "The last Business Day of each quarter."
    assert outcome.status == "complete"
    assert [(c.number, c.document, c.section) for c in outcome.citations] == [
        (1, "harbour-trust.md", "1.2 Determination Date")]
    assert [(r.method, r.url.path) for r in server.requests] == [
        ("POST", "/api/v1/conversations"),
        ("POST", f"/api/v1/conversations/{CONVERSATION}/messages"),
        ("POST", f"/api/v1/conversations/{CONVERSATION}/messages"),
    ]
    assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {TOKEN}"}
    assert json.loads(server.requests[1].content) == {"content": "When is the Determination Date?", "stream": True}


def test_a_stateless_chat_sends_the_history_it_kept_and_creates_no_conversation():
    server = StandIn(lambda request: httpx.Response(200, content=answered("On the fifteenth.")))
    chat = server.chat(stateless=True)

    for question in ("When is the Determination Date?", "And the Distribution Date?"):
        answer = chat.ask(question)
        read(answer)
        answer.end()

    assert {r.url.path for r in server.requests} == {"/api/v1/rag/query"}
    assert json.loads(server.requests[1].content) == {
        "query": "And the Distribution Date?", "stream": True,
        "conversation_history": [{"role": "user", "content": "When is the Determination Date?"},
                                 {"role": "assistant", "content": "On the fifteenth."}],
    }


def test_a_comparison_s_plan_and_coverage_come_back_from_the_answer_s_last_event():
    coverage = {"documents_read": 1, "documents_in_scope": 2,
                "left_out": [{"document": "lease-2025.md", "why": "nothing in it matched the question"}]}
    server = StandIn(lambda request: httpx.Response(200, content=answered(
        "Monthly.", plan="compare", plan_documents=["lease-2024.md", "lease-2025.md"], coverage=coverage)))
    answer = server.chat(stateless=True).ask("Compare the 2024 lease and the 2025 lease")
    read(answer)

    outcome = answer.end()

    assert covered_line(outcome.approach, outcome.coverage) == (
        "Compared lease-2024.md and lease-2025.md: covered 1 of 2 documents. "
        "Left out: lease-2025.md (nothing in it matched the question).")


def test_an_answer_from_an_older_server_has_no_plan():
    answer = StandIn(lambda request: httpx.Response(200, content=answered("Monthly."))).chat(stateless=True).ask("Rent?")
    read(answer)

    assert (answer.end().approach, answer.end().coverage) == (None, None)


def test_an_error_event_is_one_readable_error():
    server = StandIn(lambda request: httpx.Response(200, content=sse(
        ("delta", {"text": "The "}), ("error", {"detail": "the LLM server is not running at http://127.0.0.1:8000/v1"}))))
    answer = server.chat(stateless=True).ask("When is the Determination Date?")

    with pytest.raises(DocchatError, match="^the LLM server is not running"):
        read(answer)
    assert answer.end().status == "interrupted"


def test_a_missing_token_is_said_in_one_line():
    server = StandIn(lambda request: httpx.Response(401, json={"detail": "a bearer token is required"}))

    with pytest.raises(DocchatError, match="give --token"):
        server.chat().conversations()


def test_a_validation_error_names_what_was_wrong():
    server = StandIn(lambda request: httpx.Response(422, json={"detail": [
        {"loc": ["body", "content"], "msg": "String should have at least 1 character", "type": "string_too_short"}]}))

    with pytest.raises(DocchatError, match=r"\(422\): String should have at least 1 character"):
        read(server.chat(stateless=True).ask(" "))


def test_no_server_at_the_url_is_said_in_one_line():
    def refuse(request):
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(DocchatError, match=f"no docchat API is running at {URL}"):
        StandIn(refuse).chat().conversations()


def test_open_finds_a_conversation_by_the_start_of_its_id_and_shows_its_last_messages():
    chat = StandIn(stored_api).chat()

    title, messages = chat.open(CONVERSATION[:8])

    assert title == "Harbour trust dates"
    assert chat.conversation_id == CONVERSATION
    assert [(m.role, m.content) for m in messages] == [
        ("user", "When is the Determination Date?"), ("assistant", "The last Business Day of each quarter.")]
    assert messages[-1].citations[0].document == "harbour-trust.md"


class EndlessAnswer(httpx.SyncByteStream):
    """An answer that would go on for ever; records whether the client hung up."""

    closed = False

    def __iter__(self):
        while True:
            yield sse(("delta", {"text": "word "}))

    def close(self) -> None:
        self.closed = True


def test_ending_an_answer_early_hangs_up_and_keeps_what_arrived():
    stream = EndlessAnswer()
    answer = StandIn(lambda request: httpx.Response(200, stream=stream)).chat(stateless=True).ask("Tell me all.")
    deltas = iter(answer)
    next(deltas), next(deltas)

    outcome = answer.end()

    assert stream.closed
    assert outcome.status == "interrupted"
