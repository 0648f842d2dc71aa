"""A conversation's messages: reading them (the history, the latest ones the page draws, one
message, a search), asking and answering, and which versions are shown. Each use case reads in
one unit of work, or has the conversation's log (services/conversation_log.py), its one writer,
make the change."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from docchat.domain import AnswerFacts, Message, Rating, Role, SearchHit, Status
from docchat.domain.titles import title_from
from docchat.errors import InvalidInput, NotFound
from docchat.memory.conversation_memory import ConversationMemory, counted
from docchat.ports import TokenCounter, UnitOfWork, UnitOfWorkFactory
from docchat.services.conversation_log import Compaction, ConversationLog, refuse_unstorable
from docchat.text import lone_surrogate, require_storable


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


class MessageService:
    # list: as in ConversationService, whose methods these were.
    def __init__(self, uow: UnitOfWorkFactory, counter: TokenCounter, log: ConversationLog):
        self._uow = uow
        self._counter = counter
        self._log = log

    def search(self, text: str, *, limit: int = 20) -> list[SearchHit]:
        # Text with a lone surrogate cannot be in any stored message, nor be sent to the database.
        if not isinstance(text, str) or not text.strip() or lone_surrogate(text) is not None:
            return []
        with self._uow() as uow:
            return uow.conversations.search(text, limit=limit)

    def start_answer(self, conversation_id: str, *, model: str | None, version_of: str | None = None,
                     compaction: Compaction | None = None) -> Message:
        """An answer's row, empty and streaming until its turn settles it. A new version of an
        answer hides the others, and what the turn's preparation changed for good (`compaction`)
        is written, in the same unit of work."""
        message = counted(self._counter, conversation_id, Role.ASSISTANT, "", status=Status.STREAMING,
                          facts=AnswerFacts(model=model), version_of=version_of)
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

    def _from(self, conversation_id: str, seq: int) -> tuple[list[Message], list[Message]]:
        """The messages from `seq` on, and those on the way to it that are not shown, the first
        first: the messages shown are one path from the start, so the climb stops at one shown."""
        with self._uow() as uow:
            self._require(uow, conversation_id)
            following = uow.conversations.messages(conversation_id, after_seq=seq - 1)
            if not following or following[0].seq != seq:
                raise NotFound(f"no message {seq} in this conversation")
            hidden: list[Message] = []
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

    def history(self, conversation_id: str) -> list[Message]:
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
            versions: dict[str, list[Message]] = {}
            for message in uow.conversations.versions(conversation_id, list(dict.fromkeys(m.group for m in latest))):
                versions.setdefault(message.group, []).append(message)
        return RecentHistory(latest, shown, versions)

    def memory(self, conversation_id: str) -> ConversationMemory:
        """The conversation's one memory object, shared by every thread of this process."""
        with self._uow() as uow:
            self._require(uow, conversation_id)
        return self._log.memory(conversation_id)

    # internals

    def _require(self, uow: UnitOfWork, conversation_id: str) -> None:
        """As `required`, for callers that need only know the conversation is there: building
        the whole Conversation took a tenth of a millisecond more, 1% of a long history's read."""
        refuse_unstorable(conversation_id)
        if not uow.conversations.is_active(conversation_id):
            raise NotFound(f"no conversation with id {conversation_id}")
