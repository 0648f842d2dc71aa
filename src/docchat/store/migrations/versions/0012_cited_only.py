"""The `citations` table ("Cited in", `documents usage`) keeps only the passages an answer
cites. Before issue 27 an answer's row was written for every passage it was given, so a
document given to the model and never cited was "cited" too; this keeps, of the rows written
then, those whose number the answer's text names with an [n] mark. (An answer checked since
names its cited passages itself and was written that way.)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

# As docchat.domain.grounding reads marks, kept here as it was: "[2]", "[1, 3]", "[1][3]".
MARK = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")
BATCH = 1000


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.text(
        "SELECT c.pk, c.number, m.content FROM citations c JOIN messages m ON m.id = c.message_id")).all()
    uncited = [pk for pk, number, content in rows if number not in _marks(content or "")]
    for start in range(0, len(uncited), BATCH):
        connection.execute(sa.text("DELETE FROM citations WHERE pk IN :pks").bindparams(
            sa.bindparam("pks", expanding=True)), {"pks": uncited[start:start + BATCH]})


def _marks(text: str) -> set[int]:
    return {int(n) for mark in MARK.finditer(text) for n in re.split(r"[,;]", mark.group(1))}
