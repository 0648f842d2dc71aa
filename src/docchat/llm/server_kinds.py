"""What each kind of OpenAI-compatible server can tell docchat and take from it, as one table.

Every server answers /v1/models and /v1/chat/completions; the rest differs. vLLM reports its
window in /v1/models, counts a whole chat at /tokenize and its prefix cache at /metrics. llama.cpp's
own server (`llama-server`) reports its window at /props and counts text at /tokenize.
llama-cpp-python's server (`python -m llama_cpp.server`) has neither /props nor /health: it
counts text at /extras/tokenize/count, and its window (`--n_ctx`, 2,048 unless set) is not said.
Ollama says a model's window at /api/show (its `num_ctx`, or the model's trained length), LM
Studio at /api/v0/models. A server none of these: the plain OpenAI API, nothing more.

Sampling: OpenAI's API has temperature and top_p; vLLM also takes top_k and
repetition_penalty, the llama.cpp servers and LM Studio take top_k and `repeat_penalty`. Ollama's
OpenAI endpoint takes neither, and a plain OpenAI-compatible server may refuse an unknown field
with a 400: an option a server does not take is left out of the request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

# What docchat assumes of a window nobody states (server or user): small enough that any current
# model and server hold it, so that a prompt is never cut by the server without a word.
ASSUMED_WINDOW = 4_096


class ServerKind(str, Enum):
    VLLM = "vllm"
    LLAMA_CPP = "llama.cpp"
    LLAMA_CPP_PYTHON = "llama-cpp-python"
    OLLAMA = "ollama"
    LM_STUDIO = "lm-studio"
    OPENAI = "openai-compatible"


class WindowSource(str, Enum):
    REPORTED = "reported by the server"
    USER = "your setting"
    ASSUMED = "assumed"


@dataclass(frozen=True)
class ServerTraits:
    label: str
    # Its own health check under the root, or None: /v1/models answering is the check.
    health_path: str | None
    # How it counts tokens: "chat" (vLLM: a whole chat, template included), "text" (a text, at
    # `tokenize_path`), or None.
    tokenize: str | None
    tokenize_path: str | None
    # Whether it reports prefix-cache hits docchat can read (vLLM's /metrics).
    reports_prefix_cache: bool
    # docchat's sampling option -> the name this server takes it by (absent: not sent).
    sampling: dict[str, str] = field(default_factory=dict)
    # The window it uses when nobody says, where its documentation gives one.
    default_window: int = ASSUMED_WINDOW
    # Whether it goes on writing a last assistant message instead of starting a new one (vLLM's
    # continue_final_message; llama-server prefills it); the others start a new answer.
    continues: bool = False
    # How it takes a pattern the answer must keep to (docchat.context.citing): vLLM's structured
    # outputs ("structured_outputs", a regex), a GBNF "grammar" (llama.cpp), or None (not taken:
    # Ollama and LM Studio take only JSON schemas, and a plain server may refuse an unknown field).
    constraint: str | None = None


TRAITS: dict[ServerKind, ServerTraits] = {
    ServerKind.VLLM: ServerTraits(
        "vLLM", "/health", "chat", "/tokenize", True,
        {"top_p": "top_p", "top_k": "top_k", "repetition_penalty": "repetition_penalty"}, continues=True,
        constraint="structured_outputs"),
    ServerKind.LLAMA_CPP: ServerTraits(
        "llama.cpp server", "/health", "text", "/tokenize", False,
        {"top_p": "top_p", "top_k": "top_k", "repetition_penalty": "repeat_penalty"}, continues=True,
        constraint="grammar"),
    ServerKind.LLAMA_CPP_PYTHON: ServerTraits(
        "llama-cpp-python server", None, "text", "/extras/tokenize/count", False,
        {"top_p": "top_p", "top_k": "top_k", "repetition_penalty": "repeat_penalty"},
        default_window=2_048, constraint="grammar"),  # its --n_ctx default
    ServerKind.OLLAMA: ServerTraits("Ollama", None, None, None, False, {"top_p": "top_p"}),
    ServerKind.LM_STUDIO: ServerTraits(
        "LM Studio", None, None, None, False,
        {"top_p": "top_p", "top_k": "top_k", "repetition_penalty": "repeat_penalty"}),
    ServerKind.OPENAI: ServerTraits("OpenAI-compatible server", None, None, None, False, {"top_p": "top_p"}),
}
