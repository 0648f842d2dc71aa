"""Each chunk keeps the heading it stands under, its document's name and its section ("lease.pdf ›
page 2", "deck.pptx › slide 3: Regional sales"), and the keyword index reads it beside the
chunk's text: a question naming a slide's title, a sheet or a section then finds chunks whose
own words do not repeat it.

Only the keyword side: with the heading also in front of the text the model embeds, follow-up
recall@1 fell (0.763 to 0.737) and the retrieval benchmark's topic precision too (0.999 to
0.992); on the keyword side alone recall@1 rose to 0.816 and @3 from 0.921 to 0.947, with
topic precision unchanged (figures in docs/perf/chunk-headings.md). So vectors stay as they
were and nothing needs embedding again: this migration rebuilds the keyword index from the rows.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# As docchat.services.ingestion writes it for new chunks (chunk_heading).
HEADING = "(SELECT d.name FROM documents d WHERE d.id = chunks.document_id) || ' › ' || chunks.label"
SEPARATORS = "-./:@+_~?=&%#$*^|<>"  # as 0006 spaces them out

FTS_SQLITE = [
    "DROP TRIGGER chunks_fts_insert",
    "DROP TRIGGER chunks_fts_delete",
    "DROP TRIGGER chunks_fts_update",
    "DROP TABLE chunks_fts",
    """CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, heading, content='chunks', content_rowid='pk',
        tokenize='unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.pk, new.text, new.heading);
    END""",
    """CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.pk, old.text, old.heading);
    END""",
    """CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text, heading ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.pk, old.text, old.heading);
        INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.pk, new.text, new.heading);
    END""",
    "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')",
]


def upgrade() -> None:
    op.add_column("chunks", sa.Column("heading", sa.Text, nullable=False, server_default=""))
    op.execute(f"UPDATE chunks SET heading = {HEADING}")
    if op.get_bind().dialect.name == "sqlite":
        for statement in FTS_SQLITE:
            op.execute(statement)
        return
    spaced = f"translate(heading || ' ' || text, '{SEPARATORS}', '{' ' * len(SEPARATORS)}')"
    op.execute("DROP INDEX ix_chunks_search")
    op.execute("ALTER TABLE chunks DROP COLUMN search_vector")
    op.execute(f"ALTER TABLE chunks ADD COLUMN search_vector tsvector "
               f"GENERATED ALWAYS AS (to_tsvector('simple', {spaced})) STORED")
    op.execute("CREATE INDEX ix_chunks_search ON chunks USING gin (search_vector)")
