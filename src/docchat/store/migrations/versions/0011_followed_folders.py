"""Followed folders and their files, with what the last sync found of each file.

A file keeps its size and mtime (in nanoseconds: BigInteger, as sizes are) so that a sync
reads only the files whose stat changed, and its content hash so that a touched file is
known to be unchanged. A file refused by the parser keeps its status and why. A file whose
content was in the library before any followed file held it (an upload) has "adopted" it: that
document stays when the file goes.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from docchat.store.tables import UTCDateTime

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "folders",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(36), nullable=False, unique=True),
        sa.Column("path", sa.Text, nullable=False, unique=True),
        sa.Column("conversation_id", sa.String(36), nullable=True),
        sa.Column("added_at", UTCDateTime, nullable=False),
        sa.Column("last_sync_at", UTCDateTime, nullable=True),
        sa.Column("last_added", sa.Integer, nullable=True),
        sa.Column("last_changed", sa.Integer, nullable=True),
        sa.Column("last_removed", sa.Integer, nullable=True),
        sa.Column("last_unchanged", sa.Integer, nullable=True),
        sa.Column("last_refused", sa.Integer, nullable=True),
        sa.Column("last_failed", sa.Integer, nullable=True),
    )
    op.create_table(
        "folder_files",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("folder_id", sa.String(36), sa.ForeignKey("folders.id", ondelete="CASCADE"), nullable=False),
        sa.Column("relative_path", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("mtime_ns", sa.BigInteger, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=True),
        sa.Column("document_id", sa.String(36), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("adopted", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.UniqueConstraint("folder_id", "relative_path", name="uq_folder_files_folder_path"),
    )
    op.create_index("ix_folder_files_document_id", "folder_files", ["document_id"])
