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
from docchat.llm import server_facts
from docchat.llm.server_kinds import ASSUMED_WINDOW, TRAITS, ServerKind, WindowSource
from docchat.llm.watchdog import notice


@dataclass(frozen=True)
class ServerInfo:
    base_url: str
    model: str
    # The window docchat plans with: the server's, else the user's setting, else an assumed one.
    max_model_len: int
    # Where the server read the weights (vLLM's `root`): a folder on this machine when it runs here.
    root: str | None = None
    kind: ServerKind = ServerKind.VLLM
    models: tuple[str, ...] = ()
    window_source: str = WindowSource.REPORTED.value
    # Where the window came from, or why the server did not say it.
    window_note: str = ""

    @property
    def server(self) -> str:
        return TRAITS[self.kind].label

    @property
    def reports_prefix_cache(self) -> bool:
        return TRAITS[self.kind].reports_prefix_cache

    @property
    def continues_answers(self) -> bool:
        return TRAITS[self.kind].continues

    @property
    def sampling_options(self) -> tuple[str, ...]:
        return tuple(TRAITS[self.kind].sampling)

    @property
    def constrains(self) -> bool:
        return TRAITS[self.kind].constraint is not None


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


def is_healthy(base_url: str, *, timeout: float = 2.0, kind: ServerKind | None = None,
               api_key: str | None = None) -> bool:
    """The server's own health check where it has one (vLLM's and llama.cpp's /health), else
    whether /v1/models answers. `kind` None: /health, or /v1/models where there is no /health."""
    path = TRAITS[kind].health_path if kind is not None else "/health"
    try:
        if path is not None:
            status = httpx.get(f"{root_url(base_url)}{path}", timeout=timeout, verify=tls()).status_code
            if status != 404 or kind is not None:
                return status == 200
        return httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout, verify=tls(),
                         headers=auth(api_key)).status_code == 200
    except httpx.HTTPError:
        return False


def fetch_info(base_url: str, *, expected_model: str | None = None, timeout: float = 5.0,
               api_key: str | None = None, kind: ServerKind | None = None, window: int | None = None) -> ServerInfo:
    """What the server serves and its window. `kind`: what it was found to be before (else it is
    detected, a few requests); `window`: the user's setting (DOCCHAT_LLM_WINDOW), used where the
    server does not say, or says more."""
    with httpx.Client(timeout=timeout, verify=tls(), headers=auth(api_key)) as http:
        models = _models(http, base_url)
        get, post = _asking(http, root_url(base_url))
        kind = kind or server_facts.detect(get, post, models)
        models = server_facts.chat_models(kind, get, models)
        chosen = next((m for m in models if m.get("id") == expected_model), None) if expected_model else models[0]
        if chosen is None:
            served = ", ".join(m.get("id", "?") for m in models)
            raise ModelMissing(f"the LLM server at {base_url} does not serve {expected_model} (it serves {served})")
        said = server_facts.window(kind, get, post, chosen)
    tokens, source = _window(said, window, TRAITS[kind].default_window)
    root = chosen.get("root")
    return ServerInfo(base_url=base_url, model=chosen["id"], max_model_len=tokens,
                      root=root if isinstance(root, str) else None, kind=kind,
                      models=tuple(m["id"] for m in models if isinstance(m.get("id"), str)),
                      window_source=source.value, window_note=said.note)


def _models(http: httpx.Client, base_url: str) -> list[dict]:
    try:
        response = http.get(f"{base_url.rstrip('/')}/models")
        if response.status_code == 401:
            raise LLMUnavailable(f"the LLM server at {base_url} refused docchat's key: set DOCCHAT_LLM_API_KEY to "
                                 "the key it was started with, or stop it and let docchat start its own")
        response.raise_for_status()
        models = response.json().get("data") or []
    except httpx.ConnectError:
        raise LLMUnavailable(notice(base_url) or f"the LLM server is not running at {base_url}") from None
    except (httpx.HTTPError, ValueError, AttributeError) as error:
        raise LLMUnavailable(f"the LLM server at {base_url} did not answer /models properly: {error}") from None
    models = [model for model in models if isinstance(model, dict) and isinstance(model.get("id"), str)]
    if not models:
        raise ModelMissing(f"the LLM server at {base_url} serves no model")
    return models


def _asking(http: httpx.Client, root: str):
    """GET and POST under the server's root that answer None instead of failing."""

    def get(path: str) -> httpx.Response | None:
        try:
            return http.get(f"{root}{path}")
        except httpx.HTTPError:
            return None

    def post(path: str, body: dict) -> httpx.Response | None:
        try:
            return http.post(f"{root}{path}", json=body)
        except httpx.HTTPError:
            return None

    return get, post


def _window(said: server_facts.Window, setting: int | None, default: int) -> tuple[int, WindowSource]:
    """The server's window, unless the user's setting is smaller; the user's where the server
    says none; else the server's default, or the assumed one. Never more than the model takes."""
    if said.tokens and (setting is None or setting >= said.tokens):
        return said.tokens, WindowSource.REPORTED
    if setting:
        return (min(setting, said.limit) if said.limit else setting), WindowSource.USER
    assumed = min(default, ASSUMED_WINDOW)
    return (min(assumed, said.limit) if said.limit else assumed), WindowSource.ASSUMED


def info_if_up(base_url: str, *, api_key: str | None = None, timeout: float = 1.5, **facts) -> ServerInfo | None:
    """What the server serves, or None when it does not answer (yet). `facts`: as fetch_info's."""
    try:
        return fetch_info(base_url, timeout=timeout, api_key=api_key, **facts)
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
