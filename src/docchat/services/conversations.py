"""Conversation use cases: each reads in one unit of work, or has the conversation's log
(services/conversation_log.py), its one writer, make the change."""

from __future__ import annotations

import builtins
import uuid
from dataclasses import dataclass, replace
from typing import Callable

from docchat.domain import (
    Conversation,
    ConversationSettings,
    Message,
    Rating,
    Role,
    SearchHit,
    Status,
    TitleSource,
    utcnow,
)
from docchat.errors import InvalidInput, NotFound
from docchat.memory.conversation_memory import ConversationMemory, counted
from docchat.ports import TokenCounter, UnitOfWork, UnitOfWorkFactory
from docchat.services.conversation_log import Compaction, ConversationLog, refuse_unstorable, required
from docchat.services.id_prefixes import resolve
# Also looked up here by the callers of these use cases (the import, the transfer, the API).
from docchat.domain.titles import DEFAULT_TITLE, clean_title, title_from, uncut_title
from docchat.text import lone_surrogate, require_storable

MAX_INSTRUCTIONS = 4_000


def require_message(text: object) -> None:
    """A message is text with something in it that the store can hold as it is (see docchat.text)."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a message cannot be empty")
    require_storable(text, "a message")


@dataclass(frozen=True)
class RecentHistory:
    """What the page draws of a conversation: its latest messages, not the whole of it."""

    # The latest messages of the path shown, in order.
    messages: list[Message]
    # How many messages the path shown holds in all.
    shown: int
    # Every version of each of those messages, in order, by the id of its first version.
    versions: dict[str, list[Message]]


@dataclass(frozen=True)
class FoundMessage:
    """A message a search found, on the path shown now."""

    message: Message
    # How many messages of the path shown, counted from the last, reach back to it: the page
    # draws at least that many.
    reach: int
    # Whether the path shown had to change to hold it (it was in a version not shown).
    switched: bool


class ConversationService:
    # builtins.list: the method named list hides the builtin in this class's annotations.
    def __init__(self, uow: UnitOfWorkFactory, counter: TokenCounter, log: ConversationLog):
        self._uow = uow
        self._counter = counter
        self._log = log

    @property
    def counter(self) -> TokenCounter:
        return self._counter

    # conversations

    def create(self, title: str = DEFAULT_TITLE, *, source: TitleSource | None = None) -> Conversation:
        """`source` says who chose the title; a title given here is the user's unless told otherwise."""
        now = utcnow()
        title = clean_title(title)
        source = source or (TitleSource.DEFAULT if title == DEFAULT_TITLE else TitleSource.USER)
        conversation = Conversation(id=str(uuid.uuid4()), title=title, created_at=now, updated_at=now,
                                    settings=ConversationSettings(title_source=source))
        self._log.create(conversation)
        return conversation

    def list(self) -> builtins.list[Conversation]:
        """Pinned first, then most recently updated."""
        with self._uow() as uow:
            return uow.conversations.list_conversations()

    def get(self, conversation_id: str) -> Conversation:
        with self._uow() as uow:
            return required(uow, conversation_id)

    def resolve_id(self, prefix: str, *, include_deleted: bool = False) -> str:
        """The id of the one conversation whose id starts with `prefix` (a full id names its own);
        deleted ones count only with `include_deleted`, for the commands that act on them."""
        with self._uow() as uow:
            repo = uow.conversations
            return resolve(
                prefix, "conversation",
                exists=lambda found: repo.get_conversation(found, include_deleted=include_deleted) is not None,
                starting_with=lambda start: [(c.id, c.title) for c in
                                             repo.conversations_starting_with(start, include_deleted=include_deleted)],
            )

    def rename(self, conversation_id: str, title: str, *, source: TitleSource = TitleSource.USER) -> Conversation:
        """A title the user sets is never overwritten by an automatic one."""
        return self._log.retitle(conversation_id, clean_title(title), source)

    def title_to_edit(self, conversation_id: str) -> str:
        """The title as Rename offers it: one docchat cut from the first question ("When is the
        Determination Date for the 2024…") comes back whole, so that the user edits their own
        words rather than docchat's cut; any other title as it is."""
        conversation = self.get(conversation_id)
        title, source = conversation.title, conversation.settings.title_source
        if source not in (TitleSource.FIRST_WORDS, TitleSource.MODEL) or not title.endswith("…"):
            return title
        # The history is read only for a title that may have been cut. Any question may be the
        # one: an edit of the first question before its first answer names the conversation.
        for message in self.history(conversation_id):
            whole = uncut_title(title, message.content) if message.role is Role.USER else None
            if whole is not None:
                return whole
        # Its question is not stored as it was (an import keeps one branch): the "…" of first
        # words is docchat's all the same, while a model's title keeps its own.
        return title[:-1] if source is TitleSource.FIRST_WORDS else title

    def pin(self, conversation_id: str) -> Conversation:
        return self._log.set_pinned(conversation_id, True)

    def unpin(self, conversation_id: str) -> Conversation:
        return self._log.set_pinned(conversation_id, False)

    def delete(self, conversation_id: str, *, purge: bool = False) -> None:
        """Soft delete hides the conversation; purge removes it and its messages for good."""
        self._log.delete(conversation_id, purge=purge)

    def search(self, text: str, *, limit: int = 20) -> builtins.list[SearchHit]:
        # Text with a lone surrogate cannot be in any stored message, nor be sent to the database.
        if not isinstance(text, str) or not text.strip() or lone_surrogate(text) is not None:
            return []
        with self._uow() as uow:
            return uow.conversations.search(text, limit=limit)

    # messages

    def start_answer(self, conversation_id: str, *, model: str | None, version_of: str | None = None,
                     compaction: Compaction | None = None) -> Message:
        """An answer's row, empty and streaming until its turn settles it. A new version of an
        answer hides the others, and what the turn's preparation changed for good (`compaction`)
        is written, in the same unit of work."""
        message = counted(self._counter, conversation_id, Role.ASSISTANT, "", status=Status.STREAMING, model=model,
                          version_of=version_of)
        return self._log.open_answer(message, compaction=compaction)

    def append_message(self, conversation_id: str, role: str, content: str) -> Message:
        require_message(content)
        return self._log.append(counted(self._counter, conversation_id, role, content))

    def post_user_message(self, conversation_id: str | None, text: str, *, sent_content: str | None = None,
                          rewritten_query: str | None = None, version_of: str | None = None) -> Message:
        """Stores what the user typed, starting a conversation when none is open; `version_of`:
        it is an edit of that question (the group's first version), and the versions of it
        shown until now are hidden in the same unit of work.

        A conversation still called "New conversation" takes its title from its first message.
        """
        require_message(text)
        message = counted(self._counter, conversation_id or str(uuid.uuid4()), Role.USER, text,
                          sent_content=sent_content, rewritten_query=rewritten_query, version_of=version_of)
        return self._log.ask(message, title=title_from(text), new=conversation_id is None)

    def set_instructions(self, conversation_id: str, text: str) -> None:
        """The conversation's own instructions to the model (a system prompt of its own); empty
        removes them."""
        if not isinstance(text, str):
            raise InvalidInput("instructions must be text")
        require_storable(text, "instructions")
        text = text.strip()
        if len(text) > MAX_INSTRUCTIONS:
            raise InvalidInput(f"instructions can be at most {MAX_INSTRUCTIONS:,} characters ({len(text):,} given)")
        self._change_settings(conversation_id, lambda settings: replace(settings, instructions=text))

    def set_documents_only(self, conversation_id: str, documents_only: bool | None) -> None:
        """Whether the conversation answers from its documents only (when nothing is found there,
        docchat says so without asking the model); None follows the default in Settings."""
        if documents_only is not None and not isinstance(documents_only, bool):
            raise InvalidInput("documents only is on or off")
        self._change_settings(conversation_id, lambda settings: replace(settings, documents_only=documents_only))

    def fresh_start(self, conversation_id: str) -> Conversation:
        """A new, empty conversation that searches the same documents with the same instructions
        (and answers from them only, if the old one did)."""
        settings = self.get(conversation_id).settings
        conversation = self.create()
        self._change_settings(conversation.id, lambda new: replace(
            new, document_scope=settings.document_scope, instructions=settings.instructions,
            documents_only=settings.documents_only))
        return self.get(conversation.id)

    def show_version(self, conversation_id: str, message_id: str | None, *, group: str | None = None) -> None:
        """Shows one version of a question or an answer, with the turns that followed it (the
        history, and so the model, follow it), and hides the version shown before with the turns
        that followed that one; `message_id=None` hides every version of `group`."""
        self._log.show_version(conversation_id, message_id, group=group)

    def show_found(self, conversation_id: str, seq: int) -> FoundMessage:
        """Shows the message a search found at `seq`, however deep in versions not shown it lies
        (a question as first asked, or what followed it): it and each message it follows that is
        not shown are shown, the first first, as the version arrows show one (the history, and so
        the model, follow it)."""
        following, hidden = self._from(conversation_id, seq)
        for message in hidden:
            # Showing a message higher up may have shown this one with it.
            if not self._message(conversation_id, message.id).shown:
                self.show_version(conversation_id, message.id)
        if hidden:
            following, _ = self._from(conversation_id, seq)
        return FoundMessage(following[0], sum(m.shown for m in following), switched=bool(hidden))

    def _from(self, conversation_id: str, seq: int) -> tuple[builtins.list[Message], builtins.list[Message]]:
        """The messages from `seq` on, and those on the way to it that are not shown, the first
        first: the messages shown are one path from the start, so the climb stops at one shown."""
        with self._uow() as uow:
            self._require(uow, conversation_id)
            following = uow.conversations.messages(conversation_id, after_seq=seq - 1)
            if not following or following[0].seq != seq:
                raise NotFound(f"no message {seq} in this conversation")
            hidden: builtins.list[Message] = []
            node: Message | None = following[0]
            while node is not None and not node.shown:
                hidden.append(node)
                node = uow.conversations.get_message(node.parent_id) if node.parent_id else None
        return following, hidden[::-1]

    def message(self, conversation_id: str, message_id: str) -> Message:
        """One message as stored now (a page watches an answer that another run is writing)."""
        return self._message(conversation_id, message_id)

    def _message(self, conversation_id: str, message_id: str) -> Message:
        with self._uow() as uow:
            found = uow.conversations.get_message(message_id)
        if found is None or found.conversation_id != conversation_id:
            raise NotFound(f"no message with id {message_id} in this conversation")
        return found

    def rate(self, conversation_id: str, message_id: str, rating: Rating | None) -> None:
        """A thumbs up or down on one of the conversation's answers; None takes it back."""
        self._log.rate(conversation_id, message_id, rating)

    def set_document_scope(self, conversation_id: str, document_ids: builtins.list[str] | None) -> None:
        """Which documents this conversation searches; None means all of them."""
        scope = tuple(document_ids) if document_ids is not None else None
        self._change_settings(conversation_id, lambda settings: replace(settings, document_scope=scope))

    def history(self, conversation_id: str) -> builtins.list[Message]:
        """Every stored message, in order, including those outside the memory."""
        with self._uow() as uow:
            self._require(uow, conversation_id)
            return uow.conversations.messages(conversation_id)

    def recent(self, conversation_id: str, count: int) -> RecentHistory:
        """The latest `count` messages shown, with their versions. The page reads only these on
        each run: a whole history of 2,000 answers, each with its figures and passages, takes
        tens of milliseconds to read, and the page draws 50 of them."""
        with self._uow() as uow:
            self._require(uow, conversation_id)
            latest, shown = uow.conversations.latest_shown(conversation_id, count)
            versions: dict[str, builtins.list[Message]] = {}
            for message in uow.conversations.versions(conversation_id, list(dict.fromkeys(m.group for m in latest))):
                versions.setdefault(message.group, []).append(message)
        return RecentHistory(latest, shown, versions)

    def memory(self, conversation_id: str) -> ConversationMemory:
        """The conversation's one memory object, shared by every thread of this process."""
        self.get(conversation_id)
        return self._log.memory(conversation_id)

    # internals

    def _require(self, uow: UnitOfWork, conversation_id: str) -> None:
        """As `required`, for callers that need only know the conversation is there: building
        the whole Conversation took a tenth of a millisecond more, 1% of a long history's read."""
        refuse_unstorable(conversation_id)
        if not uow.conversations.is_active(conversation_id):
            raise NotFound(f"no conversation with id {conversation_id}")

    def _change_settings(self, conversation_id: str,
                         change: Callable[[ConversationSettings], ConversationSettings]) -> None:
        self._log.change_settings(conversation_id, change)
