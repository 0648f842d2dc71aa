"""The gateway reads vLLM's server-sent events itself: the replies the fake server of this tier
does not make (an error event mid-answer, a 404 for the model, a last event without its blank
line, usage with empty fields), each from a server that sends exactly those bytes."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from docchat.errors import ModelMissing, StreamCut
from docchat.llm.gateway import Timeouts, ServerGateway

MODEL = "SmolLM2-135M-Instruct"
QUESTION = [{"role": "user", "content": "When is the Determination Date?"}]


def event(payload) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


def delta(text: str, finish: str | None = None) -> bytes:
    return event({"object": "chat.completion.chunk", "model": MODEL,
                  "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]})


@pytest.fixture
def server_sending():
    """A server whose chat completions reply with the given status and body, byte for byte."""
    reply = {"status": 200, "body": b""}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def do_GET(self):
            self._send(200, json.dumps({"data": [{"id": MODEL, "max_model_len": 4096}]}).encode())

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._send(reply["status"], reply["body"])

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    def gateway(status: int, body: bytes) -> ServerGateway:
        reply.update(status=status, body=body)
        return ServerGateway(f"http://127.0.0.1:{httpd.server_address[1]}/v1",
                           timeouts=Timeouts(first_token_s=5, between_tokens_s=5, connect_retries=0))

    yield gateway
    httpd.shutdown()
    httpd.server_close()


def test_an_error_event_in_the_middle_of_an_answer_cuts_it_keeping_what_arrived(server_sending):
    gateway = server_sending(200, delta("The Determination Date ") + event({"error": {"message": "engine died"}}))
    generation = gateway.stream(QUESTION, max_tokens=32)

    with pytest.raises(StreamCut, match="broke in the middle of the answer"):
        list(generation)
    assert generation.text == "The Determination Date "


def test_an_error_event_before_any_text_says_what_the_server_said(server_sending):
    gateway = server_sending(200, event({"error": {"message": "engine died", "code": 500}}))

    with pytest.raises(StreamCut, match="the LLM server's answer broke off: engine died"):
        list(gateway.stream(QUESTION, max_tokens=32))


def test_a_model_the_server_does_not_serve_is_model_missing_with_its_message(server_sending):
    body = json.dumps({"object": "error", "message": f"The model `{MODEL}` does not exist.",
                       "type": "NotFoundError", "code": 404}).encode()
    gateway = server_sending(404, body)

    with pytest.raises(ModelMissing, match=f"does not serve this model: The model `{MODEL}` does not exist"):
        list(gateway.stream(QUESTION, max_tokens=32))


def test_a_last_event_without_its_blank_line_still_ends_the_answer(server_sending):
    gateway = server_sending(200, delta("The 15th.", finish="stop") + b"data: [DONE]")
    generation = gateway.stream(QUESTION, max_tokens=32)

    assert "".join(generation) == "The 15th."
    assert generation.finish_reason == "stop"


def test_usage_keeps_the_counts_the_server_filled_in(server_sending):
    usage = {"prompt_tokens": 57, "completion_tokens": 3, "total_tokens": 60,
             "prompt_tokens_details": {"cached_tokens": 48, "audio_tokens": None}, "completion_tokens_details": None}
    gateway = server_sending(200, delta("The 15th.", finish="stop")
                             + event({"object": "chat.completion.chunk", "model": MODEL, "choices": [], "usage": usage})
                             + b"data: [DONE]\n\n")
    generation = gateway.stream(QUESTION, max_tokens=32)
    list(generation)

    assert generation.usage == {"prompt_tokens": 57, "completion_tokens": 3, "total_tokens": 60,
                                "prompt_tokens_details": {"cached_tokens": 48}}
