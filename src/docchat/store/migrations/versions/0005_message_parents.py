"""Each message names the message it follows, so that an edited question can start a branch:
the conversation becomes a tree, and the messages shown are one path through it.

Stored conversations were linear, with hidden answer versions beside the answer shown. Each
message follows the last message shown before it; a later version of an answer follows what
the first version of its group follows.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: batch mode could copy the table and drop its full-text triggers.
    op.add_column("messages", sa.Column("parent_id", sa.String(36), nullable=True))
    op.create_index("ix_messages_parent_id", "messages", ["parent_id"])
    connection = op.get_bind()
    rows = connection.execute(sa.text(
        "SELECT id, conversation_id, version_of, shown FROM messages ORDER BY conversation_id, seq"))
    parents, last_shown, conversation = {}, None, None
    for row in rows:
        if row.conversation_id != conversation:
            conversation, last_shown = row.conversation_id, None
        parents[row.id] = parents.get(row.version_of) if row.version_of else last_shown
        if row.shown:
            last_shown = row.id
    updates = [{"id": id, "parent": parent} for id, parent in parents.items() if parent is not None]
    if updates:
        connection.execute(sa.text("UPDATE messages SET parent_id = :parent WHERE id = :id"), updates)

