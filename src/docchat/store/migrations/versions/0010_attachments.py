"""A mail's attachments of a kind docchat reads become documents of their own; this table says
which mails hold which attachment, so that an attachment leaves the library with the last mail
that holds it (a mail saved again with the same attachment, as a followed folder sees an edited
one, or two mails forwarding one file, share it; an attachment also uploaded on its own is not
held by any mail and stays).

No foreign keys: the services remove an attachment's vectors and stored file with its rows,
which a cascade could not do.

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
    op.create_table(
        "attachments",
        sa.Column("mail_id", sa.String(36), primary_key=True),
        sa.Column("attachment_id", sa.String(36), primary_key=True),
    )
    op.create_index("ix_attachments_attachment_id", "attachments", ["attachment_id"])
