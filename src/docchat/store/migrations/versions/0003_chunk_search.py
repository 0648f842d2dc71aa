"""Full-text search over chunk text: the keyword (BM25) side of document retrieval.

Qdrant's local mode scores sparse vectors point by point in Python (about 50 ms per query at
10,000 chunks); FTS5 ranks the same chunks with BM25 in a few milliseconds, and a document
scope is a plain join.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

FTS_SQLITE = [
    # No stemmer: this side is there for exact terms (names, codes, numbers); the dense side
    # already matches word forms. External content keyed on the integer pk, like messages_fts.
    """CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, content='chunks', content_rowid='pk',
        tokenize='unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text) VALUES (new.pk, new.text);
    END""",
    """CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
    END""",
    """CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.pk, old.text);
        INSERT INTO chunks_fts(rowid, text) VALUES (new.pk, new.text);
    END""",
    # Chunks stored before this revision.
    "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')",
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in FTS_SQLITE:
            op.execute(statement)
