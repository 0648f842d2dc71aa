"""Streaming chat completions from vLLM through LlamaIndex's OpenAILike.

Every failure leaves here as a docchat error a user can read. The stream is read on a
worker thread so that the caller can enforce the first-token and between-token timeouts
and stop a generation at once; the caller then closes the answer's HTTP client, which makes
vLLM abort the request. A failed connection is retried a few times; a started stream is not.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Iterator

from docchat.errors import (
    ContextOverflow,
    GenerationStopped,
    LLMServerError,
    LLMTimeout,
    LLMUnavailable,
    ModelMissing,
    StreamCut,
)
from docchat.llm.discovery import PrefixCache, ServerInfo, fetch_info, is_healthy, prefix_cache, server_token_count
from docchat.llm.watchdog import notice

_POLL_S = 0.05


@dataclass(frozen=True)
class Sampling:
    temperature: float = 0.0
    top_p: float | None = None
    top_k: int | None = None
    # vLLM's own sampling parameter (sent in the request's extra body), 1.0 = off.
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


class VllmGateway:
    def __init__(self, base_url: str, *, expected_model: str | None = None, sampling: Sampling = Sampling(),
                 timeouts: Timeouts = Timeouts()):
        self.base_url = base_url.rstrip("/")
        self._expected_model = expected_model
        self._sampling = sampling
        self._timeouts = timeouts
        self._info: ServerInfo | None = None
        self._lock = threading.Lock()

    def info(self, *, refresh: bool = False) -> ServerInfo:
        with self._lock:
            if self._info is None or refresh:
                self._info = fetch_info(self.base_url, expected_model=self._expected_model,
                                        timeout=self._timeouts.connect_s)
            return self._info

    def healthy(self, *, timeout: float = 2.0) -> bool:
        return is_healthy(self.base_url, timeout=timeout)

    def prefix_cache(self) -> PrefixCache | None:
        return prefix_cache(self.base_url)

    def count_tokens(self, messages: list[dict]) -> int:
        """The server's own count of a chat prompt (generation prompt included); raises LLMError."""
        import httpx

        info = self.info()
        try:
            return server_token_count(info.base_url, info.model, messages)
        except (httpx.HTTPError, KeyError, ValueError) as error:
            raise LLMServerError(f"/tokenize failed ({error})") from None

    def stream(self, messages: list[dict], *, max_tokens: int, stop: threading.Event | None = None,
               continue_last: bool = False) -> Generation:
        """`continue_last`: the last message is an assistant answer cut short, and the model
        goes on writing it (vLLM's continue_final_message) instead of starting a new one."""
        info = self.info()
        generation = Generation(model=info.model)
        generation._chunks = self._deltas(info, messages, max_tokens, stop or threading.Event(), generation,
                                          continue_last)
        return generation

    # internals

    def _llm(self, info: ServerInfo, max_tokens: int, http, continue_last: bool):
        from llama_index.llms.openai_like import OpenAILike

        extra_body = {name: value for name, value in (("top_k", self._sampling.top_k),
                                                       ("repetition_penalty", self._sampling.repetition_penalty))
                      if value is not None}
        if continue_last:
            extra_body.update(continue_final_message=True, add_generation_prompt=False)
        additional = {"stream_options": {"include_usage": True}, "extra_body": extra_body}
        if self._sampling.top_p is not None:
            additional["top_p"] = self._sampling.top_p
        return OpenAILike(
            model=info.model,
            api_base=self.base_url,
            api_key="local",
            is_chat_model=True,
            context_window=info.max_model_len,
            max_tokens=max_tokens,
            temperature=self._sampling.temperature,
            additional_kwargs=additional,
            max_retries=0,
            # A backstop for a worker stuck in a read; the caller's own timeouts fire first.
            timeout=max(self._timeouts.first_token_s, self._timeouts.between_tokens_s) + 30,
            http_client=http,
        )

    def _deltas(self, info, messages, max_tokens, stop, generation, continue_last) -> Iterator[str]:
        from llama_index.core.llms import ChatMessage

        import httpx

        chat = [ChatMessage(role=m["role"], content=m["content"]) for m in messages]
        events: queue.Queue = queue.Queue()
        abandon = threading.Event()
        # One HTTP client per answer, whose sockets this side shuts down when the answer is
        # abandoned: vLLM aborts a request whose client has hung up. Closing the LlamaIndex
        # generator leaves the socket to the GC, and close() does not wake a worker blocked
        # in a read; shutdown() does.
        responses: list = []
        http = httpx.Client(timeout=httpx.Timeout(None, connect=self._timeouts.connect_s),
                            event_hooks={"response": [responses.append]})
        worker = threading.Thread(
            target=self._pump, args=(self._llm(info, max_tokens, http, continue_last), chat, events, abandon), daemon=True,
            name="docchat-llm-stream",
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

    def _pump(self, llm, chat, events: queue.Queue, abandon: threading.Event) -> None:
        import openai

        attempts = self._timeouts.connect_retries + 1
        for attempt in range(attempts):
            sent_any = False
            try:
                stream = llm.stream_chat(chat)
                try:
                    for response in stream:
                        if abandon.is_set():
                            return
                        raw = response.raw
                        if response.delta:
                            sent_any = True
                            events.put(("delta", response.delta))
                        choices = getattr(raw, "choices", None) or []
                        if choices and choices[0].finish_reason:
                            events.put(("finish", choices[0].finish_reason))
                        if getattr(raw, "usage", None) is not None:
                            events.put(("usage", raw.usage.model_dump(exclude_none=True)))
                finally:
                    stream.close()
                events.put(("end", None))
                return
            except openai.APIConnectionError as error:
                if sent_any or attempt == attempts - 1 or abandon.is_set():
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
        import openai

        if started_streaming and isinstance(error, (openai.APIConnectionError, httpx.HTTPError, openai.APIError)):
            return StreamCut("the connection to the LLM server broke in the middle of the answer")
        if isinstance(error, openai.APIConnectionError):
            self._info = None
            if isinstance(error.__cause__, httpx.ConnectError):
                return LLMUnavailable(notice(self.base_url) or f"the LLM server is not running at {self.base_url}")
            return LLMUnavailable(f"the connection to the LLM server at {self.base_url} failed: {error.__cause__ or error}")
        if isinstance(error, openai.BadRequestError):
            text = _message(error)
            if "context" in text.lower() or "max_tokens" in text.lower() or "too long" in text.lower():
                return ContextOverflow(f"the prompt does not fit the model's window: {text}")
            return LLMServerError(f"the LLM server refused the request: {text}")
        if isinstance(error, openai.NotFoundError):
            self._info = None
            return ModelMissing(f"the LLM server does not serve this model: {_message(error)}")
        if isinstance(error, openai.APIStatusError):
            return LLMServerError(f"the LLM server failed ({error.status_code}): {_message(error)}")
        if isinstance(error, (openai.APIError, httpx.HTTPError)):
            return StreamCut(f"the LLM server's answer broke off: {error}")
        return LLMServerError(f"unexpected failure talking to the LLM server: {error}")


def _hang_up(response) -> None:
    stream = response.extensions.get("network_stream")
    connection = stream.get_extra_info("socket") if stream is not None else None
    if connection is not None:
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


def _message(error) -> str:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        return str(body.get("message") or body.get("error", {}).get("message") or body)[:300]
    return str(error)[:300]
