"""One conversation's memory, with LlamaIndex's BaseMemory interface.

Every message is counted once, when it is added, and the count is stored with it. The
memory keeps running totals (prefix sums) of those counts, so building a window within a
token budget is a binary search plus a list slice: it never re-tokenises history, and its
cost does not grow with the conversation's length. That is the difference from
LlamaIndex's ChatMemoryBuffer, which re-counts the whole history on every get().

LlamaIndex itself is imported only when its interface is used (`get`, `get_all`,
`from_defaults`): importing llama_index.core takes about 2 s of CPU, which every command
that stores a message would otherwise pay before it could answer.
"""

from __future__ import annotations

import threading
import uuid
from bisect import bisect_left
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docchat.domain import FINISHED, Message, Role, Status, utcnow
from docchat.errors import InvalidInput
from docchat.memory.log import MessageLog
from docchat.ports import TokenCounter

if TYPE_CHECKING:
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.memory.types import BaseMemory

UNLIMITED = 2**62


class ConversationMemory:
    def __init__(self, conversation_id: str, log: MessageLog, counter: TokenCounter, *,
                 token_limit: int = UNLIMITED) -> None:
        self.conversation_id = conversation_id
        self.token_limit = token_limit
        self._index = _Index(conversation_id, log, counter)

    @classmethod
    def from_defaults(cls, **kwargs: Any) -> "BaseMemory":
        """The memory as LlamaIndex builds its own: a BaseMemory (see llama_index_memory)."""
        from docchat.memory.llama_index_memory import LlamaIndexMemory

        return LlamaIndexMemory.of(cls.open(**kwargs))

    @classmethod
    def open(cls, *, conversation_id: str, log: MessageLog, counter: TokenCounter, **fields) -> "ConversationMemory":
        return cls(conversation_id, log, counter, **fields)

    # LlamaIndex BaseMemory

    def get(self, input: str | None = None, initial_token_count: int = 0, token_limit: int | None = None,
            **kwargs: Any) -> list[ChatMessage]:
        """The longest recent run of messages that fits the budget, system messages always kept."""
        index = self._index
        with index.lock:
            index.sync()
            start, system = index.window_start(self._limit(token_limit), initial_token_count)
            chat = index.chat_messages()
            return [chat[i] for i in system] + chat[start:]

    def get_all(self) -> list[ChatMessage]:
        index = self._index
        with index.lock:
            index.sync()
            return list(index.chat_messages())

    def put(self, message: ChatMessage) -> None:
        self.add(message.role.value, message.content or "")

    def set(self, messages: list[ChatMessage]) -> None:
        with self._index.lock:
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
        index = self._index
        counter = index.counter
        message = Message(
            id=str(uuid.uuid4()),
            conversation_id=self.conversation_id,
            seq=0,
            role=role,
            content=content,
            created_at=utcnow(),
            status=fields.pop("status", Status.COMPLETE),
            token_count=counter.count_message(role.value, fields.get("sent_content") or content),
            tokenizer=counter.id,
            **fields,
        )
        with index.lock:
            stored = index.log.append(message)
            if stored.seq != index.last_seq + 1:
                index.sync()  # another writer added messages in between
            else:
                index.extend([stored])
            return stored

    def window(self, token_limit: int | None = None, initial_token_count: int = 0) -> list[Message]:
        """Like get(), as stored messages."""
        index = self._index
        with index.lock:
            index.sync()
            start, system = index.window_start(self._limit(token_limit), initial_token_count)
            return [index.messages[i] for i in system] + index.messages[start:]

    def messages(self) -> list[Message]:
        index = self._index
        with index.lock:
            index.sync()
            return list(index.messages)

    def after(self, seq: int) -> tuple[list[Message], int]:
        """The messages after `seq` (those a summary does not cover) and their tokens."""
        index = self._index
        with index.lock:
            index.sync()
            start = bisect_left(index.seqs, seq + 1)
            return index.messages[start:], index.before[-1] - index.before[start] + sum(
                index.messages[i].token_count for i in index.system if i >= start)

    def get_recent(self, n: int) -> list[Message]:
        index = self._index
        with index.lock:
            index.sync()
            return list(index.messages[-n:]) if n > 0 else []

    def count(self) -> int:
        """How many messages the model would see with no budget."""
        index = self._index
        with index.lock:
            index.sync()
            return len(index.messages)

    def token_total(self) -> int:
        index = self._index
        with index.lock:
            index.sync()
            return index.system_tokens + index.before[-1]

    def clear(self) -> None:
        """Forgets everything so far; the stored transcript stays."""
        index = self._index
        with index.lock:
            index.sync()
            after = index.last_seq + 1
            index.log.set_marks(self.conversation_id, memory_start_seq=after, pruned_before_seq=after)
            index.reload()

    def prune(self, max_tokens: int) -> int:
        """Drops the oldest non-system messages until the memory fits max_tokens; returns how many."""
        index = self._index
        with index.lock:
            index.sync()
            start, _ = index.window_start(max_tokens, 0)
            dropped = sum(1 for m in index.messages[:start] if m.role is not Role.SYSTEM)
            if dropped:
                pruned_before = index.messages[start].seq if start < len(index.messages) else index.last_seq + 1
                index.log.set_marks(
                    self.conversation_id, memory_start_seq=index.marks[0], pruned_before_seq=pruned_before
                )
                index.reload()
            return dropped

    def forget_before(self, seq: int) -> None:
        """Prunes the non-system messages before `seq` (a truncation's cut); nothing is deleted."""
        index = self._index
        with index.lock:
            index.sync()
            if seq > index.marks[1]:
                index.log.set_marks(self.conversation_id, memory_start_seq=index.marks[0], pruned_before_seq=seq)
                index.reload()

    def _limit(self, token_limit: int | None) -> int:
        return self.token_limit if token_limit is None else token_limit


class _Index:
    """The messages a memory holds, the running totals of their counts, and what it last read
    of the log. Callers hold `lock`."""

    __slots__ = ("conversation_id", "log", "counter", "lock", "messages", "chat", "before", "system",
                 "system_tokens", "seqs", "last_seq", "marks", "counted_with")

    def __init__(self, conversation_id: str, log: MessageLog, counter: TokenCounter):
        self.conversation_id, self.log, self.counter = conversation_id, log, counter
        self.lock = threading.RLock()
        self.reload()

    def window_start(self, limit: int, initial: int) -> tuple[int, list[int]]:
        room = limit - initial - self.system_tokens
        # Smallest start whose suffix fits: total - before[start] <= room.
        start = bisect_left(self.before, self.before[-1] - room) if room >= 0 else len(self.messages)
        start = min(start, len(self.messages))
        return start, [i for i in self.system if i < start]

    def chat_messages(self) -> list[ChatMessage]:
        """`messages` as LlamaIndex ChatMessages, made for the messages added since last asked."""
        if len(self.chat) < len(self.messages):
            from llama_index.core.base.llms.types import ChatMessage, MessageRole

            self.chat.extend(ChatMessage(role=MessageRole(message.role.value), content=message.model_text)
                             for message in self.messages[len(self.chat):])
        return self.chat

    def reload(self) -> None:
        self.messages: list[Message] = []
        self.chat: list[ChatMessage] = []
        # before[i]: tokens of the non-system messages in messages[:i].
        self.before = [0]
        self.seqs: list[int] = []
        self.system: list[int] = []
        self.system_tokens = self.last_seq = 0
        self.counted_with = self.counter.id
        state = self.log.load(self.conversation_id, after_seq=0)
        self.marks = (state.memory_start_seq, state.pruned_before_seq)
        self.extend(state.messages)

    def sync(self) -> None:
        """Picks up messages other writers (another tab, the CLI) stored since the last look."""
        if self.counted_with != self.counter.id:
            # The server now serves another model: every count is recounted (and stored) once.
            self.reload()
            return
        state = self.log.load(self.conversation_id, after_seq=self.last_seq)
        if (state.memory_start_seq, state.pruned_before_seq) != self.marks:
            self.reload()
        elif state.messages:
            self.extend(state.messages)

    def extend(self, stored: list[Message]) -> None:
        counter = self.counter
        recount = {m.id: counter.count_message(m.role.value, m.model_text)
                   for m in stored if m.status in FINISHED
                   and (m.tokenizer != counter.id or m.token_count is None)}
        if recount:
            self.log.store_token_counts(recount, counter.id)
        start_seq, pruned_before = self.marks
        for message in stored:
            if message.status is Status.STREAMING:
                # Not settled yet: look again from here on the next sync.
                return
            self.last_seq = max(self.last_seq, message.seq)
            if message.seq < start_seq or (message.seq < pruned_before and message.role is not Role.SYSTEM):
                continue
            if message.status not in FINISHED or not message.shown:
                # Failed or stopped answers, and versions not shown, are kept in the transcript,
                # never sent back to the model.
                continue
            if message.id in recount:
                message = replace(message, token_count=recount[message.id], tokenizer=counter.id)
            tokens = message.token_count
            if message.role is Role.SYSTEM:
                self.system.append(len(self.messages))
                self.system_tokens += tokens
                self.before.append(self.before[-1])
            else:
                self.before.append(self.before[-1] + tokens)
            self.messages.append(message)
            self.seqs.append(message.seq)
