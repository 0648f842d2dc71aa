"""Which server answers, and the window it says it has, read from each one's own endpoints.

Detection asks, in order, the question each server alone answers: a `max_model_len` in
/v1/models (vLLM), /api/version (Ollama), /api/v0/models (LM Studio), /props (llama.cpp's
server), /extras/tokenize/count (llama-cpp-python); none of them: a plain OpenAI-compatible
server. A missing route costs one 404 each, and only once per server (the gateway keeps the kind).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import httpx

from docchat.llm.server_kinds import ServerKind

Get = Callable[[str], httpx.Response]
Post = Callable[[str, dict], httpx.Response]


@dataclass(frozen=True)
class Window:
    """What the server says of a model's window: `tokens` when it says what it uses, else None;
    `limit`, the most the model takes when the server says only that (Ollama, LM Studio)."""

    tokens: int | None
    note: str
    limit: int | None = None


def detect(get: Get, post: Post, models: list[dict]) -> ServerKind:
    if any("max_model_len" in model for model in models):
        return ServerKind.VLLM
    if isinstance(_json(get("/api/version")).get("version"), str):
        return ServerKind.OLLAMA
    if isinstance(_json(get("/api/v0/models")).get("data"), list):
        return ServerKind.LM_STUDIO
    props = _json(get("/props"))
    if "default_generation_settings" in props or "n_ctx" in props:
        return ServerKind.LLAMA_CPP
    if isinstance(_json(post("/extras/tokenize/count", {"input": "docchat"})).get("count"), int):
        return ServerKind.LLAMA_CPP_PYTHON
    return ServerKind.OPENAI


def window(kind: ServerKind, get: Get, post: Post, model: dict) -> Window:
    """The window of `model` (its entry in /v1/models) as `kind` of server reports it."""
    if kind is ServerKind.VLLM:
        return Window(_positive(model.get("max_model_len")), "max_model_len in /v1/models")
    if kind is ServerKind.LLAMA_CPP:
        props = _json(get("/props"))
        settings = props.get("default_generation_settings")
        tokens = _positive(settings.get("n_ctx") if isinstance(settings, dict) else props.get("n_ctx"))
        meta = model.get("meta")
        if tokens is None and isinstance(meta, dict):  # newer builds say it in /v1/models too
            return Window(_positive(meta.get("n_ctx")), "n_ctx in /v1/models")
        return Window(tokens, "n_ctx in /props")
    if kind is ServerKind.OLLAMA:
        return _ollama(get, post, model["id"])
    if kind is ServerKind.LM_STUDIO:
        return _lm_studio(get, model["id"])
    if kind is ServerKind.LLAMA_CPP_PYTHON:
        return Window(None, "llama-cpp-python does not report its --n_ctx")
    return Window(None, "the server does not report its window")


def _ollama(get: Get, post: Post, name: str) -> Window:
    """The model's `num_ctx` parameter when its Modelfile sets one; else the context the loaded
    model was given (/api/ps, which reflects OLLAMA_CONTEXT_LENGTH); else only the model's
    trained length is known, and Ollama itself would use less (its default, 4,096 or more)."""
    shown = _json(post("/api/show", {"model": name}))
    parameters = shown.get("parameters")
    found = re.search(r"^num_ctx\s+(\d+)", parameters, re.M) if isinstance(parameters, str) else None
    if found:
        return Window(int(found.group(1)), "num_ctx of the model in Ollama")
    running = _json(get("/api/ps")).get("models")
    for loaded in running if isinstance(running, list) else []:
        if isinstance(loaded, dict) and name in (loaded.get("name"), loaded.get("model")):
            tokens = _positive(loaded.get("context_length"))
            if tokens:
                return Window(tokens, "context of the loaded model in Ollama (/api/ps)")
    info = shown.get("model_info")
    trained = next((_positive(value) for key, value in info.items() if key.endswith(".context_length")), None) \
        if isinstance(info, dict) else None
    return Window(None, "Ollama does not say the context it gives the model until it is loaded", limit=trained)


def _lm_studio(get: Get, name: str) -> Window:
    listed = _json(get("/api/v0/models")).get("data")
    entry = next((m for m in listed if isinstance(m, dict) and m.get("id") == name), {}) \
        if isinstance(listed, list) else {}
    loaded = _positive(entry.get("loaded_context_length"))
    if loaded:
        return Window(loaded, "loaded_context_length in LM Studio's /api/v0/models")
    return Window(None, "LM Studio says the context only of a loaded model",
                  limit=_positive(entry.get("max_context_length")))


def chat_models(kind: ServerKind, get: Get, models: list[dict]) -> list[dict]:
    """The models that chat: LM Studio lists its embedding models beside them."""
    if kind is not ServerKind.LM_STUDIO:
        return models
    listed = _json(get("/api/v0/models")).get("data")
    embedders = {m.get("id") for m in listed if isinstance(m, dict) and m.get("type") == "embeddings"} \
        if isinstance(listed, list) else set()
    return [model for model in models if model.get("id") not in embedders] or models


def _json(response: httpx.Response | None) -> dict:
    """The body of a successful JSON answer, or {} (a missing route, an error, not JSON)."""
    if response is None or not response.is_success:
        return {}
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _positive(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
