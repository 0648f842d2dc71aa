"""Streaming chat completions from an OpenAI-compatible server (vLLM first), read with httpx.

Every failure leaves here as a docchat error a user can read. The stream is read on a
worker thread so that the caller can enforce the first-token and between-token timeouts
and stop a generation at once; the caller then closes the answer's HTTP client, which makes
vLLM abort the request. A failed connection is retried a few times; a started stream is not.

Why not LlamaIndex's OpenAILike (or the openai SDK under it): one streaming request is all
docchat asks of them, and importing them cost a one-shot `docchat ask` about 3.3 s of CPU
before its question could reach the model (llama_index.core, then openai's types and every
resource module, on the first request). The request body is the one OpenAILike sent, and
the errors are read the way the SDK read them.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from typing import Callable, Iterator

from docchat.domain.grounding import Constraint
from docchat.errors import (
    ContextOverflow,
    GenerationStopped,
    LLMServerError,
    LLMTimeout,
    LLMUnavailable,
    ModelMissing,
    StreamCut,
)
from docchat.llm.discovery import PrefixCache, ServerInfo, auth, fetch_info, is_healthy, prefix_cache, tls
from docchat.llm.server_kinds import TRAITS, ServerKind
from docchat.llm.server_tokens import server_token_count
from docchat.llm.watchdog import notice

_POLL_S = 0.05
# The header each answer's request names its conversation in: a router in front of several
# model servers (vLLM's production-stack router: --routing-logic session --session-key
# x-docchat-conversation) sends a conversation to the same one, whose prefix cache holds it.
CONVERSATION_HEADER = "X-Docchat-Conversation"


@dataclass(frozen=True)
class Sampling:
    temperature: float = 0.0
    top_p: float | None = None
    top_k: int | None = None
    # Beside OpenAI's options, sent only to a server that takes them (llm.server_kinds), 1.0 = off.
    repetition_penalty: float | None = None


@dataclass(frozen=True)
class Timeouts:
    connect_s: float = 5.0
    first_token_s: float = 120.0
    between_tokens_s: float = 60.0
    connect_retries: int = 2
    retry_backoff_s: float = 0.5


@dataclass
class Generation:
    """Text deltas as they arrive; usage and finish reason once the stream has ended."""

    model: str
    text: str = ""
    usage: dict | None = None
    finish_reason: str | None = None
    _chunks: Iterator[str] = field(default=iter(()), repr=False)

    def __iter__(self) -> Iterator[str]:
        return self._chunks

    def close(self) -> None:
        """Hangs up on the server now if the answer is still streaming."""
        self._chunks.close()


class ServerGateway:
    """docchat's one client of an OpenAI-compatible LLM server: vLLM (the server docchat starts),
    llama.cpp's, Ollama, LM Studio or a plain one, each asked only what its kind takes."""

    def __init__(self, base_url: str, *, expected_model: str | None = None, sampling: Sampling = Sampling(),
                 varied: Sampling | None = None, timeouts: Timeouts = Timeouts(),
                 api_key: Callable[[], str | None] = lambda: None, window: int | None = None):
        """`window`: the user's (DOCCHAT_LLM_WINDOW), for a server that does not say its own."""
        self.base_url = base_url.rstrip("/")
        # Asked at each request: the key of the server docchat starts is new at each start.
        self.api_key = api_key
        self._expected_model = expected_model
        self._sampling = sampling
        # A regenerated answer's: greedy decoding would write the same answer again.
        self._varied = varied or sampling
        self._timeouts = timeouts
        self._info: ServerInfo | None = None
        self._window = window
        # What the server was found to be: detected once, again only after it failed to answer.
        self._kind: ServerKind | None = None
        self._listeners: list[Callable[[ServerInfo], None]] = []
        self._lock = threading.Lock()

    def info(self, *, refresh: bool = False) -> ServerInfo:
        with self._lock:
            if self._info is None or refresh:
                try:
                    self._info = fetch_info(self.base_url, expected_model=self._expected_model,
                                            timeout=self._timeouts.connect_s, api_key=self.api_key(),
                                            kind=self._kind, window=self._window)
                except LLMUnavailable:
                    self._kind = None
                    raise
                self._kind = self._info.kind
                for listener in self._listeners:
                    listener(self._info)
            return self._info

    def watch(self, listener: Callable[[ServerInfo], None]) -> None:
        self._listeners.append(listener)

    def healthy(self, *, timeout: float = 2.0) -> bool:
        return is_healthy(self.base_url, timeout=timeout, kind=self._kind, api_key=self.api_key())

    def prefix_cache(self) -> PrefixCache | None:
        """None where the server reports none (only vLLM does): "not reported", never 0%."""
        info = self._info
        return prefix_cache(self.base_url) if info is not None and info.reports_prefix_cache else None

    def count_tokens(self, messages: list[dict]) -> int:
        """The server's own count of a chat prompt (generation prompt included); raises LLMError."""
        import httpx

        info = self.info()
        try:
            return server_token_count(info, messages, api_key=self.api_key())
        except LookupError as error:
            raise LLMServerError(str(error)) from None
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as error:
            raise LLMServerError(f"counting tokens at the server failed ({error})") from None

    def stream(self, messages: list[dict], *, max_tokens: int, stop: threading.Event | None = None,
               continue_last: bool = False, varied: bool = False, conversation: str | None = None,
               constraint: Constraint | None = None) -> Generation:
        """`continue_last`: the last message is an assistant answer cut short, and the model
        goes on writing it (vLLM's continue_final_message) instead of starting a new one.
        `varied`: a new version of an answer, with the regeneration's sampling. `conversation`:
        sent in CONVERSATION_HEADER. `constraint`: sent as this server takes one, if it does."""
        info = self.info()
        generation = Generation(model=info.model)
        body = self._body(info, messages, max_tokens, continue_last, self._varied if varied else self._sampling)
        body.update(_constrained(info.kind, constraint))
        headers = {CONVERSATION_HEADER: conversation} if conversation else {}
        generation._chunks = self._deltas(body, headers, stop or threading.Event(), generation)
        return generation

    # internals

    @staticmethod
    def _body(info: ServerInfo, messages: list[dict], max_tokens: int, continue_last: bool,
              sampling: Sampling) -> dict:
        body = {"model": info.model, "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
                "max_tokens": max_tokens, "temperature": sampling.temperature, "stream": True,
                "stream_options": {"include_usage": True}}
        # Each option by the name this server takes it by; one it does not take is left out.
        taken = TRAITS[info.kind].sampling
        for name, value in (("top_p", sampling.top_p), ("top_k", sampling.top_k),
                            ("repetition_penalty", sampling.repetition_penalty)):
            if value is not None and name in taken:
                body[taken[name]] = value
        # vLLM's own; the llama.cpp servers continue a last assistant message by themselves.
        if continue_last and info.kind is ServerKind.VLLM:
            body.update(continue_final_message=True, add_generation_prompt=False)
        return body

    def _deltas(self, body: dict, headers: dict[str, str], stop, generation) -> Iterator[str]:
        import httpx

        events: queue.Queue = queue.Queue()
        abandon = threading.Event()
        # One HTTP client per answer, whose sockets this side shuts down when the answer is
        # abandoned: vLLM aborts a request whose client has hung up. Closing the response
        # does not wake a worker blocked in a read; shutdown() does.
        responses: list = []
        http = httpx.Client(timeout=httpx.Timeout(None, connect=self._timeouts.connect_s), verify=tls(),
                            headers={**auth(self.api_key()), **headers}, event_hooks={"response": [responses.append]})
        worker = threading.Thread(
            target=self._pump, args=(http, body, events, abandon),
            daemon=True, name="docchat-llm-stream",
        )
        worker.start()
        started_streaming = False
        try:
            while True:
                limit = self._timeouts.between_tokens_s if started_streaming else self._timeouts.first_token_s
                kind, item = self._next_event(events, limit, stop, started_streaming)
                if kind == "retrying":
                    continue  # a fresh first-token wait for the new attempt
                if kind == "delta":
                    started_streaming = True
                    generation.text += item
                    yield item
                elif kind == "usage":
                    generation.usage = item
                elif kind == "finish":
                    generation.finish_reason = item
                elif kind == "end":
                    if generation.finish_reason is None:
                        raise StreamCut("the LLM server closed the answer before it was finished")
                    return
                else:
                    raise self._user_error(item, started_streaming)
        finally:
            abandon.set()
            for response in responses:
                _hang_up(response)
            http.close()

    def _next_event(self, events: queue.Queue, limit: float, stop: threading.Event, started: bool):
        deadline = time.monotonic() + limit
        while True:
            if stop.is_set():
                raise GenerationStopped("stopped")
            try:
                return events.get(timeout=_POLL_S)
            except queue.Empty:
                if time.monotonic() >= deadline:
                    what = "the next token" if started else "the first token"
                    raise LLMTimeout(f"the LLM server sent nothing for {limit:g} s while waiting for {what}") from None

    def _pump(self, http, body: dict, events: queue.Queue, abandon: threading.Event) -> None:
        import httpx

        # A backstop for a worker stuck in a read; the caller's own timeouts fire first.
        backstop = max(self._timeouts.first_token_s, self._timeouts.between_tokens_s) + 30
        timeout = httpx.Timeout(backstop, connect=self._timeouts.connect_s)
        attempts = self._timeouts.connect_retries + 1
        for attempt in range(attempts):
            try:
                with _requested(http, f"{self.base_url}/chat/completions", body, timeout) as response:
                    if not response.is_success:
                        response.read()
                        events.put(("error", _Refused(response)))
                        return
                    for chunk in _server_sent_events(response):
                        if abandon.is_set():
                            return
                        choices = chunk.get("choices") or []
                        if choices:
                            delta = (choices[0].get("delta") or {}).get("content")
                            if delta:
                                events.put(("delta", delta))
                            if choices[0].get("finish_reason"):
                                events.put(("finish", choices[0]["finish_reason"]))
                        if chunk.get("usage") is not None:
                            events.put(("usage", _without_none(chunk["usage"])))
                events.put(("end", None))
                return
            except _ConnectionFailed as error:
                # Nothing was answered yet, so nothing can have been shown: safe to ask again.
                if attempt == attempts - 1 or abandon.is_set():
                    events.put(("error", error))
                    return
                if abandon.wait(self._timeouts.retry_backoff_s * (attempt + 1)):
                    return
                events.put(("retrying", attempt + 1))
            except Exception as error:  # handed to the caller, who turns it into a user error
                events.put(("error", error))
                return

    def _user_error(self, error: Exception, started_streaming: bool) -> Exception:
        import httpx

        if started_streaming and isinstance(error, (httpx.HTTPError, _StreamError)):
            return StreamCut("the connection to the LLM server broke in the middle of the answer")
        if isinstance(error, _ConnectionFailed):
            self._info = None
            if isinstance(error.cause, httpx.ConnectError):
                return LLMUnavailable(notice(self.base_url) or f"the LLM server is not running at {self.base_url}")
            return LLMUnavailable(f"the connection to the LLM server at {self.base_url} failed: {error.cause}")
        if isinstance(error, _Refused):
            text = error.message
            if error.status == 400:
                if "context" in text.lower() or "max_tokens" in text.lower() or "too long" in text.lower():
                    return ContextOverflow(f"the prompt does not fit the model's window: {text}")
                return LLMServerError(f"the LLM server refused the request: {text}")
            if error.status == 404:
                self._info = None
                return ModelMissing(f"the LLM server does not serve this model: {text}")
            return LLMServerError(f"the LLM server failed ({error.status}): {text}")
        if isinstance(error, (_StreamError, httpx.HTTPError)):
            return StreamCut(f"the LLM server's answer broke off: {error}")
        return LLMServerError(f"unexpected failure talking to the LLM server: {error}")


class _ConnectionFailed(Exception):
    """No answer came back to the request (refused, reset, timed out): it may be sent again."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class _Refused(Exception):
    """The server answered the request with an error status."""

    def __init__(self, response) -> None:
        self.status = response.status_code
        self.message = _message(response)
        super().__init__(f"{self.status}: {self.message}")


class _StreamError(Exception):
    """An error the server sent as an event in the middle of the stream."""


@contextmanager
def _requested(http, url: str, body: dict, timeout) -> Iterator:
    """The streamed response to a POST; a failure before it arrives is `_ConnectionFailed`
    (the request may be sent again), one while it is read is not."""
    import httpx

    request = http.build_request("POST", url, json=body, timeout=timeout)
    try:
        response = http.send(request, stream=True)
    except httpx.TransportError as error:
        raise _ConnectionFailed(error) from error
    try:
        yield response
    finally:
        response.close()


def _server_sent_events(response) -> Iterator[dict]:
    """The JSON of each `data:` event until `[DONE]`; an event carrying an error raises it."""
    data: list[str] = []
    for line in chain(response.iter_lines(), [""]):  # the last event may lack its blank line
        if line:
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
            continue
        if not data:
            continue
        text, data = "\n".join(data), []
        if text.startswith("[DONE]"):
            return
        event = json.loads(text)
        if isinstance(event, dict) and event.get("error"):
            error = event["error"]
            message = error.get("message") if isinstance(error, dict) else None
            raise _StreamError(message if isinstance(message, str) else "An error occurred during streaming")
        yield event


def _without_none(value):
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    return value


def _hang_up(response) -> None:
    stream = response.extensions.get("network_stream")
    connection = stream.get_extra_info("socket") if stream is not None else None
    if connection is not None:
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


def _message(response) -> str:
    """What an error reply says: vLLM puts the message at the top level, OpenAI under "error"."""
    text = response.text.strip()
    try:
        body = json.loads(text)
    except ValueError:
        return (text or f"Error code: {response.status_code}")[:300]
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        nested = error.get("error")
        return str(error.get("message") or (nested.get("message") if isinstance(nested, dict) else None)
                   or error)[:300]
    return f"Error code: {response.status_code} - {body}"[:300]


def _constrained(kind: ServerKind, constraint: Constraint | None) -> dict:
    """The fields that carry a constraint to a server of this kind; none when it takes none."""
    if constraint is None:
        return {}
    way = TRAITS[kind].constraint
    if way == "structured_outputs":
        return {"structured_outputs": {"regex": constraint.regex}}
    if way == "grammar":
        return {"grammar": constraint.grammar}
    return {}
