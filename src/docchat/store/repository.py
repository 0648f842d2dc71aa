"""The one place that reads and writes conversation history.

Messages are append-only: a row is never rewritten by pruning or clearing memory;
those move `conversations.memory_start_seq` instead. `seq` is dense per conversation
(1, 2, 3, ...), assigned inside the writer's transaction.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from functools import lru_cache

from sqlalchemy import Connection, Text, bindparam, delete, func, insert, select, text, type_coerce, update

from docchat.exchange import citation_wire
from docchat.domain import (
    Conversation,
    ConversationSettings,
    Message,
    Rating,
    SearchHit,
    Status,
    Summary,
    TitleSource,
    utcnow,
)
from docchat.ports import MemoryState
from docchat.store.message_rows import (conversation_messages, figures_row, group_versions, latest_shown,
                                        message_by_id, message_row)
from docchat.store.search import search_conversations

from docchat.store.tables import conversations, messages, sqlite_json, summaries

# Ids per `IN (...)`: well under SQLite's limit on bound parameters (32,766).
IN_CHUNK = 10_000

_CONVERSATION_COLUMNS = [
    conversations.c.id,
    conversations.c.title,
    conversations.c.created_at,
    conversations.c.updated_at,
    conversations.c.pinned,
    conversations.c.deleted_at,
    # As stored (on SQLite, the JSON text): _settings parses each distinct text once.
    type_coerce(conversations.c.metadata, Text).label("metadata"),
]

# seq is dense, so the last one is the count: read from the end of the (conversation_id, seq)
# index, where counting walked every entry (32,000 for a list of 1,000 conversations).
_MESSAGE_COUNT = (
    select(func.coalesce(func.max(messages.c.seq), 0))
    .where(messages.c.conversation_id == conversations.c.id)
    .scalar_subquery()
    .label("message_count")
)


# A turn's statements, built once: building one costs more than SQLite takes to run it.
_IS_ACTIVE = select(conversations.c.pk).where(conversations.c.id == bindparam("cid"),
                                              conversations.c.deleted_at.is_(None))
_MARKS = select(conversations.c.memory_start_seq, conversations.c.pruned_before_seq,
                conversations.c.path_revision).where(conversations.c.id == bindparam("cid"))
_LAST_SEQ = select(func.coalesce(func.max(messages.c.seq), 0)).where(messages.c.conversation_id == bindparam("cid"))
_LAST_SHOWN = (select(messages.c.id).where(messages.c.conversation_id == bindparam("cid"), messages.c.shown)
               .order_by(messages.c.seq.desc()).limit(1))
_TOUCH = update(conversations).where(conversations.c.id == bindparam("cid")).values(updated_at=bindparam("moment"))
_INSERT_MESSAGE = insert(messages)


def _conversation(row, message_count: int = 0) -> Conversation:
    return Conversation(
        id=row.id,
        title=row.title,
        created_at=row.created_at,
        updated_at=row.updated_at,
        pinned=bool(row.pinned),
        deleted_at=row.deleted_at,
        settings=_settings(row.metadata),
        message_count=message_count,
    )


def _settings(stored) -> ConversationSettings:
    # PostgreSQL's driver hands the JSON over parsed already.
    return _settings_of_text(stored) if isinstance(stored, str) else ConversationSettings.from_dict(stored)


@lru_cache(maxsize=2048)
def _settings_of_text(stored: str) -> ConversationSettings:
    """Settings are immutable, so one object serves every read of the same stored text: the
    sidebar lists every conversation on each rerun, and parsing them was half of that list."""
    return ConversationSettings.from_dict(sqlite_json(stored))


def _summary(row) -> Summary:
    return Summary(
        id=row.id,
        conversation_id=row.conversation_id,
        version=row.version,
        first_seq=row.first_seq,
        last_seq=row.last_seq,
        content=row.content,
        created_at=row.created_at,
        metadata=dict(row.metadata or {}),
        token_count=row.token_count,
        tokenizer=row.tokenizer,
    )


class ConversationRepository:
    def __init__(self, connection: Connection):
        self._db = connection

    # conversations

    def add_conversation(self, conversation: Conversation) -> None:
        self._db.execute(
            insert(conversations).values(
                id=conversation.id,
                title=conversation.title,
                created_at=conversation.created_at,
                updated_at=conversation.updated_at,
                pinned=conversation.pinned,
                archived=False,
                deleted_at=conversation.deleted_at,
                memory_start_seq=1,
                pruned_before_seq=1,
                metadata=conversation.settings.as_dict(),
            )
        )

    def get_conversation(self, conversation_id: str, *, include_deleted: bool = False) -> Conversation | None:
        query = select(*_CONVERSATION_COLUMNS).where(conversations.c.id == conversation_id)
        if not include_deleted:
            query = query.where(conversations.c.deleted_at.is_(None))
        row = self._db.execute(query).first()
        if row is None:
            return None
        return _conversation(row, self.last_seq(conversation_id))

    def conversations_starting_with(self, prefix: str, *, include_deleted: bool = False) -> list[Conversation]:
        """Conversations whose id starts with `prefix` (case-sensitive), most recently updated first."""
        query = (
            select(*_CONVERSATION_COLUMNS)
            .where(conversations.c.id.startswith(prefix, autoescape=True))
            .order_by(conversations.c.updated_at.desc(), conversations.c.pk.desc())
        )
        if not include_deleted:
            query = query.where(conversations.c.deleted_at.is_(None))
        # SQLite's LIKE ignores ASCII case; ids are compared exactly, as on any other database.
        return [_conversation(row) for row in self._db.execute(query) if row.id.startswith(prefix)]

    def is_active(self, conversation_id: str) -> bool:
        """True when the conversation exists and is not deleted."""
        return self._db.execute(_IS_ACTIVE, {"cid": conversation_id}).first() is not None

    def list_conversations(self, *, include_deleted: bool = False) -> list[Conversation]:
        query = select(*_CONVERSATION_COLUMNS, _MESSAGE_COUNT).order_by(
            conversations.c.pinned.desc(), conversations.c.updated_at.desc(), conversations.c.pk.desc()
        )
        if not include_deleted:
            query = query.where(conversations.c.deleted_at.is_(None))
        return [_conversation(row, row.message_count) for row in self._db.execute(query)]

    def set_title(self, conversation_id: str, title: str, source: TitleSource, *,
                  updated_at: datetime | None = None) -> None:
        settings = replace(self._settings(conversation_id), title_source=source)
        self._update(conversation_id, title=title, metadata=settings.as_dict(),
                     **({"updated_at": updated_at} if updated_at is not None else {}))

    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        self._update(conversation_id, pinned=pinned)

    def set_deleted(self, conversation_id: str, deleted_at: datetime | None) -> None:
        self._update(conversation_id, deleted_at=deleted_at)

    def _update(self, conversation_id: str, **values) -> None:
        self._db.execute(update(conversations).where(conversations.c.id == conversation_id).values(**values))

    def purge_conversation(self, conversation_id: str) -> None:
        # Explicit deletes keep PostgreSQL and SQLite alike even where cascades are off.
        self._db.execute(delete(summaries).where(summaries.c.conversation_id == conversation_id))
        self._db.execute(delete(messages).where(messages.c.conversation_id == conversation_id))
        self._db.execute(delete(conversations).where(conversations.c.id == conversation_id))

    def conversations_updated_before(self, cutoff: datetime) -> list[Conversation]:
        """Active, unpinned conversations last updated before `cutoff`, the oldest first."""
        query = (
            select(*_CONVERSATION_COLUMNS)
            .where(conversations.c.updated_at < cutoff, conversations.c.pinned.is_(False),
                   conversations.c.deleted_at.is_(None))
            .order_by(conversations.c.updated_at)
        )
        return [_conversation(row) for row in self._db.execute(query)]

    def deleted_conversations(self, *, deleted_before: datetime | None = None) -> list[Conversation]:
        """The trash: soft-deleted conversations with their message counts, the most recently
        deleted first; only those deleted before `deleted_before` when it is given."""
        query = (
            select(*_CONVERSATION_COLUMNS, _MESSAGE_COUNT)
            .where(conversations.c.deleted_at.is_not(None))
            .order_by(conversations.c.deleted_at.desc(), conversations.c.pk.desc())
        )
        if deleted_before is not None:
            query = query.where(conversations.c.deleted_at < deleted_before)
        return [_conversation(row, row.message_count) for row in self._db.execute(query)]

    def memory_state(self, conversation_id: str, *, after_seq: int) -> MemoryState | None:
        """The messages after `after_seq` with the marks and path revision; None for an unknown
        conversation."""
        row = self._db.execute(_MARKS, {"cid": conversation_id}).first()
        if row is None:
            return None
        return MemoryState(self.messages(conversation_id, after_seq=after_seq), row.memory_start_seq,
                           row.pruned_before_seq, row.path_revision)

    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        self._update(conversation_id, memory_start_seq=memory_start_seq, pruned_before_seq=pruned_before_seq)

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        """Token counts are metadata of a message, recomputed once when the tokenizer changes."""
        for message_id, count in counts.items():
            self._db.execute(
                update(messages).where(messages.c.id == message_id).values(token_count=count, tokenizer=tokenizer)
            )

    # messages

    def last_seq(self, conversation_id: str) -> int:
        return self._db.execute(_LAST_SEQ, {"cid": conversation_id}).scalar_one()

    def append_message(self, message: Message) -> Message:
        """Stores `message` as the next seq of its conversation and returns it with that seq; it
        follows the last message shown unless it names its parent."""
        stored = replace(message, seq=self.last_seq(message.conversation_id) + 1,
                         parent_id=message.parent_id or self._last_shown(message.conversation_id))
        self._db.execute(_INSERT_MESSAGE, message_row(stored))
        self._db.execute(_TOUCH, {"cid": message.conversation_id, "moment": message.created_at})
        return stored

    def settle_message(self, message: Message) -> None:
        """Checkpoints or ends a streaming answer: its text so far, status, usage and count."""
        self._db.execute(
            update(messages)
            .where(messages.c.id == message.id)
            .values(
                content=message.content,
                status=message.status.value,
                token_count=message.token_count,
                tokenizer=message.tokenizer,
                model=message.facts.model,
                usage=message.facts.usage,
                error=message.facts.error,
                citations=citation_wire.to_column(message.facts.citations, message.facts.grounding),
                figures=figures_row(message.facts),
                updated_at=utcnow(),
            )
        )

    def get_message(self, message_id: str) -> Message | None:
        return message_by_id(self._db, message_id)

    def show_version(self, conversation_id: str, group: str, message_id: str | None) -> None:
        """Shows `message_id` of the versions in `group` (the id of the first) with the branch
        that follows it, hiding the version shown and the branch that followed that one; None
        hides them all. The messages shown stay one path: each follows the one before it."""
        self._db.execute(update(conversations).where(conversations.c.id == conversation_id)
                         .values(path_revision=conversations.c.path_revision + 1))
        in_group = (messages.c.id == group) | (messages.c.version_of == group)
        shown_seq = self._db.execute(
            select(func.min(messages.c.seq)).where(messages.c.conversation_id == conversation_id, in_group,
                                                   messages.c.shown)).scalar()
        if shown_seq is not None:
            self._db.execute(update(messages).where(messages.c.conversation_id == conversation_id,
                                                    messages.c.seq >= shown_seq).values(shown=False))
            # A truncation cut the branch now hidden; the branch shown is fitted anew.
            self._db.execute(update(conversations).where(conversations.c.id == conversation_id,
                                                         conversations.c.pruned_before_seq > shown_seq)
                             .values(pruned_before_seq=conversations.c.memory_start_seq))
        self._db.execute(update(messages).where(messages.c.conversation_id == conversation_id, in_group)
                         .values(shown=False))
        if message_id is None:
            return
        # Down the branch, the latest of the messages that followed each one; a message follows
        # only earlier ones, so the branch is among the messages after the version shown.
        start = self._db.execute(select(messages.c.seq).where(messages.c.id == message_id)).scalar()
        latest_child: dict[str, str] = {}
        for id, parent_id in self._db.execute(
                select(messages.c.id, messages.c.parent_id)
                .where(messages.c.conversation_id == conversation_id, messages.c.seq > start)
                .order_by(messages.c.seq)):
            latest_child[parent_id] = id
        branch, node = [], message_id
        while node is not None:
            branch.append(node)
            node = latest_child.get(node)
        for at in range(0, len(branch), IN_CHUNK):
            self._db.execute(update(messages).where(messages.c.id.in_(branch[at:at + IN_CHUNK])).values(shown=True))

    def _last_shown(self, conversation_id: str) -> str | None:
        return self._db.execute(_LAST_SHOWN, {"cid": conversation_id}).scalar()

    def set_rating(self, message_id: str, rating: Rating | None) -> None:
        self._db.execute(update(messages).where(messages.c.id == message_id)
                         .values(rating=rating.value if rating else None))

    def save_settings(self, conversation_id: str, settings: ConversationSettings) -> None:
        self._update(conversation_id, metadata=settings.as_dict())

    def _settings(self, conversation_id: str) -> ConversationSettings:
        stored = self._db.execute(
            select(conversations.c.metadata).where(conversations.c.id == conversation_id)
        ).scalar_one_or_none()
        return ConversationSettings.from_dict(stored)

    def interrupt_stale_streaming(self, before: datetime | None) -> int:
        """Answers left `streaming` by a crash become `interrupted`, keeping their text: those
        silent since `before`, or every one (None: no other process can be writing one)."""
        query = update(messages).where(messages.c.status == Status.STREAMING.value)
        if before is not None:
            query = query.where(func.coalesce(messages.c.updated_at, messages.c.created_at) < before)
        result = self._db.execute(query.values(status=Status.INTERRUPTED.value))
        return result.rowcount

    def insert_messages(self, batch: list[Message]) -> None:
        """Stores messages with the seq they carry (import); the caller keeps seq dense."""
        if batch:
            self._db.execute(insert(messages), [message_row(m) for m in batch])

    def messages(self, conversation_id: str, *, after_seq: int = 0) -> list[Message]:
        return conversation_messages(self._db, conversation_id, after_seq=after_seq)

    def latest_shown(self, conversation_id: str, count: int) -> tuple[list[Message], int]:
        return latest_shown(self._db, conversation_id, count)

    def versions(self, conversation_id: str, groups: list[str]) -> list[Message]:
        return group_versions(self._db, conversation_id, groups)

    def message_ids(self, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        return set(self._db.execute(select(messages.c.id).where(messages.c.id.in_(ids))).scalars())

    # summaries

    def summary_ids(self, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        return set(self._db.execute(select(summaries.c.id).where(summaries.c.id.in_(ids))).scalars())

    def add_summary(self, summary: Summary) -> None:
        """Stores a summary; one made on a branch whose version another branch has already
        used gets the next free version."""
        taken = self._db.execute(select(func.max(summaries.c.version))
                                 .where(summaries.c.conversation_id == summary.conversation_id)).scalar() or 0
        self._db.execute(
            insert(summaries).values(
                id=summary.id,
                conversation_id=summary.conversation_id,
                version=summary.version if summary.version > taken else taken + 1,
                first_seq=summary.first_seq,
                last_seq=summary.last_seq,
                content=summary.content,
                metadata=summary.metadata,
                token_count=summary.token_count,
                tokenizer=summary.tokenizer,
                created_at=summary.created_at,
            )
        )

    def latest_summary(self, conversation_id: str, *, before_seq: int | None = None) -> Summary | None:
        """The latest summary of the branch shown (the message it ends at is shown, and so is
        everything it covers); `before_seq`: of what comes before that seq only."""
        ends_shown = (select(messages.c.id).where(messages.c.conversation_id == conversation_id,
                                                  messages.c.seq == summaries.c.last_seq, messages.c.shown)
                      .exists())
        query = select(summaries).where(summaries.c.conversation_id == conversation_id, ends_shown)
        if before_seq is not None:
            query = query.where(summaries.c.last_seq < before_seq)
        query = query.order_by(summaries.c.version.desc()).limit(1)
        row = self._db.execute(query).first()
        return _summary(row) if row else None

    def summaries(self, conversation_id: str) -> list[Summary]:
        query = select(summaries).where(summaries.c.conversation_id == conversation_id).order_by(summaries.c.version)
        return [_summary(row) for row in self._db.execute(query)]

    # search and health

    def search(self, query: str, *, limit: int) -> list[SearchHit]:
        return search_conversations(self._db, query, limit=limit)

    def counts(self) -> dict[str, int]:
        def count(query) -> int:
            return self._db.execute(query).scalar_one()

        return {
            "conversations": count(
                select(func.count()).select_from(conversations).where(conversations.c.deleted_at.is_(None))
            ),
            "deleted_conversations": count(
                select(func.count()).select_from(conversations).where(conversations.c.deleted_at.is_not(None))
            ),
            "messages": count(select(func.count()).select_from(messages)),
            "summaries": count(select(func.count()).select_from(summaries)),
        }

    def integrity(self) -> str:
        if self._db.dialect.name != "sqlite":
            return "not checked (not SQLite)"
        rows = [row[0] for row in self._db.execute(text("PRAGMA integrity_check"))]
        return "; ".join(rows)
