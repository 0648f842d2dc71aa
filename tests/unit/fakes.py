"""Fakes of our own ports for unit tests. They record what happened, so tests assert behaviour."""

from __future__ import annotations

import threading
from dataclasses import replace

from docchat.domain import Message
from docchat.errors import NotFound
from docchat.memory.log import LogState


class FakeMessageLog:
    """The MessageLog port in memory: append-only, dense seq per conversation, like the SQL one.

    Thread-safe, as a database would be, so concurrency tests exercise the memory and not the fake.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._messages: dict[str, list[Message]] = {}
        self._marks: dict[str, tuple[int, int]] = {}
        self.appended: list[Message] = []
        self.stored_counts: list[tuple[dict[str, int], str]] = []
        self.marks_set: list[tuple[str, int, int]] = []

    def register(self, conversation_id: str, *history: Message) -> None:
        """Creates a conversation, optionally with messages already stored (given dense seqs in order)."""
        with self._lock:
            self._messages[conversation_id] = [
                replace(message, conversation_id=conversation_id, seq=seq)
                for seq, message in enumerate(history, start=1)
            ]
            self._marks[conversation_id] = (1, 1)

    # the port

    def load(self, conversation_id: str, *, after_seq: int) -> LogState:
        with self._lock:
            self._require(conversation_id)
            newer = [m for m in self._messages[conversation_id] if m.seq > after_seq]
            return LogState(newer, *self._marks[conversation_id])

    def append(self, message: Message) -> Message:
        with self._lock:
            self._require(message.conversation_id)
            stored = replace(message, seq=len(self._messages[message.conversation_id]) + 1)
            self._messages[message.conversation_id].append(stored)
            self.appended.append(stored)
            return stored

    def set_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        with self._lock:
            self._require(conversation_id)
            self._marks[conversation_id] = (memory_start_seq, pruned_before_seq)
            self.marks_set.append((conversation_id, memory_start_seq, pruned_before_seq))

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        with self._lock:
            self.stored_counts.append((dict(counts), tokenizer))
            for conversation_id, stored in self._messages.items():
                self._messages[conversation_id] = [
                    replace(m, token_count=counts[m.id], tokenizer=tokenizer) if m.id in counts else m
                    for m in stored
                ]

    # for assertions

    def messages(self, conversation_id: str) -> list[Message]:
        with self._lock:
            self._require(conversation_id)
            return list(self._messages[conversation_id])

    def marks(self, conversation_id: str) -> tuple[int, int]:
        with self._lock:
            self._require(conversation_id)
            return self._marks[conversation_id]

    def _require(self, conversation_id: str) -> None:
        if conversation_id not in self._messages:
            raise NotFound(f"no conversation with id {conversation_id}")


class WordCounter:
    """A deterministic stand-in tokenizer: one token a word, plus a ChatML-like overhead of five."""

    exact = True
    generation_prompt_tokens = 3
    OVERHEAD = 5

    def __init__(self, id: str = "words+5:v1"):
        self.id = id

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count_message(self, role: str, content: str) -> int:
        return self.count_text(content) + self.OVERHEAD

    def encode_message(self, role: str, content: str) -> list[int]:
        return list(range(self.count_message(role, content)))


class CountingCounter:
    """Wraps a TokenCounter and records every message it is asked to count (thread-safe)."""

    def __init__(self, inner):
        self._inner = inner
        self._lock = threading.Lock()
        self.counted: list[tuple[str, str]] = []

    @property
    def id(self) -> str:
        return self._inner.id

    @property
    def exact(self) -> bool:
        return self._inner.exact

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.counted)

    def count_message(self, role: str, content: str) -> int:
        with self._lock:
            self.counted.append((role, content))
        return self._inner.count_message(role, content)

    def count_text(self, text: str) -> int:
        return self._inner.count_text(text)

    def encode_message(self, role: str, content: str) -> list[int]:
        return self._inner.encode_message(role, content)
