"""The figures an answer keeps: how its prompt split the window, and what the memory did."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Budget:
    """How one prompt splits the model's window. Prompt + answer reserve <= max_model_len."""

    max_model_len: int
    answer_reserve: int
    system: int
    history: int
    question: int
    template: int
    history_messages: int
    dropped_messages: int
    counter: str
    exact: bool
    summary: int = 0
    # Document tokens: whole documents in the prefix, or the passages in the user turn.
    chunks: int = 0
    history_share: int = 0
    # How this turn used the documents: "documents" (whole, in the cached prefix), "passages"
    # (retrieved into the user turn) or "none"; and how many parts or passages it gave.
    mode: str = "none"
    passages: int = 0
    chunks_cap: int = 0
    # Whose figure the window is: "reported by the server", "your setting" or "assumed" (a
    # server that does not say its window); the meter says so unless the server said it.
    window_source: str = "reported by the server"

    @property
    def prompt(self) -> int:
        return self.system + self.summary + self.chunks + self.history + self.question + self.template

    @property
    def free(self) -> int:
        return self.max_model_len - self.answer_reserve - self.prompt

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "prompt": self.prompt, "free": self.free}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Budget":
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass(frozen=True)
class MemoryStats:
    """What the memory did for one answer."""

    total_messages: int
    total_tokens: int
    kept_verbatim: int
    summarised: int
    summary_version: int | None
    summary_created_at: datetime | None
    summary_created: bool
    compactions: int
    counter: str
    memory_ms: float
    rewritten_query: str | None = None
    rewrite_method: str = "none"

    def as_dict(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["summary_created_at"] = self.summary_created_at.isoformat() if self.summary_created_at else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MemoryStats":
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        created = known.get("summary_created_at")
        return cls(**{**known, "summary_created_at": datetime.fromisoformat(created) if created else None})
