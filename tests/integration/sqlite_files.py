"""Reads the database file with plain sqlite3, so assertions never go through docchat's own code."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

# Summaries have no integer key; their uuid orders them stably enough for a comparison.
CONTENT_TABLES = {"conversations": "pk", "messages": "pk", "summaries": "id"}


def database_file(data_dir: Path) -> Path:
    return Path(data_dir) / "docchat.db"


def table_contents(data_dir: Path) -> dict[str, list[tuple]]:
    """Every row of the content tables, read with plain sqlite3 (no docchat code involved)."""
    with closing(sqlite3.connect(database_file(data_dir))) as db:
        return {
            table: db.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
            for table, key in CONTENT_TABLES.items()
        }


def sql(data_dir: Path, statement: str, *params) -> list[tuple]:
    with closing(sqlite3.connect(database_file(data_dir))) as db:
        return db.execute(statement, params).fetchall()
