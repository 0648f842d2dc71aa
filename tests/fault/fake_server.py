"""A fake OpenAI-compatible server (vLLM's shape) whose misbehaviour a test chooses.

It answers GET /v1/models and /health, and streams POST /v1/chat/completions as server-sent
events over HTTP/1.1 chunked transfer, the way vLLM's uvicorn does. `mode` picks how a
completion goes: ok, 500, overflow, cut, stall_first, stall_middle, slow, reset (drops every
connection) or flaky (drops the first `resets`). Every completion request body is recorded in
`requests`, so tests can assert what docchat sent and how many attempts it made; `hung_up` is
set when a client disconnects from an unfinished answer. Stalls wait on an event that `stop()`
sets, so shutting down never waits for them.
"""

from __future__ import annotations

import json
import select
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "fake-model"
MAX_MODEL_LEN = 4096
ANSWER = ["The Determination ", "Date is ", "the 15th", "."]
PARTIAL = ["The Determination ", "Date is "]
SLOW_PIECES = [f"word{i} " for i in range(40)]
USAGE = {"prompt_tokens": 57, "completion_tokens": 9, "total_tokens": 66}
OVERFLOW_MESSAGE = (
    "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens "
    "(4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion."
)
# Longest a stall lasts when nobody stops the server; tests end long before.
STALL_S = 60.0


class FakeLLMServer:
    def __init__(self, port: int = 0, *, model: str = MODEL, root: str | None = None) -> None:
        # What /v1/models says: the model's name, and where its weights are (vLLM's `root`).
        self.model, self.root = model, root
        self.mode = "ok"
        # In mode "flaky", how many completion attempts are dropped before one is answered.
        self.resets = 2
        self.requests: list[dict] = []
        # The headers of each completion request, names in lower case, in order.
        self.headers: list[dict[str, str]] = []
        # Every path asked for with GET (/v1/models, /health), in order.
        self.looked_up: list[str] = []
        # Set when a client hangs up on an answer before its end, as vLLM notices to abort it.
        self.hung_up = threading.Event()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True, name="fake-llm-server")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def attempts(self) -> int:
        return len(self.requests)

    def start(self) -> "FakeLLMServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def record(self, body: dict) -> int:
        with self._lock:
            self.requests.append(body)
            return len(self.requests)

    def wait(self, seconds: float) -> bool:
        """Sleeps unless the server is stopping; True when it is."""
        return self._stopping.wait(seconds)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()


def _handler_for(server: FakeLLMServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # keep test output quiet
            pass

        def do_GET(self):
            server.looked_up.append(self.path)
            if self.path.rstrip("/") == "/v1/models":
                self._json(200, {"object": "list", "data": [
                    {"id": server.model, "object": "model", "owned_by": "fake", "max_model_len": MAX_MODEL_LEN,
                     "root": server.root or server.model}]})
            elif self.path == "/health":
                self._json(200, None)
            else:
                self._json(404, {"object": "error", "message": f"no route {self.path}", "code": 404})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._json(404, {"object": "error", "message": f"no route {self.path}", "code": 404})
                return
            server.headers.append({name.lower(): value for name, value in self.headers.items()})
            attempt = server.record(body)
            mode = server.mode
            try:
                if mode == "reset" or (mode == "flaky" and attempt <= server.resets):
                    self._drop()
                elif mode == "500":
                    self._json(500, {"error": {"message": "CUDA error: an illegal memory access was encountered",
                                               "type": "InternalServerError", "param": None, "code": 500}})
                elif mode == "overflow":
                    self._json(400, {"object": "error", "message": OVERFLOW_MESSAGE, "type": "BadRequestError",
                                     "param": None, "code": 400})
                else:
                    self._stream(mode, body)
            except (BrokenPipeError, ConnectionResetError):
                # The client went away (stopped, abandoned, timed out): so does the answer.
                server.hung_up.set()
                self.close_connection = True

        # answers

        def _stream(self, mode: str, body: dict) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.wfile.flush()
            created = int(time.time())
            if mode == "stall_first":
                self._stall()
                return
            pieces = {"cut": PARTIAL, "stall_middle": PARTIAL, "slow": SLOW_PIECES}.get(mode, ANSWER)
            self._event(_chunk(created, {"role": "assistant", "content": ""}))
            for piece in pieces:
                if mode == "slow" and self._stall(0.2):
                    return
                self._event(_chunk(created, {"content": piece}))
            if mode == "cut":
                # Gone mid-answer: no finish_reason, no [DONE], no last chunk of the body.
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if mode == "stall_middle":
                self._stall()
                return
            self._event(_chunk(created, {}, finish_reason="stop"))
            if (body.get("stream_options") or {}).get("include_usage"):
                self._event({**_chunk(created, None), "choices": [], "usage": USAGE})
            self._write_chunk(b"data: [DONE]\n\n")
            self._write_chunk(b"")

        def _stall(self, seconds: float = STALL_S) -> bool:
            """Sends nothing for `seconds`; True, early, when the server stops or the client hangs up."""
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if self._client_gone():
                    server.hung_up.set()
                    return True
                if server.wait(min(0.05, max(0.0, deadline - time.monotonic()))):
                    return True
            return False

        def _client_gone(self) -> bool:
            # The request was read whole, so anything readable now is the client's goodbye.
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            try:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                return True

        def _event(self, payload: dict) -> None:
            self._write_chunk(f"data: {json.dumps(payload)}\n\n".encode())

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _json(self, status: int, payload) -> None:
            data = b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def _drop(self) -> None:
            """Closes the socket at once, with a reset rather than an orderly goodbye."""
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True

    return Handler


def _chunk(created: int, delta: dict | None, finish_reason: str | None = None) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL,
        "choices": [] if delta is None else [
            {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }
