"""Conversations, append-only messages, versioned summaries, full-text search.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

import sqlalchemy as sa
from alembic import op

from docchat.store.tables import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

FTS_SQLITE = [
    # External-content FTS5 tables keyed on the integer pk, kept in step by triggers.
    """CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, content='messages', content_rowid='pk',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.pk, new.content);
    END""",
    """CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.pk, old.content);
    END""",
    """CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.pk, old.content);
        INSERT INTO messages_fts(rowid, content) VALUES (new.pk, new.content);
    END""",
    """CREATE VIRTUAL TABLE conversations_fts USING fts5(
        title, content='conversations', content_rowid='pk',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER conversations_fts_insert AFTER INSERT ON conversations BEGIN
        INSERT INTO conversations_fts(rowid, title) VALUES (new.pk, new.title);
    END""",
    """CREATE TRIGGER conversations_fts_delete AFTER DELETE ON conversations BEGIN
        INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.pk, old.title);
    END""",
    """CREATE TRIGGER conversations_fts_update AFTER UPDATE OF title ON conversations BEGIN
        INSERT INTO conversations_fts(conversations_fts, rowid, title) VALUES ('delete', old.pk, old.title);
        INSERT INTO conversations_fts(rowid, title) VALUES (new.pk, new.title);
    END""",
]


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False, unique=True),
        sa.Column("title", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Column("pinned", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("archived", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("deleted_at", UTCDateTime, nullable=True),
        sa.Column("memory_start_seq", sa.Integer, nullable=False, server_default="1"),
        sa.Column("pruned_before_seq", sa.Integer, nullable=False, server_default="1"),
        sa.Column("metadata", sa.JSON, nullable=False),
    )
    op.create_index("ix_conversations_updated_at", "conversations", ["updated_at"])
    op.create_table(
        "messages",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False, unique=True),
        sa.Column(
            "conversation_id",
            sa.String(36),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("sent_content", sa.Text, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("token_count", sa.Integer, nullable=True),
        sa.Column("tokenizer", sa.String(120), nullable=True),
        sa.Column("rewritten_query", sa.Text, nullable=True),
        sa.Column("citations", sa.JSON, nullable=False),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("sampling", sa.JSON, nullable=True),
        sa.Column("usage", sa.JSON, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.UniqueConstraint("conversation_id", "seq", name="uq_messages_conversation_seq"),
    )
    op.create_table(
        "summaries",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column(
            "conversation_id",
            sa.String(36),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("first_seq", sa.Integer, nullable=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("metadata", sa.JSON, nullable=False),
        sa.Column("token_count", sa.Integer, nullable=True),
        sa.Column("tokenizer", sa.String(120), nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.UniqueConstraint("conversation_id", "version", name="uq_summaries_conversation_version"),
    )
    if op.get_bind().dialect.name == "sqlite":
        for statement in FTS_SQLITE:
            op.execute(statement)
