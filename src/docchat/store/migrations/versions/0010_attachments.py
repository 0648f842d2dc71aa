"""A mail's attachments of a kind docchat reads become documents of their own: each names the
document it came inside, so that it leaves the library with it.

No foreign key: the services remove an attachment's vectors and stored file with its row, which
a cascade could not do.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("documents", sa.Column("attached_to", sa.String(36), nullable=True))
    op.create_index("ix_documents_attached_to", "documents", ["attached_to"])
