"""Spreadsheets' sheets kept as SQL tables (the SheetTables port), in a SQLite file of their own
beside the data: `tables.sqlite`.

Why a file of its own: a sheet's table is made from its header (a CREATE TABLE per sheet at
ingestion), which a migration cannot describe, and the main store may be PostgreSQL. Like the
word index, it is derived from the documents' files and can be rebuilt from them.

- A catalogue, `sheet_tables`, names each document's sheets, their SQL table, columns (name and
  type) and row count. A sheet's table has `_row` (the row's number in the spreadsheet, to cite),
  `_kind` (`row`, `subtotal` or `total`: a figure over the data reads `WHERE _kind = 'row'`) and
  one column per column of the sheet, typed INTEGER, REAL or TEXT (a date as ISO text).
- A document's sheets are written, replaced and dropped in one transaction.
- A query runs on a connection of its own opened read-only (`mode=ro`, `query_only`), under an
  authorizer that lets it read and select and nothing else (no PRAGMA, ATTACH or write), stopped
  past its time by a progress handler, and keeps at most the rows asked for; the tables it read
  are said with its result.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from docchat.domain.documents import ColumnType, QueryResult, SheetTable, TableShape, quoted
from docchat.errors import InvalidInput
from docchat.tables.reading import no_value, number

FILE_NAME = "tables.sqlite"
SCHEMA_VERSION = 1
_SQL_TYPES = {ColumnType.INTEGER: "INTEGER", ColumnType.REAL: "REAL", ColumnType.DATE: "TEXT", ColumnType.TEXT: "TEXT"}
# What a query may do: read tables and select, call functions, recurse. Nothing else.
_ALLOWED = frozenset((sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE))
# How many SQLite steps between two looks at the clock.
_STEPS = 10_000


class SqliteSheetTables:
    def __init__(self, folder: Path, *, busy_timeout_s: float = 10.0):
        self._path = folder / FILE_NAME
        self._busy_timeout_s = busy_timeout_s

    def write(self, document_id: str, tables: Sequence[SheetTable]) -> None:
        with self._writing() as db:
            _drop(db, document_id)
            db.execute("INSERT INTO sheet_documents VALUES (?)", (document_id,))
            for position, table in enumerate(tables):
                name = f"sheet_{re.sub(r'[^0-9a-zA-Z]', '', document_id)[:20]}_{position}"
                columns = [f"{quoted(c.name)} {_SQL_TYPES[c.type]}" for c in table.columns]
                db.execute(f"CREATE TABLE {name} (_row INTEGER NOT NULL, _kind TEXT NOT NULL, {', '.join(columns)})")
                marks = ", ".join("?" * (len(table.columns) + 2))
                db.executemany(f"INSERT INTO {name} VALUES ({marks})",
                               ((row.number, row.kind.value, *map(_stored, table.columns, row.cells))
                                for row in table.rows))
                db.execute("INSERT INTO sheet_tables VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (document_id, position, table.sheet, name,
                            json.dumps([[c.name, c.type.value, *([c.unit] if c.unit else [])] for c in table.columns]), table.header_row,
                            len(table.rows)))

    def kept(self) -> set[str]:
        if not self._path.exists():
            return set()
        db = self._connect()
        try:
            return {document for (document,) in db.execute("SELECT document_id FROM sheet_documents")}
        finally:
            db.close()

    def drop(self, document_id: str) -> None:
        if not self._path.exists():
            return
        with self._writing() as db:
            _drop(db, document_id)

    def shapes(self, document_ids: Sequence[str] | None = None) -> list[TableShape]:
        if not self._path.exists():
            return []
        db = self._connect()
        try:
            rows = db.execute("SELECT document_id, sheet, table_name, columns, row_count FROM sheet_tables "
                              "ORDER BY document_id, position").fetchall()
        finally:
            db.close()
        wanted = None if document_ids is None else set(document_ids)
        return [_shape(document, sheet, table, json.loads(columns), count)
                for document, sheet, table, columns, count in rows if wanted is None or document in wanted]

    def run(self, query: str, *, max_rows: int, timeout_s: float) -> QueryResult:
        if not self._path.exists():
            raise InvalidInput("no sheet is kept as a table yet")
        db = sqlite3.connect(f"file:{quote(str(self._path))}?mode=ro", uri=True, timeout=self._busy_timeout_s)
        deadline = time.monotonic() + timeout_s
        read: set[str] = set()

        def authorized(action: int, table: str | None, *_) -> int:
            if action == sqlite3.SQLITE_READ and table:
                read.add(table)  # only what the query uses: a table behind an unused WITH is not read
            return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY

        try:
            db.execute("PRAGMA query_only = ON")
            db.set_authorizer(authorized)
            db.set_progress_handler(lambda: int(time.monotonic() > deadline), _STEPS)
            cursor = db.execute(query)
            rows = cursor.fetchmany(max_rows + 1)
            columns = tuple(column[0] for column in cursor.description or ())
        except sqlite3.OperationalError as error:
            if time.monotonic() > deadline:
                raise InvalidInput(f"the query ran for more than {timeout_s:g} s and was stopped") from None
            raise InvalidInput(f"the query was refused: {error}") from None
        except (sqlite3.Warning, sqlite3.DatabaseError) as error:  # more than one statement, a damaged file
            raise InvalidInput(f"the query was refused: {error}") from None
        finally:
            db.close()
        return QueryResult(columns, tuple(tuple(row) for row in rows[:max_rows]), len(rows) > max_rows, frozenset(read))

    def _connect(self) -> sqlite3.Connection:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self._path, timeout=self._busy_timeout_s, isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            db.execute("CREATE TABLE IF NOT EXISTS sheet_tables (document_id TEXT NOT NULL, position INTEGER NOT NULL, "
                       "sheet TEXT NOT NULL, table_name TEXT NOT NULL UNIQUE, columns TEXT NOT NULL, "
                       "header_row INTEGER NOT NULL, row_count INTEGER NOT NULL, PRIMARY KEY (document_id, position))")
            # The documents whose sheets were written, a sheet too long for a table or none at all.
            db.execute("CREATE TABLE IF NOT EXISTS sheet_documents (document_id TEXT PRIMARY KEY)")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return db

    def _writing(self):
        return _Transaction(self._connect())


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on any failure), then the connection is closed."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self) -> sqlite3.Connection:
        self._db.execute("BEGIN IMMEDIATE")
        return self._db

    def __exit__(self, kind, error, trace) -> None:
        try:
            self._db.execute("ROLLBACK" if kind else "COMMIT")
        finally:
            self._db.close()


def _drop(db: sqlite3.Connection, document_id: str) -> None:
    for (name,) in db.execute("SELECT table_name FROM sheet_tables WHERE document_id = ?", (document_id,)).fetchall():
        db.execute(f"DROP TABLE IF EXISTS {name}")
    db.execute("DELETE FROM sheet_tables WHERE document_id = ?", (document_id,))
    db.execute("DELETE FROM sheet_documents WHERE document_id = ?", (document_id,))


def _stored(column, cell: str) -> object:
    """A cell as its column keeps it: a number for a numeric column (a total row's text that is
    no number stays text), ISO text for a date, None for an empty cell."""
    if not cell or column.type is not ColumnType.TEXT and no_value(cell) or cell.strip() in column.blanks:
        return None  # "—" in a column of numbers or dates: none; "NA" in one of text where it stands for none
    if column.type in (ColumnType.INTEGER, ColumnType.REAL):
        value = number(cell)
        if value is None:
            return cell
        return int(value) if column.type is ColumnType.INTEGER and value.is_integer() else value
    return cell


def _shape(document: str, sheet: str, table: str, columns: list[list[str]], count: int) -> TableShape:
    """A kept table's shape; each column is [name, type] or, with a unit, [name, type, unit] (a
    table kept before units were has none)."""
    return TableShape(document, sheet, table, tuple((column[0], column[1]) for column in columns), count,
                      units=tuple(column[2] if len(column) > 2 else "" for column in columns))
