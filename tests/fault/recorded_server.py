"""A server on 127.0.0.1 that answers with the recorded responses of a real one (Ollama, LM
Studio, llama.cpp's servers, vLLM), from tests/fault/recorded/<name>.json.

Each key of the file is "METHOD /path" (or "POST /path <model>" for a body naming a model, as
Ollama's /api/show takes); its value is the JSON body answered with 200 (a string is answered as
text). Any other route is a 404, as the real server's missing route is. A recorded body cannot
count a new text, so the tokenize routes a recording has count words instead (a stand-in
tokenizer, in each server's shape: llama-cpp-python's adds a BOS token, as it does for a model
that has one), and llama-server's /apply-template renders ChatML; vLLM's count of a whole chat
stays the recorded one. POST /v1/chat/completions
streams a short answer the OpenAI way and records the request's body in `completions`, so tests
can see which sampling options docchat sent; every request's "METHOD /path" is in `asked`.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RECORDED = Path(__file__).parent / "recorded"
ANSWER = ["The Determination Date ", "is the 15th."]


def recorded(name: str) -> dict:
    return {key: value for key, value in json.loads((RECORDED / f"{name}.json").read_text()).items()
            if not key.startswith("_")}


class RecordedServer:
    def __init__(self, name: str) -> None:
        self.routes = recorded(name)
        self.completions: list[dict] = []
        # How each streamed answer ends: "length" makes it an answer cut at the token limit.
        self.finish_reason = "stop"
        self.asked: list[str] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True, name="recorded-llm-server")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> "RecordedServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)


def _handler_for(server: RecordedServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # keep test output quiet
            pass

        def do_GET(self):
            self._answer("GET", {})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path == "/v1/chat/completions":
                server.asked.append(f"POST {self.path}")
                server.completions.append(body)
                self._stream()
            else:
                self._answer("POST", body)

        def _answer(self, method: str, body: dict) -> None:
            key = f"{method} {self.path}"
            server.asked.append(key)
            named = f"{key} {body.get('model')}" if isinstance(body, dict) else key
            for candidate in (named, key):
                if candidate in server.routes:
                    self._send(200, _counted(self.path, body) or server.routes[candidate])
                    return
            self._send(404, {"error": f"no route {self.path}"})

        def _send(self, status: int, payload) -> None:
            if isinstance(payload, str):
                data, kind = payload.encode(), "text/plain; charset=utf-8"
            else:
                data, kind = (b"" if payload is None else json.dumps(payload).encode()), "application/json"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self) -> None:
            events = [{"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
                      for piece in ANSWER]
            events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": server.finish_reason}]})
            data = b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events) + b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _counted(path: str, body: dict) -> dict | None:
    """A tokenize route's answer to a text: one token per word."""
    if path == "/extras/tokenize/count" and isinstance(body.get("input"), str):
        return {"count": 1 + len(body["input"].split())}
    if path == "/tokenize" and isinstance(body.get("content"), str):
        return {"tokens": list(range(len(body["content"].split())))}
    if path == "/apply-template" and isinstance(body.get("messages"), list):
        return {"prompt": "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in body["messages"])
                + "<|im_start|>assistant\n"}
    if path == "/tokenize" and isinstance(body.get("prompt"), str):
        return {"count": len(body["prompt"].split())}
    return None
