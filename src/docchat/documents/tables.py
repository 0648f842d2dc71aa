"""A sheet's rows as a table that figures can be computed over (docchat.domain.documents.SheetTable).

Invariants:
- The columns are the header's cells; an empty one is named by its letter (`column F`), and a
  name that comes twice (or is `_row` or `_kind`) gets its letter too (`Amount (column D)`), so
  every column has one name.
- A column's type is the narrowest that every non-empty cell of its data rows reads as: an
  integer, a real number (`1200.5`, `1,200`), an ISO date (`2024-03-12`), else text. A column
  with no value is text.
- A row whose first text cell names a total ("Oslo subtotal", "Total", "Grand total", "Sum") is a
  subtotal or a total, never data: a figure added over the rows would count it again. Its type
  is read from the data rows only.
- A sheet with more than MAX_ROWS rows or MAX_COLUMNS columns has no table: its figures are
  answered from passages (SQLite holds at most 2,000 columns in a table).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docchat.domain.documents import Column, ColumnType, RowKind, SheetTable, TableRow

MAX_ROWS = 100_000
MAX_COLUMNS = 1_000
_TOTAL = re.compile(r"\b(?:(sub)[\s-]?total|(?:grand\s+)?total|sum)s?\b", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,200 or 12,345.50
_REAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def table_of(sheet: str, header: Sequence[str], header_row: int,
             rows: Sequence[tuple[int, Sequence[str]]]) -> SheetTable | None:
    """The table of a sheet from its header's cells and its rows' cells as shown; None for a
    sheet past MAX_ROWS rows."""
    if len(rows) > MAX_ROWS:
        return None
    width = max([len(header), *(len(cells) for _, cells in rows)])
    if width > MAX_COLUMNS:
        return None
    read = tuple(TableRow(number, tuple(cells) + ("",) * (width - len(cells)), row_kind(cells))
                 for number, cells in rows)
    data = [row.cells for row in read if row.kind is RowKind.ROW]
    names = column_names(header, width)
    return SheetTable(sheet, tuple(Column(name, column_type([cells[index] for cells in data]))
                                   for index, name in enumerate(names)), header_row, read)


def grid_table(name: str, grid: Sequence[Sequence[str]]) -> SheetTable | None:
    """A table in a document (a Word document's, a slide's, a web page's) as a sheet: its first row
    with any text is the header, the rows after it are numbered as the table counts them (its
    first row is row 1); None for a table with no row under its header."""
    numbered = [(number, [" ".join(cell.split()) for cell in cells]) for number, cells in enumerate(grid, start=1)]
    numbered = [(number, cells) for number, cells in numbered if any(cells)]
    if len(numbered) < 2:
        return None
    (header_row, header), rows = numbered[0], numbered[1:]
    return table_of(name, header, header_row, rows)


def row_kind(cells: Sequence[str]) -> RowKind:
    """Whether a row adds up others, read from its first cell that is not a number."""
    label = next((cell for cell in cells if cell and number(cell) is None), "")
    match = _TOTAL.search(label)
    if match is None:
        return RowKind.ROW
    return RowKind.SUBTOTAL if match.group(1) else RowKind.TOTAL


def column_names(header: Sequence[str], width: int) -> tuple[str, ...]:
    given = [header[index] if index < len(header) else "" for index in range(width)]
    # Taken from the start: the columns a kept table adds to every sheet's (docchat.store.sheet_tables).
    names, used = [], {"_row", "_kind"}
    for index, name in enumerate(given):
        letter = f"column {letters(index)}"
        if not name:
            name = letter
        elif name.casefold() in used:
            name = f"{name} ({letter})"
        used.add(name.casefold())
        names.append(name)
    return tuple(names)


def column_type(values: Sequence[str]) -> ColumnType:
    present = [value for value in values if value]
    if not present:
        return ColumnType.TEXT
    if all(_INTEGER.fullmatch(value) for value in present):
        return ColumnType.INTEGER
    if all(number(value) is not None for value in present):
        return ColumnType.REAL
    if all(_DATE.fullmatch(value) for value in present):
        return ColumnType.DATE
    return ColumnType.TEXT


def number(text: str) -> float | None:
    """The number a cell shows (`312`, `-4.5`, `1,200`, `1e3`), or None."""
    if _GROUPED.fullmatch(text):
        text = text.replace(",", "")
    elif not _REAL.fullmatch(text):
        return None
    return float(text)


def quoted(name: str) -> str:
    """A column's name as an SQL identifier (a NUL, which no statement may hold, as U+FFFD)."""
    return '"' + name.replace("\0", "\ufffd").replace('"', '""') + '"'


def letters(index: int) -> str:
    """A column's letters as spreadsheets show them: 0 is A, 25 Z, 26 AA."""
    shown = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        shown = chr(ord("A") + remainder) + shown
    return shown
