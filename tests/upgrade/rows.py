"""Rebuilds an upgrade fixture's database on PostgreSQL: that revision's migrations, then the
fixture's rows.

The fixtures are SQLite files written by each revision's own code; a PostgreSQL database of the
same revision is made by running docchat's migrations up to it and inserting the same rows.
Both sides are read through SQLAlchemy's reflection, so each value is converted by its column's
type (SQLite's text datetimes and JSON become PostgreSQL's). Tables SQLite alone has (the FTS5
index and its shadow tables) are left out: PostgreSQL's keyword index is generated columns,
which fill themselves, and are not inserted.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Integer, MetaData, create_engine, text

from docchat.store.migrate import upgrade


def rebuild_on_postgresql(fixture_db: Path, url: str, revision: str) -> dict[str, int]:
    """Migrates the empty database at `url` to `revision` and copies the fixture's rows into
    it; returns how many rows each table received."""
    target = create_engine(url)
    source = create_engine(f"sqlite:///{fixture_db}")
    try:
        upgrade(target, revision)
        return _copy_rows(source, target)
    finally:
        source.dispose()
        target.dispose()


def _copy_rows(source, target) -> dict[str, int]:
    theirs, ours = MetaData(), MetaData()
    theirs.reflect(source)
    ours.reflect(target)
    copied = {}
    with source.connect() as reading, target.begin() as writing:
        for table in ours.sorted_tables:
            if table.name == "alembic_version" or table.name not in theirs.tables:
                continue
            columns = [c for c in table.columns if c.computed is None and c.name in theirs.tables[table.name].c]
            old = theirs.tables[table.name]
            rows = [dict(row._mapping) for row in reading.execute(old.select().with_only_columns(
                *(old.c[c.name] for c in columns)))]
            if rows:
                writing.execute(table.insert(), rows)
            copied[table.name] = len(rows)
            _move_sequences_past(writing, table)
    return copied


def _move_sequences_past(writing, table) -> None:
    """Rows inserted with their own keys leave a serial's sequence behind them."""
    for column in table.primary_key.columns:
        if isinstance(column.type, Integer) and column.autoincrement in (True, "auto"):
            writing.execute(text(
                f"SELECT setval(pg_get_serial_sequence('{table.name}', '{column.name}'), "
                f"COALESCE((SELECT MAX({column.name}) FROM {table.name}), 0) + 1, false)"))
