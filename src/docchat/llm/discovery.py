"""What the running server says about itself: model, window, health, counters, token counts."""

from __future__ import annotations

import functools
import re
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from docchat.errors import LLMError, LLMUnavailable, ModelMissing
from docchat.llm.watchdog import notice


@dataclass(frozen=True)
class ServerInfo:
    base_url: str
    model: str
    max_model_len: int
    # Where the server read the weights (vLLM's `root`): a folder on this machine when it runs here.
    root: str | None = None


@dataclass(frozen=True)
class PrefixCache:
    hits: float
    queries: float

    @property
    def hit_ratio(self) -> float | None:
        return self.hits / self.queries if self.queries else None


@functools.cache
def tls() -> ssl.SSLContext:
    """One TLS context for the process. httpx.get builds one per call, reading every trusted
    certificate (0.1-0.2 s), and the page asks the server's health on every rerun."""
    return httpx.create_ssl_context()


def auth(api_key: str | None) -> dict[str, str]:
    """The header of every request under /v1: checked by a server started with a key (docchat's
    own is), ignored by the others."""
    return {"Authorization": f"Bearer {api_key or 'local'}"}


def root_url(base_url: str) -> str:
    """http://host:port/v1 -> http://host:port, where /health, /metrics and /tokenize live."""
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


def listening(base_url: str, *, timeout: float = 0.5) -> bool:
    """Whether anything accepts a connection at the address: a server of any kind (vLLM,
    Ollama, LM Studio...), healthy or not. Refused: nothing is there, and docchat may serve."""
    address = urlsplit(base_url)
    try:
        with socket.create_connection((address.hostname, address.port or 80), timeout=timeout):
            return True
    except OSError:
        return False


def is_healthy(base_url: str, *, timeout: float = 2.0) -> bool:
    try:
        return httpx.get(f"{root_url(base_url)}/health", timeout=timeout, verify=tls()).status_code == 200
    except httpx.HTTPError:
        return False


def fetch_info(base_url: str, *, expected_model: str | None = None, timeout: float = 5.0,
               api_key: str | None = None) -> ServerInfo:
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout, verify=tls(), headers=auth(api_key))
        if response.status_code == 401:
            raise LLMUnavailable(f"the LLM server at {base_url} refused docchat's key: set DOCCHAT_LLM_API_KEY to "
                                 "the key it was started with, or stop it and let docchat start its own")
        response.raise_for_status()
        models = response.json().get("data") or []
    except httpx.ConnectError:
        raise LLMUnavailable(notice(base_url) or f"the LLM server is not running at {base_url}") from None
    except (httpx.HTTPError, ValueError) as error:
        raise LLMUnavailable(f"the LLM server at {base_url} did not answer /models properly: {error}") from None
    if not models:
        raise ModelMissing(f"the LLM server at {base_url} serves no model")
    chosen = next((m for m in models if m.get("id") == expected_model), None) if expected_model else models[0]
    if chosen is None:
        served = ", ".join(m.get("id", "?") for m in models)
        raise ModelMissing(f"the LLM server at {base_url} does not serve {expected_model} (it serves {served})")
    root = chosen.get("root")
    return ServerInfo(base_url=base_url, model=chosen["id"], max_model_len=int(chosen.get("max_model_len") or 0),
                      root=root if isinstance(root, str) else None)


def info_if_up(base_url: str, *, api_key: str | None = None, timeout: float = 1.5) -> ServerInfo | None:
    """What the server serves, or None when it does not answer (yet)."""
    try:
        return fetch_info(base_url, timeout=timeout, api_key=api_key)
    except LLMError:
        return None


def prefix_cache(base_url: str, *, timeout: float = 2.0) -> PrefixCache | None:
    """vLLM's prefix-cache counters from /metrics, or None when unavailable."""
    try:
        text = httpx.get(f"{root_url(base_url)}/metrics", timeout=timeout, verify=tls()).text
    except httpx.HTTPError:
        return None

    def total(name: str) -> float:
        return sum(float(value) for value in re.findall(rf"^{name}(?:{{[^}}]*}})? ([0-9.eE+-]+)$", text, re.M))

    return PrefixCache(hits=total("vllm:prefix_cache_hits_total"), queries=total("vllm:prefix_cache_queries_total"))


def server_token_count(base_url: str, model: str, messages: list[dict], *, timeout: float = 10.0) -> int:
    """The server's own count of a chat prompt, generation prompt included."""
    response = httpx.post(
        f"{root_url(base_url)}/tokenize",
        json={"model": model, "messages": messages, "add_generation_prompt": True},
        timeout=timeout, verify=tls(),
    )
    response.raise_for_status()
    return int(response.json()["count"])
