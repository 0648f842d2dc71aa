"""Full-text search on PostgreSQL: a text-search vector beside message content, conversation
titles and chunk text, each with a GIN index; what the FTS5 tables of 0001 and 0003 are on SQLite.

Generated columns, kept in step by PostgreSQL itself like FTS5's triggers, and stored: ranking
reads them instead of parsing every matching text again (10,000 matching messages: 90 ms, not 5 s).
SQLite has no such columns, so docchat.store.tables leaves them out; only the searches read them.
Message content and titles are stemmed (English), like FTS5's porter tokenizer; chunk text is
not, like chunks_fts: that side is there for exact terms. Punctuation becomes spaces first, so
that "ZX-4471" is two words, as FTS5 cuts it (docchat.store.search spaces text out the same way
for its snippets).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

SEPARATORS = "-./:@+_~?=&%#$*^|<>"
SEARCHED = [("messages", "content", "english"), ("conversations", "title", "english"), ("chunks", "text", "simple")]


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column, config in SEARCHED:
        spaced = f"translate({column}, '{SEPARATORS}', '{' ' * len(SEPARATORS)}')"
        op.execute(f"ALTER TABLE {table} ADD COLUMN search_vector tsvector "
                   f"GENERATED ALWAYS AS (to_tsvector('{config}', {spaced})) STORED")
        op.execute(f"CREATE INDEX ix_{table}_search ON {table} USING gin (search_vector)")
