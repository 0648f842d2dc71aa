"""What a conversation's memory holds between questions: its messages and running token totals.

Kept between questions so that a question reads only what was stored since the last one. It
is checked against what the caller's unit of work reads, never told to forget: its marks (a
clear, a prune, a truncation) and the conversation's path revision (an edit, a choice of
version, in this process or another) are read with the new messages, and when either moved,
the messages are loaded again.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from docchat.domain import FINISHED, Message, Role, Status
from docchat.errors import NotFound
from docchat.ports import ConversationRepository, TokenCounter

if TYPE_CHECKING:
    from llama_index.core.base.llms.types import ChatMessage


@dataclass(frozen=True)
class MemoryView:
    """The memory as one read found it. Reading it costs no transaction and is not changed by
    later reads: the lists it shares with the window are only ever appended to, and it sees
    their first `size` entries."""

    _messages: list[Message]
    _before: list[int]
    _seqs: list[int]
    _system: tuple[int, ...]
    system_tokens: int
    size: int
    # (memory_start_seq, pruned_before_seq) as read.
    marks: tuple[int, int]

    def messages(self) -> list[Message]:
        return self._messages[:self.size]

    def count(self) -> int:
        """How many messages the model would see with no budget."""
        return self.size

    def token_total(self) -> int:
        return self.system_tokens + self._before[self.size]

    def after(self, seq: int) -> tuple[list[Message], int]:
        """The messages after `seq` (those a summary does not cover) and their tokens."""
        start = bisect_left(self._seqs, seq + 1, 0, self.size)
        tokens = self._before[self.size] - self._before[start]
        tokens += sum(self._messages[i].token_count or 0 for i in self._system if i >= start)
        return self._messages[start:self.size], tokens

    def recent(self, n: int) -> list[Message]:
        return self._messages[max(0, self.size - n):self.size] if n > 0 else []


class Window:
    """The messages a memory holds, the running totals of their counts, and what it last read
    of the store. Callers hold `lock`; `refresh` reads through the repository it is given."""

    def __init__(self, conversation_id: str, counter: TokenCounter):
        self.conversation_id, self.counter = conversation_id, counter
        self.lock = threading.RLock()
        self.loaded = False
        # Counts made again for another tokenizer, to be written back by a writing unit of work.
        self.unsaved_counts: dict[str, int] = {}
        self._clear(marks=(1, 1), revision=0)

    def view(self) -> MemoryView:
        return MemoryView(self.messages, self.before, self.seqs, tuple(self.system), self.system_tokens,
                          len(self.messages), self.marks)

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

    def refresh(self, repo: ConversationRepository) -> None:
        """Picks up what was stored since the last look (by this process or another), within the
        caller's unit of work; loads everything again when the marks or the path moved, or the
        server now serves another model (every count is then made again, once)."""
        reload = not self.loaded or self.counted_with != self.counter.id
        state = repo.memory_state(self.conversation_id, after_seq=0 if reload else self.last_seq)
        if state is None:
            raise NotFound(f"no conversation with id {self.conversation_id}")
        if not reload and ((state.memory_start_seq, state.pruned_before_seq) != self.marks
                           or state.path_revision != self.revision):
            reload = True
            state = repo.memory_state(self.conversation_id, after_seq=0)
            assert state is not None  # read in the same unit of work as the line above
        if reload:
            self._clear(marks=(state.memory_start_seq, state.pruned_before_seq), revision=state.path_revision)
            self.loaded = True
        self._extend(state.messages)

    def take_unsaved_counts(self) -> dict[str, int]:
        counts, self.unsaved_counts = self.unsaved_counts, {}
        return counts

    def appended(self, stored: Message) -> None:
        """`stored` was appended right after what the window holds: taken in without a read."""
        if self.loaded and stored.seq == self.last_seq + 1:
            self._extend([stored])

    def _clear(self, *, marks: tuple[int, int], revision: int) -> None:
        self.messages: list[Message] = []
        self.chat: list[ChatMessage] = []
        # before[i]: tokens of the non-system messages in messages[:i].
        self.before = [0]
        self.seqs: list[int] = []
        self.system: list[int] = []
        self.system_tokens = self.last_seq = 0
        self.counted_with = self.counter.id
        self.marks, self.revision = marks, revision

    def _extend(self, stored: list[Message]) -> None:
        counter = self.counter
        recount = {m.id: counter.count_message(m.role.value, m.model_text)
                   for m in stored if m.status in FINISHED
                   and (m.tokenizer != counter.id or m.token_count is None)}
        self.unsaved_counts.update(recount)
        start_seq, pruned_before = self.marks
        for message in stored:
            if message.status is Status.STREAMING:
                # Not settled yet: look again from here on the next refresh.
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
            tokens = message.token_count or 0
            if message.role is Role.SYSTEM:
                self.system.append(len(self.messages))
                self.system_tokens += tokens
                self.before.append(self.before[-1])
            else:
                self.before.append(self.before[-1] + tokens)
            self.messages.append(message)
            self.seqs.append(message.seq)
