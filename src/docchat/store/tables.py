"""The schema as SQLAlchemy Core tables. Migrations create it; this module describes it, less
the full-text indexes that only the search queries read: FTS5 tables on SQLite, a generated
search_vector column in messages, conversations and chunks on PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.types import TypeDecorator

metadata = MetaData()


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC on the way in and out; SQLite would otherwise drop the offset."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store")
        return value.astimezone(timezone.utc).replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)

    def result_processor(self, dialect, coltype):
        # One step where SQLAlchemy takes two: lists of thousands of rows read these.
        return sqlite_moment if dialect.name == "sqlite" else super().result_processor(dialect, coltype)


# What SQLite hands back is the text SQLAlchemy wrote: timestamps in UTC without an offset,
# JSON from json.dumps. These read it as SQLAlchemy would, faster (docchat.store.message_rows
# reads rows with them directly).

def sqlite_moment(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value + "+00:00")  # 8x faster than .replace(tzinfo=...)
    except ValueError:  # written with an offset, or as a date alone
        moment = datetime.fromisoformat(value)
        return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


# json.loads without its checks for space before and after, which stored JSON never has.
# Not orjson, twice as fast: it reads an integer beyond 64 bits as a float, without a word.
_read_json = json.JSONDecoder().raw_decode


def sqlite_json(value: str | None):
    # Most stored values of some columns are `null` or `[]`: no parser needed for those.
    if value is None or value == "null":
        return None
    if value == "[]":
        return []
    if not isinstance(value, str):
        return value  # a number: the column's NUMERIC affinity made '5' into 5
    try:
        parsed, end = _read_json(value)
        if end == len(value):
            return parsed
    except ValueError:
        pass
    return json.loads(value)  # says what is wrong, as it always did


conversations = Table(
    "conversations",
    metadata,
    # An integer key keeps SQLite's rowid stable, which the FTS5 index is keyed on.
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column("title", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False, index=True),
    Column("pinned", Boolean, nullable=False, default=False),
    Column("archived", Boolean, nullable=False, default=False),
    Column("deleted_at", UTCDateTime, nullable=True),
    # Memory marks. The rows stay stored and shown; only the model stops seeing them.
    # Everything before memory_start_seq was cleared from memory.
    Column("memory_start_seq", Integer, nullable=False, default=1),
    # Non-system messages before pruned_before_seq were pruned; system messages stay.
    Column("pruned_before_seq", Integer, nullable=False, default=1),
    Column("metadata", JSON, nullable=False, default=dict),
    # Moves when the path shown changes with no message appended (migration 0008).
    Column("path_revision", Integer, nullable=False, default=0, server_default="0"),
)

messages = Table(
    "messages",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column(
        "conversation_id",
        String(36),
        ForeignKey("conversations.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("seq", Integer, nullable=False),
    Column("role", String(16), nullable=False),
    Column("content", Text, nullable=False),
    # What was sent to the model when it differs from what is shown (retrieved context).
    Column("sent_content", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    # Last checkpoint of a streaming answer; a row streaming with an old checkpoint was cut
    # off by a crash.
    Column("updated_at", UTCDateTime, nullable=True),
    Column("status", String(16), nullable=False),
    Column("token_count", Integer, nullable=True),
    Column("tokenizer", String(120), nullable=True),
    Column("rewritten_query", Text, nullable=True),
    Column("citations", JSON, nullable=False, default=list),
    Column("model", String(200), nullable=True),
    Column("sampling", JSON, nullable=True),
    Column("usage", JSON, nullable=True),
    Column("error", Text, nullable=True),
    # An answer's budget and memory figures: {"budget": {...}, "memory": {...}}.
    Column("figures", JSON, nullable=True),
    Column("rating", String(8), nullable=True),
    Column("version_of", String(36), nullable=True),
    Column("shown", Boolean, nullable=False, default=True, server_default=true()),
    # The message this one follows (see Message.parent_id); the shown rows are one path.
    Column("parent_id", String(36), nullable=True, index=True),
    UniqueConstraint("conversation_id", "seq", name="uq_messages_conversation_seq"),
)

summaries = Table(
    "summaries",
    metadata,
    Column("id", String(36), primary_key=True),
    Column(
        "conversation_id",
        String(36),
        ForeignKey("conversations.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("version", Integer, nullable=False),
    Column("first_seq", Integer, nullable=False),
    Column("last_seq", Integer, nullable=False),
    Column("content", Text, nullable=False),
    Column("metadata", JSON, nullable=False, default=dict),
    Column("token_count", Integer, nullable=True),
    Column("tokenizer", String(120), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("conversation_id", "version", name="uq_summaries_conversation_version"),
)

documents = Table(
    "documents",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column("name", Text, nullable=False),
    Column("kind", String(16), nullable=False),
    # Relative to the data dir, so a moved data dir keeps working.
    Column("path", Text, nullable=False),
    Column("size", Integer, nullable=False),
    Column("content_hash", String(64), nullable=False, unique=True),
    Column("pages", Integer, nullable=True),
    Column("chunks", Integer, nullable=False, default=0),
    Column("status", String(16), nullable=False),
    Column("added_at", UTCDateTime, nullable=False),
)

# Which mails hold which of their attachments, each a document of its own (migration 0010).
attachments = Table(
    "attachments",
    metadata,
    Column("mail_id", String(36), primary_key=True),
    Column("attachment_id", String(36), primary_key=True, index=True),
)

chunks = Table(
    "chunks",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column("document_id", String(36), ForeignKey("documents.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("label", Text, nullable=False),
    Column("page", Integer, nullable=True),
    Column("text", Text, nullable=False),
    Column("token_count", Integer, nullable=False),
    # The document's name and the section, read by the keyword index beside the text (0009).
    Column("heading", Text, nullable=False, server_default=""),
    UniqueConstraint("document_id", "position", name="uq_chunks_document_position"),
)

# Which conversations' answers cited which documents (for "which conversations used this").
citations = Table(
    "citations",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("message_id", String(36), ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
    Column("conversation_id", String(36), ForeignKey("conversations.id", ondelete="CASCADE"), nullable=False),
    Column("document_id", String(36), nullable=False, index=True),
    Column("chunk_id", String(36), nullable=False),
    Column("number", Integer, nullable=False),
    Column("score", Float, nullable=False),
)

# Followed folders (migration 0011): the last sync's counts are kept with the folder.
folders = Table(
    "folders",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("id", String(36), nullable=False, unique=True),
    Column("path", Text, nullable=False, unique=True),
    Column("conversation_id", String(36), nullable=True),
    Column("added_at", UTCDateTime, nullable=False),
    Column("last_sync_at", UTCDateTime, nullable=True),
    Column("last_added", Integer, nullable=True),
    Column("last_changed", Integer, nullable=True),
    Column("last_removed", Integer, nullable=True),
    Column("last_unchanged", Integer, nullable=True),
    Column("last_refused", Integer, nullable=True),
    Column("last_failed", Integer, nullable=True),
)

# Each file of a followed folder as the last sync left it; several may hold one document (same content).
folder_files = Table(
    "folder_files",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=True),
    Column("folder_id", String(36), ForeignKey("folders.id", ondelete="CASCADE"), nullable=False),
    Column("relative_path", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("mtime_ns", BigInteger, nullable=False),
    Column("content_hash", String(64), nullable=True),
    Column("document_id", String(36), nullable=True, index=True),
    Column("status", String(16), nullable=False),
    Column("reason", Text, nullable=True),
    # Its document came from elsewhere (an upload): it stays when the file goes.
    Column("adopted", Boolean, nullable=False, default=False, server_default=false()),
    UniqueConstraint("folder_id", "relative_path", name="uq_folder_files_folder_path"),
)
