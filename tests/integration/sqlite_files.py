"""Reads the database file with plain sqlite3, so assertions never go through docchat's own code."""

from __future__ import annotations

from pathlib import Path

from tests.databases import StoreDatabase


def database_file(data_dir: Path) -> Path:
    return Path(data_dir) / "docchat.db"


def table_contents(data_dir: Path) -> dict[str, list[tuple]]:
    """Every row of the content tables, read with plain sqlite3 (no docchat code involved)."""
    return StoreDatabase(f"sqlite:///{database_file(data_dir)}").table_contents()


def sql(data_dir: Path, statement: str, *params) -> list[tuple]:
    return StoreDatabase(f"sqlite:///{database_file(data_dir)}").rows(statement, *params)
