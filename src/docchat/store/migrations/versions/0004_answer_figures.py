"""The budget and memory figures of each answer, so the page can show them for any answer,
after a reload too; the user's thumbs up or down on it; and its versions (a regenerated
answer names the first version of its group; only the version shown is in the history).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN: batch mode could copy the table and drop its full-text triggers.
    op.add_column("messages", sa.Column("figures", sa.JSON, nullable=True))
    op.add_column("messages", sa.Column("rating", sa.String(8), nullable=True))
    op.add_column("messages", sa.Column("version_of", sa.String(36), nullable=True))
    op.add_column("messages", sa.Column("shown", sa.Boolean, nullable=False, server_default=sa.true()))
