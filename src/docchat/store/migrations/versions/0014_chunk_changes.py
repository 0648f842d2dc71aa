"""On SQLite, the keyword side of document retrieval moves from FTS5 to a Tantivy index in the
data dir (docchat.documents.index.word_index), which follows the chunks through a log of their
changes written by triggers in the same transactions as the chunks themselves.

FTS5 ranks a query by computing BM25 for every chunk that holds any of its words and sorting
them: on the retrieval bench's text at 200,000 chunks, 80 ms p50 for two words and 391 ms for a
question of fifteen common words; Tantivy skips the chunks that cannot reach the top (block-max
WAND) and took 1.1 and 3.6 ms on the same chunks (docs/perf/keyword-engines.md). A chunk's row
stays the truth: the log holds only which chunk changed, the index reads its text from the row,
and an index that is lost, or behind, is rebuilt or brought up to date from the rows.

PostgreSQL keeps its text search in the chunk's row (0006, 0009), shared by every process.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-30
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

SQLITE = [
    "DROP TRIGGER chunks_fts_insert",
    "DROP TRIGGER chunks_fts_delete",
    "DROP TRIGGER chunks_fts_update",
    "DROP TABLE chunks_fts",
    # AUTOINCREMENT: an id is never used twice, so "every change after N" means the same thing
    # after the log is pruned. SQLite lets one writer in at a time: ids commit in order.
    "CREATE TABLE chunk_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, chunk_pk INTEGER NOT NULL)",
    """CREATE TRIGGER chunk_changes_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunk_changes(chunk_pk) VALUES (new.pk);
    END""",
    """CREATE TRIGGER chunk_changes_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunk_changes(chunk_pk) VALUES (old.pk);
    END""",
    """CREATE TRIGGER chunk_changes_update AFTER UPDATE OF text, heading, document_id ON chunks BEGIN
        INSERT INTO chunk_changes(chunk_pk) VALUES (old.pk);
        INSERT INTO chunk_changes(chunk_pk) VALUES (new.pk);
    END""",
]


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for statement in SQLITE:
        op.execute(statement)
