"""The port through which a memory reads and writes its conversation's durable history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from docchat.domain import Message


@dataclass(frozen=True)
class LogState:
    messages: list[Message]
    memory_start_seq: int
    pruned_before_seq: int


class MessageLog(Protocol):
    def load(self, conversation_id: str, *, after_seq: int) -> LogState:
        """Messages with seq > after_seq, and the conversation's memory marks."""

    def append(self, message: Message) -> Message:
        """Stores the message as the conversation's next seq; returns it with that seq."""

    def set_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None: ...

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None: ...
