"""`docchat chat --url`: the terminal client over a running docchat HTTP API (/api/v1).

Answers stream as server-sent events (`delta` events, then one `done` or `error`). Stopping an
answer closes its connection: the server keeps what it sent as interrupted, as the page's Stop
does. Every failure here is a one-line DocchatError; nothing from httpx reaches the terminal.
"""

from __future__ import annotations

import json
from typing import Iterator

import httpx

from docchat.exchange import citation_wire, plan_wire
from docchat.cli.terminal_backends import SHOWN_ON_OPEN, Answer, Listed, Outcome, Said, stateless_refusal
from docchat.domain import EvidenceStrength, Status
from docchat.errors import DocchatError

API = "/api/v1"


class HttpChat:
    """Stored conversations on the server, or (`stateless`) history kept here and sent each time."""

    def __init__(self, url: str, *, token: str | None = None, stateless: bool = False,
                 transport: httpx.BaseTransport | None = None):
        self.url = url.rstrip("/")
        self.stateless = stateless
        self.conversation_id: str | None = None
        self._history: list[dict] = []
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        # No read timeout: an answer may wait long for its first token, and the server bounds that.
        self._http = httpx.Client(base_url=self.url, headers=headers, transport=transport,
                                  timeout=httpx.Timeout(30.0, connect=5.0, read=None))

    def ask(self, question: str) -> Answer:
        if self.stateless:
            body = {"query": question, "conversation_history": list(self._history), "stream": True}
            return StreamedAnswer(self, f"{API}/rag/query", body,
                                  kept=lambda text: self._keep(question, text))
        if self.conversation_id is None:
            # The contract posts messages to a conversation that exists; the server titles it
            # from this first question.
            self.conversation_id = self._json("POST", f"{API}/conversations", json={})["id"]
        return StreamedAnswer(self, f"{API}/conversations/{self.conversation_id}/messages",
                              {"content": question, "stream": True})

    def _keep(self, question: str, text: str) -> None:
        if text:
            self._history += [{"role": "user", "content": question}, {"role": "assistant", "content": text}]

    def new_conversation(self) -> None:
        self.conversation_id = None
        self._history = []

    def conversations(self) -> list[Listed]:
        return [Listed(str(c["id"]), str(c.get("title") or ""), bool(c.get("pinned")))
                for c in self._json("GET", f"{API}/conversations")]

    def open(self, prefix: str) -> tuple[str, list[Said]]:
        if self.stateless:
            raise stateless_refusal("open a stored conversation")
        # The API takes any unique start of an id, and says which ids a too-short one matches.
        found = self._json("GET", f"{API}/conversations/{prefix}")
        messages = [m for m in found.get("messages") or [] if m.get("role") in ("user", "assistant")]
        self.conversation_id = found["id"]
        return str(found.get("title") or ""), [
            Said(m["role"], str(m.get("content") or ""), str(m.get("status") or Status.COMPLETE.value),
                 citation_wire.from_api(m.get("citations"))) for m in messages[-SHOWN_ON_OPEN:]]

    def export(self, format: str) -> bytes:
        if self.stateless:
            raise stateless_refusal("export")
        if self.conversation_id is None:
            raise DocchatError("no conversation to export yet: ask a question or /open one first")
        return self._send("GET", f"{API}/conversations/{self.conversation_id}/export",
                          params={"format": format}).content

    def close(self) -> None:
        self._http.close()

    # requests

    def _json(self, method: str, path: str, **options):
        response = self._send(method, path, **options)
        try:
            return response.json()
        except ValueError:
            raise DocchatError(f"the docchat API at {self.url} sent a reply that is not JSON") from None

    def _send(self, method: str, path: str, **options) -> httpx.Response:
        try:
            response = self._http.request(method, path, **options)
        except httpx.HTTPError as error:
            raise unreachable(self.url, error) from None
        if response.is_error:
            raise refused(self.url, response.status_code, response.content)
        return response

    def open_stream(self, path: str, body: dict) -> httpx.Response:
        try:
            response = self._http.send(self._http.build_request("POST", path, json=body), stream=True)
        except httpx.HTTPError as error:
            raise unreachable(self.url, error) from None
        if response.is_error:
            try:
                raw = response.read()
            finally:
                response.close()
            raise refused(self.url, response.status_code, raw)
        return response


class StreamedAnswer:
    """One answer's event stream. Its request is sent when iteration begins."""

    def __init__(self, chat: HttpChat, path: str, body: dict, *, kept=lambda text: None):
        self._chat = chat
        self._path = path
        self._body = body
        self._kept = kept
        self._response: httpx.Response | None = None
        self._text = ""
        self._final: dict | None = None
        self._outcome: Outcome | None = None

    def __iter__(self) -> Iterator[str]:
        self._response = self._chat.open_stream(self._path, self._body)
        try:
            for event, data in events(self._response.iter_lines()):
                if event == "delta":
                    text = str(data.get("text") or "")
                    self._text += text
                    yield text
                elif event == "done":
                    self._final = data
                    return
                elif event == "error":
                    raise DocchatError(str(data.get("detail") or "the answer failed"))
        except httpx.HTTPError as error:
            raise DocchatError(f"the connection to the docchat API at {self._chat.url} broke: {error}") from None
        finally:
            self._response.close()
        raise DocchatError(f"the docchat API at {self._chat.url} ended the answer before it was finished")

    def end(self) -> Outcome:
        if self._outcome is None:
            if self._response is not None:
                # Hanging up is how a client stops an answer: the server keeps it as interrupted.
                self._response.close()
            final = self._final or {}
            status = final.get("status") or (Status.INTERRUPTED.value if self._text else Status.ERROR.value)
            self._outcome = Outcome(str(status), citation_wire.from_api(final.get("citations")),
                                    evidence=EvidenceStrength.from_dict(final.get("evidence")), model=final.get("model"),
                                    cited=citation_wire.from_api(final.get("cited")),
                                    check=citation_wire.check_from_api(final.get("citation_check")),
                                    **plan_wire.from_api(final))
            self._kept(str(final.get("answer", self._text)))
        return self._outcome


def events(lines: Iterator[str]) -> Iterator[tuple[str, dict]]:
    """(event, data) pairs of a server-sent event stream whose data are JSON objects."""
    event, data = "message", []
    for line in lines:
        if not line:
            if data:
                yield event, _parsed("\n".join(data))
            event, data = "message", []
        elif line.startswith(":"):
            continue  # a comment: servers send them to keep the connection alive
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data:
        yield event, _parsed("\n".join(data))


def _parsed(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        raise DocchatError(f"the docchat API sent an event that is not JSON: {text[:80]}") from None
    return value if isinstance(value, dict) else {}


def unreachable(url: str, error: httpx.HTTPError) -> DocchatError:
    if isinstance(error, httpx.ConnectError):
        return DocchatError(f"no docchat API is running at {url} (start one, or leave out --url)")
    return DocchatError(f"the docchat API at {url} did not answer: {error}")


def refused(url: str, status: int, raw: bytes) -> DocchatError:
    if status == 401:
        return DocchatError(f"the docchat API at {url} wants a valid token: give --token")
    try:
        detail = json.loads(raw).get("detail")
    except (ValueError, AttributeError):
        detail = None
    if isinstance(detail, list):  # a validation error: one entry per field
        detail = "; ".join(str(d.get("msg", d)) if isinstance(d, dict) else str(d) for d in detail)
    return DocchatError(f"the docchat API refused ({status}): {detail or raw[:120].decode('utf-8', 'replace')}")
