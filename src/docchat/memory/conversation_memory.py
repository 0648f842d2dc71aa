"""One conversation's memory, as a LlamaIndex BaseMemory.

Every message is counted once, when it is added, and the count is stored with it. The
memory keeps running totals (prefix sums) of those counts, so building a window within a
token budget is a binary search plus a list slice: it never re-tokenises history, and its
cost does not grow with the conversation's length. That is the difference from
LlamaIndex's ChatMemoryBuffer, which re-counts the whole history on every get().
"""

from __future__ import annotations

import threading
import uuid
from bisect import bisect_left
from dataclasses import replace
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.memory.types import BaseMemory

from docchat.domain import FINISHED, Message, Role, Status, utcnow
from docchat.errors import InvalidInput
from docchat.memory.log import MessageLog
from docchat.memory.tokens import TokenCounter

UNLIMITED = 2**62


class ConversationMemory(BaseMemory):
    conversation_id: str
    token_limit: int = UNLIMITED

    _log: MessageLog = PrivateAttr()
    _counter: TokenCounter = PrivateAttr()
    _lock: threading.RLock = PrivateAttr(default_factory=threading.RLock)
    _messages: list[Message] = PrivateAttr(default_factory=list)
    _chat: list[ChatMessage] = PrivateAttr(default_factory=list)
    # _before[i]: tokens of the non-system messages in _messages[:i].
    _before: list[int] = PrivateAttr(default_factory=lambda: [0])
    _system: list[int] = PrivateAttr(default_factory=list)
    _system_tokens: int = PrivateAttr(default=0)
    _seqs: list[int] = PrivateAttr(default_factory=list)
    _last_seq: int = PrivateAttr(default=0)
    _marks: tuple[int, int] = PrivateAttr(default=(1, 1))

    @classmethod
    def class_name(cls) -> str:
        return "DocchatConversationMemory"

    @classmethod
    def from_defaults(cls, **kwargs: Any) -> "ConversationMemory":
        return cls.open(**kwargs)

    @classmethod
    def open(cls, *, conversation_id: str, log: MessageLog, counter: TokenCounter, **fields) -> "ConversationMemory":
        memory = cls(conversation_id=conversation_id, **fields)
        memory._log, memory._counter = log, counter
        memory._reload()
        return memory

    # LlamaIndex BaseMemory

    def get(self, input: str | None = None, initial_token_count: int = 0, token_limit: int | None = None,
            **kwargs: Any) -> list[ChatMessage]:
        """The longest recent run of messages that fits the budget, system messages always kept."""
        with self._lock:
            self._sync()
            start, system = self._window_start(token_limit, initial_token_count)
            return [self._chat[i] for i in system] + self._chat[start:]

    def get_all(self) -> list[ChatMessage]:
        with self._lock:
            self._sync()
            return list(self._chat)

    def put(self, message: ChatMessage) -> None:
        self.add(message.role.value, message.content or "")

    def set(self, messages: list[ChatMessage]) -> None:
        with self._lock:
            self.clear()
            for message in messages:
                self.put(message)

    def reset(self) -> None:
        self.clear()

    # docchat's own verbs

    def add(self, role: str, content: str, **fields: Any) -> Message:
        """Counts the message once, stores it, and returns it as stored (with its seq)."""
        try:
            role = Role(role)
        except ValueError:
            raise InvalidInput(f"role must be system, user or assistant, not {role!r}") from None
        if not isinstance(content, str):
            raise InvalidInput("message content must be text")
        message = Message(
            id=str(uuid.uuid4()),
            conversation_id=self.conversation_id,
            seq=0,
            role=role,
            content=content,
            created_at=utcnow(),
            status=fields.pop("status", Status.COMPLETE),
            token_count=self._counter.count_message(role.value, fields.get("sent_content") or content),
            tokenizer=self._counter.id,
            **fields,
        )
        with self._lock:
            stored = self._log.append(message)
            if stored.seq != self._last_seq + 1:
                self._sync()  # another writer added messages in between
            else:
                self._extend([stored])
            return stored

    def window(self, token_limit: int | None = None, initial_token_count: int = 0) -> list[Message]:
        """Like get(), as stored messages."""
        with self._lock:
            self._sync()
            start, system = self._window_start(token_limit, initial_token_count)
            return [self._messages[i] for i in system] + self._messages[start:]

    def messages(self) -> list[Message]:
        with self._lock:
            self._sync()
            return list(self._messages)

    def after(self, seq: int) -> tuple[list[Message], int]:
        """The messages after `seq` (those a summary does not cover) and their tokens."""
        with self._lock:
            self._sync()
            start = bisect_left(self._seqs, seq + 1)
            return self._messages[start:], self._before[-1] - self._before[start] + sum(
                self._messages[i].token_count for i in self._system if i >= start)

    def get_recent(self, n: int) -> list[Message]:
        with self._lock:
            self._sync()
            return list(self._messages[-n:]) if n > 0 else []

    def count(self) -> int:
        """How many messages the model would see with no budget."""
        with self._lock:
            self._sync()
            return len(self._messages)

    def token_total(self) -> int:
        with self._lock:
            self._sync()
            return self._system_tokens + self._before[-1]

    def clear(self) -> None:
        """Forgets everything so far; the stored transcript stays."""
        with self._lock:
            self._sync()
            after = self._last_seq + 1
            self._log.set_marks(self.conversation_id, memory_start_seq=after, pruned_before_seq=after)
            self._reload()

    def prune(self, max_tokens: int) -> int:
        """Drops the oldest non-system messages until the memory fits max_tokens; returns how many."""
        with self._lock:
            self._sync()
            start, _ = self._window_start(max_tokens, 0)
            dropped = sum(1 for m in self._messages[:start] if m.role is not Role.SYSTEM)
            if dropped:
                pruned_before = self._messages[start].seq if start < len(self._messages) else self._last_seq + 1
                self._log.set_marks(
                    self.conversation_id, memory_start_seq=self._marks[0], pruned_before_seq=pruned_before
                )
                self._reload()
            return dropped

    def forget_before(self, seq: int) -> None:
        """Prunes the non-system messages before `seq` (a truncation's cut); nothing is deleted."""
        with self._lock:
            self._sync()
            if seq > self._marks[1]:
                self._log.set_marks(self.conversation_id, memory_start_seq=self._marks[0], pruned_before_seq=seq)
                self._reload()

    # internals

    def _window_start(self, token_limit: int | None, initial: int) -> tuple[int, list[int]]:
        limit = self.token_limit if token_limit is None else token_limit
        room = limit - initial - self._system_tokens
        # Smallest start whose suffix fits: total - before[start] <= room.
        start = bisect_left(self._before, self._before[-1] - room) if room >= 0 else len(self._messages)
        start = min(start, len(self._messages))
        return start, [i for i in self._system if i < start]

    def _reload(self) -> None:
        self._messages, self._chat, self._before, self._seqs = [], [], [0], []
        self._system, self._system_tokens, self._last_seq = [], 0, 0
        state = self._log.load(self.conversation_id, after_seq=0)
        self._marks = (state.memory_start_seq, state.pruned_before_seq)
        self._extend(state.messages)

    def _sync(self) -> None:
        """Picks up messages other writers (another tab, the CLI) stored since the last look."""
        state = self._log.load(self.conversation_id, after_seq=self._last_seq)
        if (state.memory_start_seq, state.pruned_before_seq) != self._marks:
            self._reload()
        elif state.messages:
            self._extend(state.messages)

    def _extend(self, stored: list[Message]) -> None:
        recount = {m.id: self._counter.count_message(m.role.value, m.model_text)
                   for m in stored if m.status in FINISHED
                   and (m.tokenizer != self._counter.id or m.token_count is None)}
        if recount:
            self._log.store_token_counts(recount, self._counter.id)
        start_seq, pruned_before = self._marks
        for message in stored:
            if message.status is Status.STREAMING:
                # Not settled yet: look again from here on the next sync.
                return
            self._last_seq = max(self._last_seq, message.seq)
            if message.seq < start_seq or (message.seq < pruned_before and message.role is not Role.SYSTEM):
                continue
            if message.status not in FINISHED or not message.shown:
                # Failed or stopped answers, and versions not shown, are kept in the transcript,
                # never sent back to the model.
                continue
            if message.id in recount:
                message = replace(message, token_count=recount[message.id], tokenizer=self._counter.id)
            tokens = message.token_count
            if message.role is Role.SYSTEM:
                self._system.append(len(self._messages))
                self._system_tokens += tokens
                self._before.append(self._before[-1])
            else:
                self._before.append(self._before[-1] + tokens)
            self._messages.append(message)
            self._seqs.append(message.seq)
            self._chat.append(ChatMessage(role=MessageRole(message.role.value), content=message.model_text))
