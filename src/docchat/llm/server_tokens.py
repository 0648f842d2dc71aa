"""Token counts from the server's own tokenize endpoint, for a model docchat has no tokenizer of
(a GGUF served by llama.cpp's servers; any model vLLM serves from elsewhere).

vLLM counts a whole chat with the model's template (/tokenize with messages) and a text (with a
prompt); llama.cpp's llama-server counts a text at /tokenize and renders a chat with the
model's template at /apply-template; llama-cpp-python counts a text at /extras/tokenize/count,
adding the model's BOS token when it has one (measured once, as the count of an empty text, and
taken off). A chat without /apply-template is rendered as ChatML, the template docchat's own
counters assume; the calibration against the server's count of a whole chat says when that is wrong.
"""

from __future__ import annotations

import httpx

from docchat.errors import LLMServerError
from docchat.llm.discovery import ServerInfo, auth, root_url, tls
from docchat.llm.server_kinds import TRAITS, ServerKind
from docchat.memory.tokens import ServerCounter, render_chatml


def server_token_count(info: ServerInfo, messages: list[dict], *, timeout: float = 10.0,
                       api_key: str | None = None) -> int:
    """The server's own count of a chat prompt, generation prompt included. Raises LookupError
    when the server cannot count, httpx.HTTPError (or KeyError, ValueError) when counting failed."""
    url = _tokenize_url(info)
    with httpx.Client(timeout=timeout, verify=tls(), headers=auth(api_key)) as http:
        if TRAITS[info.kind].tokenize == "chat":
            response = http.post(url, json={"model": info.model, "messages": messages, "add_generation_prompt": True})
            response.raise_for_status()
            return int(response.json()["count"])
        prompt = _rendered(http, info, messages)
        return _count(http, info, url, prompt) - _count(http, info, url, "")


def server_counter(info: ServerInfo, *, api_key: str | None = None, timeout: float = 10.0) -> ServerCounter | None:
    """A token counter that asks the server, or None when the server cannot count."""
    if TRAITS[info.kind].tokenize is None:
        return None
    url = _tokenize_url(info)
    http = httpx.Client(timeout=timeout, verify=tls(), headers=auth(api_key))
    added: list[int] = []  # what the server adds to every text (a BOS token), measured once

    def count(text: str) -> int:
        try:
            if not added:
                added.append(_count(http, info, url, ""))
            return _count(http, info, url, text) - added[0]
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as error:
            raise LLMServerError(f"{info.server} did not count tokens: {error}") from None

    return ServerCounter(count, id=f"server-tokenize:{info.kind.value}:{info.model}")


def _tokenize_url(info: ServerInfo) -> str:
    traits = TRAITS[info.kind]
    if traits.tokenize_path is None:
        raise LookupError(f"{traits.label} offers no tokenize endpoint")
    return f"{root_url(info.base_url)}{traits.tokenize_path}"


def _count(http: httpx.Client, info: ServerInfo, url: str, text: str) -> int:
    if info.kind is ServerKind.LLAMA_CPP:
        response = http.post(url, json={"content": text, "add_special": False, "parse_special": True})
        response.raise_for_status()
        return len(response.json()["tokens"])
    if info.kind is ServerKind.VLLM:
        response = http.post(url, json={"model": info.model, "prompt": text, "add_special_tokens": False})
    else:
        response = http.post(url, json={"model": info.model, "input": text})
    response.raise_for_status()
    return int(response.json()["count"])


def _rendered(http: httpx.Client, info: ServerInfo, messages: list[dict]) -> str:
    """The prompt as the server's chat template writes it (llama.cpp's /apply-template), else as
    ChatML does."""
    if info.kind is ServerKind.LLAMA_CPP:
        response = http.post(f"{root_url(info.base_url)}/apply-template", json={"messages": messages})
        if response.is_success and isinstance(response.json().get("prompt"), str):
            return response.json()["prompt"]
    return "".join(render_chatml(m["role"], m["content"]) for m in messages) + "<|im_start|>assistant\n"
