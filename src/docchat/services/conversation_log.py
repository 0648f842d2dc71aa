"""The one writer of conversation tables. Every change to a conversation, its messages and
versions, summaries, memory marks, settings and what its answers cited is a verb here, one unit
of work each: the services decide what to change, and this is where it is written. A change to
how a conversation is stored touches this module, and a reader finds every write in one place.

The memories of the conversations in use are kept here too: the log tells each one of the
messages it appends, so that the next read need not fetch them."""

from __future__ import annotations

import builtins
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Callable, Sequence

from docchat.context.session import updated
from docchat.domain import (
    Citation,
    Conversation,
    ConversationSettings,
    ImportReport,
    Message,
    Rating,
    Role,
    SessionMemory,
    Summary,
    TitleSource,
    utcnow,
)
from docchat.domain.titles import DEFAULT_TITLE
from docchat.errors import InvalidExport, NotFound
from docchat.exchange import ImportedConversation
from docchat.memory.conversation_memory import ConversationMemory
from docchat.ports import TokenCounter, UnitOfWork, UnitOfWorkFactory
from docchat.text import one_line, unstorable

# A streaming answer checkpoints every second; one silent for this long was cut off by a crash
# (the rule when another process may be streaming it: see store/presence.py).
STALE_STREAM = timedelta(minutes=2)
# Memories kept in RAM at once; a memory dropped here reloads from the store when next used.
# A memory kept checks itself against each read (see memory.window): nothing here tells it to forget.
OPEN_MEMORIES = 32


@dataclass(frozen=True)
class Compaction:
    """What preparing a turn changed for good: the one event that breaks the prompt's prefix."""

    # The memory's first message, and the seq before which a truncation cut the rest (None: no cut).
    memory_start_seq: int
    pruned_before_seq: int | None = None
    summary: Summary | None = None
    truncated: bool = False
    # A condensation that failed, and the seq from which it may be tried again (with an error only).
    condense_error: str | None = None
    condense_after_seq: int = 0


class ConversationLog:
    # builtins.list: a verb named like a builtin would hide it in this class's annotations.
    def __init__(self, uow: UnitOfWorkFactory, counter: TokenCounter):
        self._uow = uow
        self._counter = counter
        self._memories: OrderedDict[str, ConversationMemory] = OrderedDict()
        self._memories_lock = threading.Lock()

    def memory(self, conversation_id: str) -> ConversationMemory:
        """The conversation's one memory object, shared by every thread of this process."""
        with self._memories_lock:
            memory = self._memories.get(conversation_id)
            if memory is None:
                memory = ConversationMemory(conversation_id, self._uow, self._counter, writer=self)
                self._memories[conversation_id] = memory
                if len(self._memories) > OPEN_MEMORIES:
                    self._memories.popitem(last=False)
            self._memories.move_to_end(conversation_id)
            return memory

    # conversations

    def create(self, conversation: Conversation) -> None:
        with self._uow(write=True) as uow:
            uow.conversations.add_conversation(conversation)
            uow.commit()

    def retitle(self, conversation_id: str, title: str, source: TitleSource) -> Conversation:
        """A title the user set is never overwritten by an automatic one."""
        with self._uow(write=True) as uow:
            current = required(uow, conversation_id)
            if source is not TitleSource.USER and current.settings.title_source is TitleSource.USER:
                return current
            uow.conversations.set_title(conversation_id, title, source, updated_at=utcnow())
            changed = required(uow, conversation_id)
            uow.commit()
            return changed

    def set_pinned(self, conversation_id: str, pinned: bool) -> Conversation:
        with self._uow(write=True) as uow:
            required(uow, conversation_id)
            uow.conversations.set_pinned(conversation_id, pinned)
            changed = required(uow, conversation_id)
            uow.commit()
            return changed

    def change_settings(self, conversation_id: str,
                        change: Callable[[ConversationSettings], ConversationSettings]) -> None:
        """The settings as `change` makes them of the stored ones, read and written in one unit of work."""
        with self._uow(write=True) as uow:
            current = required(uow, conversation_id).settings
            uow.conversations.save_settings(conversation_id, change(current))
            uow.commit()

    def delete(self, conversation_id: str, *, purge: bool) -> None:
        """To the trash, or (purge) gone for good with its messages."""
        with self._uow(write=True) as uow:
            found = uow.conversations.get_conversation(conversation_id, include_deleted=purge)
            if found is None:
                raise NotFound(f"no conversation with id {conversation_id}")
            if purge:
                uow.conversations.purge_conversation(conversation_id)
            else:
                uow.conversations.set_deleted(conversation_id, utcnow())
            uow.commit()

    def restore(self, conversation_id: str) -> Conversation:
        with self._uow(write=True) as uow:
            found = uow.conversations.get_conversation(conversation_id, include_deleted=True)
            if found is None:
                raise NotFound(f"no conversation with id {conversation_id} in the trash")
            if found.deleted_at is None:
                raise NotFound(f"“{found.title}” ({conversation_id}) is not in the trash")
            uow.conversations.set_deleted(conversation_id, None)
            restored = required(uow, conversation_id)
            uow.commit()
            return restored

    def empty_trash(self) -> builtins.list[Conversation]:
        """Purges every conversation in the trash; returns those it removed."""
        with self._uow(write=True) as uow:
            purged = uow.conversations.deleted_conversations()
            for conversation in purged:
                uow.conversations.purge_conversation(conversation.id)
            uow.commit()
        return purged

    def purge_stale(self, cutoff: datetime) -> builtins.list[Conversation]:
        """Purges unpinned conversations not updated since `cutoff`, and those in the trash since
        before it; returns those it removed."""
        with self._uow(write=True) as uow:
            stale = stale_conversations(uow, cutoff)
            for conversation in stale:
                uow.conversations.purge_conversation(conversation.id)
            uow.commit()
        return stale

    def import_conversations(self, documents: Sequence[ImportedConversation]) -> builtins.list[ImportReport]:
        """All or nothing: a conversation already here is reported and left as it is."""
        with self._uow(write=True) as uow:
            reports = [self._import(uow, document) for document in documents]
            uow.commit()
        return reports

    # messages

    def ask(self, question: Message, *, title: str, new: bool = False) -> Message:
        """Stores a question, the first of a `new` conversation called `title`; a conversation
        still called "New conversation" takes `title` with its first message. An edit of a
        question (`version_of`) hides the versions of it shown until now."""
        conversation_id = question.conversation_id

        def before(uow: UnitOfWork) -> None:
            if new:
                now = utcnow()
                uow.conversations.add_conversation(Conversation(
                    id=conversation_id, title=title, created_at=now, updated_at=now,
                    settings=ConversationSettings(title_source=TitleSource.FIRST_WORDS)))
                return
            current = required(uow, conversation_id)
            if current.title == DEFAULT_TITLE and uow.conversations.last_seq(conversation_id) == 0:
                uow.conversations.set_title(conversation_id, title, TitleSource.FIRST_WORDS)
            _hide_versions_of(uow, question)

        return self._append(question, before=before)

    def open_answer(self, answer: Message, *, compaction: Compaction | None = None) -> Message:
        """An answer's row, streaming until it is settled. A new version of an answer hides the
        others; what preparing its turn changed for good is written in the same unit of work."""

        def before(uow: UnitOfWork) -> None:
            if compaction is not None:
                _compact(uow, answer.conversation_id, compaction)
            _hide_versions_of(uow, answer)

        return self._append(answer, before=before)

    def append(self, message: Message) -> Message:
        return self._append(message)

    def compact(self, conversation_id: str, compaction: Compaction) -> None:
        with self._uow(write=True) as uow:
            _compact(uow, conversation_id, compaction)
            uow.commit()

    def checkpoint(self, answer: Message) -> None:
        """What a streaming answer has written so far."""
        with self._uow(write=True) as uow:
            uow.conversations.settle_message(answer)
            uow.commit()

    def settle(self, answer: Message, *, asked: str | None = None,
               cited: Sequence[Citation] = ()) -> SessionMemory | None:
        """The answer as it ended. Once it completes the question `asked`, the conversation's
        session memory learns the exchange, and `cited` are counted as the documents it cited,
        in the same unit of work; returns that session memory."""
        with self._uow(write=True) as uow:
            uow.conversations.settle_message(answer)
            session = _remember(uow, answer, asked, cited) if asked is not None else None
            uow.commit()
        return session

    def show_version(self, conversation_id: str, message_id: str | None, *, group: str | None = None) -> None:
        """Shows one version of a message, with the turns that followed it, and hides the version
        shown before; `message_id=None` hides every version of `group`."""
        with self._uow(write=True) as uow:
            if message_id is not None:
                found = uow.conversations.get_message(message_id)
                if found is None or found.conversation_id != conversation_id:
                    raise NotFound(f"no message with id {message_id} in this conversation")
                group = found.group
            if group is None:
                raise NotFound("no message or version group given to show")
            uow.conversations.show_version(conversation_id, group, message_id)
            uow.commit()

    def rate(self, conversation_id: str, message_id: str, rating: Rating | None) -> None:
        with self._uow(write=True) as uow:
            found = uow.conversations.get_message(message_id)
            if found is None or found.conversation_id != conversation_id or found.role is not Role.ASSISTANT:
                raise NotFound(f"no answer with id {message_id} in this conversation")
            uow.conversations.set_rating(message_id, rating)
            uow.commit()

    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        """Where the memory starts and what a prune left out of it; the stored messages stay."""
        with self._uow(write=True) as uow:
            uow.conversations.set_memory_marks(conversation_id, memory_start_seq=memory_start_seq,
                                               pruned_before_seq=pruned_before_seq)
            uow.commit()

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        """Counts made again for another tokenizer, kept so that they are not made again."""
        with self._uow(write=True) as uow:
            uow.conversations.store_token_counts(counts, tokenizer)
            uow.commit()

    # internals

    def _append(self, message: Message, *, before: Callable[[UnitOfWork], object] = lambda uow: None) -> Message:
        """The one way a message is stored: in one writing unit of work, after what `before`
        checks and changes in it; the conversation's memory is told, so it need not read it back."""
        refuse_unstorable(message.conversation_id)
        memory = self.memory(message.conversation_id)
        counts, tokenizer = memory.unsaved_counts()
        with self._uow(write=True) as uow:
            before(uow)
            if not uow.conversations.is_active(message.conversation_id):
                raise NotFound(f"no conversation with id {message.conversation_id}")
            stored = uow.conversations.append_message(message)
            if counts:
                uow.conversations.store_token_counts(counts, tokenizer)
            uow.commit()
        memory.appended(stored)
        return stored

    def _import(self, uow: UnitOfWork, document: ImportedConversation) -> ImportReport:
        conversation, repo = document.conversation, uow.conversations
        present = repo.get_conversation(conversation.id, include_deleted=True)
        if present is not None:
            return ImportReport(conversation.id, conversation.title, 0, already_present=True,
                                present_but_deleted=present.deleted_at is not None)
        if repo.message_ids([m.id for m in document.messages]) or repo.summary_ids([s.id for s in document.summaries]):
            raise InvalidExport(
                f"{one_line(conversation.title)}: its message or summary ids already belong to another "
                "conversation; import it with --as-copy"
            )
        repo.add_conversation(conversation)
        repo.insert_messages([self._counted(m) for m in document.messages])
        for summary in document.summaries:
            repo.add_summary(summary)
        return ImportReport(conversation.id, conversation.title, len(document.messages), already_present=False)

    def _counted(self, message: Message) -> Message:
        if message.tokenizer == self._counter.id and message.token_count is not None:
            return message
        count = self._counter.count_message(message.role.value, message.content)
        return replace(message, token_count=count, tokenizer=self._counter.id)


def interrupt_abandoned_answers(uow: UnitOfWorkFactory, *, before: datetime | None) -> None:
    """What a crash left behind: answers a crash left `streaming` become interrupted, their text
    kept: every one when no other process uses the database (`before` None), else those silent
    since `before`. Start-up calls it before anything else is built (docchat.bootstrap.database)."""
    with uow(write=True) as work:
        work.conversations.interrupt_stale_streaming(before)
        work.commit()


def required(uow: UnitOfWork, conversation_id: str) -> Conversation:
    """The conversation, as `uow` reads it; NotFound when it is not there (or in the trash)."""
    refuse_unstorable(conversation_id)
    conversation = uow.conversations.get_conversation(conversation_id)
    if conversation is None:
        raise NotFound(f"no conversation with id {conversation_id}")
    return conversation


def stale_conversations(uow: UnitOfWork, cutoff: datetime) -> builtins.list[Conversation]:
    """Unpinned conversations not updated since `cutoff`, and those in the trash since before it."""
    return (uow.conversations.conversations_updated_before(cutoff)
            + uow.conversations.deleted_conversations(deleted_before=cutoff))


def _hide_versions_of(uow: UnitOfWork, message: Message) -> None:
    if message.version_of is not None:
        uow.conversations.show_version(message.conversation_id, message.version_of, None)


def _compact(uow: UnitOfWork, conversation_id: str, compaction: Compaction) -> None:
    """A new summary or a truncation is a compaction. A truncation's cut leaves the memory: the
    messages before it are pruned (none is deleted)."""
    repo = uow.conversations
    if compaction.pruned_before_seq is not None:
        repo.set_memory_marks(conversation_id, memory_start_seq=compaction.memory_start_seq,
                              pruned_before_seq=compaction.pruned_before_seq)
    current = settings = required(uow, conversation_id).settings
    if compaction.summary is not None:
        repo.add_summary(compaction.summary)
    if compaction.summary is not None or compaction.truncated:
        settings = replace(settings, compactions=current.compactions + 1)
    if compaction.truncated:
        settings = replace(settings, truncations=current.truncations + 1)
    if compaction.condense_error:
        settings = replace(settings, condense_after_seq=compaction.condense_after_seq,
                           last_condense_error=compaction.condense_error)
    if settings != current:
        repo.save_settings(conversation_id, settings)


def _remember(uow: UnitOfWork, answer: Message, asked: str, cited: Sequence[Citation]) -> SessionMemory:
    """What the conversation remembers of the exchange (the passages it was given are what
    follow-ups lean on), and which documents the answer cited ("Cited in" counts those only)."""
    given, conversation_id = answer.facts.citations, answer.conversation_id
    settings = required(uow, conversation_id).settings
    session = updated(settings.session, question=asked, answer=answer.content,
                      documents=[c.document_id for c in given], sections=[f"{c.document}: {c.where}" for c in given])
    uow.documents.add_citations([
        {"message_id": answer.id, "conversation_id": conversation_id, "document_id": c.document_id,
         "chunk_id": c.chunk_id, "number": c.number, "score": c.score} for c in cited])
    uow.conversations.save_settings(conversation_id, replace(settings, session=session))
    return session


def refuse_unstorable(conversation_id: str) -> None:
    # An id from a link (`?c=...`) may hold what no database can be asked about (NUL...).
    if unstorable(conversation_id) is not None:
        raise NotFound(f"no conversation with id {one_line(repr(conversation_id))}")
