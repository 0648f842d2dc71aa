"""One conversation's memory, with LlamaIndex's BaseMemory interface.

Every message is counted once, when it is added, and the count is stored with it. The
memory keeps running totals (prefix sums) of those counts, so building a window within a
token budget is a binary search plus a list slice: it never re-tokenises history, and its
cost does not grow with the conversation's length. That is the difference from
LlamaIndex's ChatMemoryBuffer, which re-counts the whole history on every get().

The memory writes nothing itself: its writing verbs (add, clear, prune, and LlamaIndex's put,
set and reset) ask the conversation's log, the one writer of conversation tables
(docchat.services.conversation_log), which also tells the memory what it appended.

LlamaIndex itself is imported only when its interface is used (`get`, `get_all`): importing
llama_index.core takes about 2 s of CPU, which every command that stores a message would
otherwise pay before it could answer. Code that wants a LlamaIndex BaseMemory builds one with
docchat.memory.llama_index_memory.LlamaIndexMemory.from_defaults, a shell over this class
that only it imports (not the reverse).
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Protocol

from docchat.domain import Message, Role, Status, utcnow
from docchat.errors import InvalidInput
from docchat.memory.window import MemoryView, Window
from docchat.ports import ConversationRepository, TokenCounter, UnitOfWorkFactory

if TYPE_CHECKING:
    from llama_index.core.base.llms.types import ChatMessage

UNLIMITED = 2**62


def counted(counter: TokenCounter, conversation_id: str, role: str | Role, content: str, **fields: Any) -> Message:
    """A new message, counted once by `counter` (what the model is sent of it, when that is
    not what it says), ready to be appended to its conversation."""
    try:
        role = Role(role)
    except ValueError:
        raise InvalidInput(f"role must be system, user or assistant, not {role!r}") from None
    if not isinstance(content, str):
        raise InvalidInput("message content must be text")
    return Message(
        id=str(uuid.uuid4()), conversation_id=conversation_id, seq=0, role=role, content=content,
        created_at=utcnow(), status=fields.pop("status", Status.COMPLETE),
        token_count=counter.count_message(role.value, fields.get("sent_content") or content),
        tokenizer=counter.id, **fields,
    )


class Writer(Protocol):
    """Where the memory's writing verbs are written: the conversation's log."""

    def append(self, message: Message) -> Message: ...

    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None: ...

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None: ...


class ConversationMemory:
    """A conversation's memory. Its reading verbs each open a unit of work; a service preparing a
    question reads it within its own unit of work instead (`read`)."""

    def __init__(self, conversation_id: str, uow: UnitOfWorkFactory, counter: TokenCounter, *, writer: Writer,
                 token_limit: int = UNLIMITED) -> None:
        self.conversation_id = conversation_id
        self.token_limit = token_limit
        self._uow = uow
        self._writer = writer
        self._window = Window(conversation_id, counter)

    # reading within the caller's unit of work

    def read(self, repo: ConversationRepository) -> MemoryView:
        """The memory as `repo`'s unit of work sees the conversation, read in that unit of work.
        Counts made again for another tokenizer wait for a writer (`unsaved_counts`)."""
        window = self._window
        with window.lock:
            window.refresh(repo)
            return window.view()

    def appended(self, stored: Message) -> None:
        """Tells the memory of a message its caller appended (and committed), so that the next
        read need not fetch it."""
        with self._window.lock:
            self._window.appended(stored)

    # LlamaIndex BaseMemory

    def get(self, input: str | None = None, initial_token_count: int = 0, token_limit: int | None = None,
            **kwargs: Any) -> list[ChatMessage]:
        """The longest recent run of messages that fits the budget, system messages always kept."""
        with self._synced() as window:
            start, system = window.window_start(self._limit(token_limit), initial_token_count)
            chat = window.chat_messages()
            return [chat[i] for i in system] + chat[start:]

    def get_all(self) -> list[ChatMessage]:
        with self._synced() as window:
            return list(window.chat_messages())

    def put(self, message: ChatMessage) -> None:
        self.add(message.role.value, message.content or "")

    def set(self, messages: list[ChatMessage]) -> None:
        with self._window.lock:
            self.clear()
            for message in messages:
                self.put(message)

    def reset(self) -> None:
        self.clear()

    # docchat's own verbs

    def add(self, role: str, content: str, **fields: Any) -> Message:
        """Counts the message once, has it stored, and returns it as stored (with its seq)."""
        return self._writer.append(counted(self._window.counter, self.conversation_id, role, content, **fields))

    def window(self, token_limit: int | None = None, initial_token_count: int = 0) -> list[Message]:
        """Like get(), as stored messages."""
        with self._synced() as window:
            start, system = window.window_start(self._limit(token_limit), initial_token_count)
            return [window.messages[i] for i in system] + window.messages[start:]

    def messages(self) -> list[Message]:
        with self._synced() as window:
            return list(window.messages)

    def get_recent(self, n: int) -> list[Message]:
        with self._synced() as window:
            return window.view().recent(n)

    def count(self) -> int:
        """How many messages the model would see with no budget."""
        with self._synced() as window:
            return len(window.messages)

    def token_total(self) -> int:
        with self._synced() as window:
            return window.view().token_total()

    def clear(self) -> None:
        """Forgets everything so far; the stored transcript stays."""
        with self._synced() as window:
            after = window.last_seq + 1
            self._set_marks(memory_start_seq=after, pruned_before_seq=after)

    def prune(self, max_tokens: int) -> int:
        """Drops the oldest non-system messages until the memory fits max_tokens; returns how many."""
        with self._synced() as window:
            start, _ = window.window_start(max_tokens, 0)
            dropped = sum(1 for m in window.messages[:start] if m.role is not Role.SYSTEM)
            if dropped:
                pruned_before = window.messages[start].seq if start < len(window.messages) else window.last_seq + 1
                self._set_marks(memory_start_seq=window.marks[0], pruned_before_seq=pruned_before)
            return dropped

    def unsaved_counts(self) -> tuple[dict[str, int], str]:
        """The counts made again for another tokenizer since they were last written back, and
        that tokenizer: a writing caller stores them (taken here, before its unit of work opens,
        as the memory's own verbs take the memory's lock before theirs)."""
        with self._window.lock:
            return self._window.take_unsaved_counts(), self._window.counter.id

    def _limit(self, token_limit: int | None) -> int:
        return self.token_limit if token_limit is None else token_limit

    @contextmanager
    def _synced(self) -> Iterator[Window]:
        """The window as the store holds the conversation now, with the counts it made again for
        another tokenizer stored (once: they are not made again)."""
        window = self._window
        with window.lock:
            with self._uow() as uow:
                window.refresh(uow.conversations)
            if window.unsaved_counts:
                self._writer.store_token_counts(window.take_unsaved_counts(), window.counter.id)
            yield window

    def _set_marks(self, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        self._writer.set_memory_marks(self.conversation_id, memory_start_seq=memory_start_seq,
                                      pruned_before_seq=pruned_before_seq)
        # Read again, so that what the verbs return now follows the new marks.
        with self._uow() as uow:
            self._window.refresh(uow.conversations)
