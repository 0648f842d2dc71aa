"""Conversations as a whole: making, listing, naming, pinning and deleting them, and their
settings (instructions, documents only, which documents they search). Their messages are
services/messages.py's. Each use case reads in one unit of work, or has the conversation's log
(services/conversation_log.py), its one writer, make the change."""

from __future__ import annotations

import builtins
import uuid
from dataclasses import replace
from typing import Callable

from docchat.domain import Conversation, ConversationSettings, Role, TitleSource, utcnow
from docchat.domain.titles import DEFAULT_TITLE, clean_title, uncut_title
from docchat.errors import InvalidInput
from docchat.ports import TokenCounter, UnitOfWorkFactory
from docchat.services.conversation_log import ConversationLog, required
from docchat.services.id_prefixes import resolve
from docchat.text import require_storable

MAX_INSTRUCTIONS = 4_000


class ConversationService:
    # builtins.list: the method named list hides the builtin in this class's annotations.
    def __init__(self, uow: UnitOfWorkFactory, counter: TokenCounter, log: ConversationLog):
        self._uow = uow
        self._counter = counter
        self._log = log

    @property
    def counter(self) -> TokenCounter:
        return self._counter

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
        with self._uow() as uow:
            history = uow.conversations.messages(conversation_id)
        for message in history:
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

    def set_quoted_answers(self, conversation_id: str, quoted: bool | None) -> None:
        """Whether the conversation's answers are quoted from its documents, no model asked, when
        they hold one; None follows the default in Settings."""
        if quoted is not None and not isinstance(quoted, bool):
            raise InvalidInput("quoted answers are on or off")
        self._change_settings(conversation_id, lambda settings: replace(settings, quoted_answers=quoted))

    def fresh_start(self, conversation_id: str) -> Conversation:
        """A new, empty conversation that searches the same documents with the same instructions
        (and answers from them only, or in quotes, if the old one did)."""
        settings = self.get(conversation_id).settings
        conversation = self.create()
        self._change_settings(conversation.id, lambda new: replace(
            new, document_scope=settings.document_scope, instructions=settings.instructions,
            documents_only=settings.documents_only, quoted_answers=settings.quoted_answers))
        return self.get(conversation.id)

    def set_document_scope(self, conversation_id: str, document_ids: builtins.list[str] | None) -> None:
        """Which documents this conversation searches; None means all of them."""
        scope = tuple(document_ids) if document_ids is not None else None
        self._change_settings(conversation_id, lambda settings: replace(settings, document_scope=scope))

    # internals

    def _change_settings(self, conversation_id: str,
                         change: Callable[[ConversationSettings], ConversationSettings]) -> None:
        self._log.change_settings(conversation_id, change)
