"""Each conversation counts the changes of the path it shows, so that a memory built from an
earlier read knows, in the same read, that it must load the conversation again.

A memory keeps its messages and their running token totals between questions and reads only
what was appended since. An edit or a choice of version changes which messages are shown
without appending one, and another process (a second tab's server, the terminal client) may
make it: the memory compares this number with the one it was built at, instead of having to
be told.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("conversations",
                  sa.Column("path_revision", sa.Integer, nullable=False, server_default="0"))
