"""Which docchat brought the database to each schema revision: a row per upgrade (and one for a
new database). An older docchat that finds a revision it does not know reads the newest row
to say which docchat wrote the data. Alembic's own table holds the revision alone.

Written by docchat.store.upgrade in the upgrade's own transaction, never through the
repositories: it describes the schema, not the user's data.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

from docchat.store.tables import UTCDateTime

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "schema_upgrades",
        sa.Column("pk", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("revision", sa.String(32), nullable=False),
        sa.Column("docchat_version", sa.String(32), nullable=False),
        sa.Column("upgraded_at", UTCDateTime, nullable=False),
    )

