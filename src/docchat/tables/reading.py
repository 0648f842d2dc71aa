"""A sheet's rows as a table that figures can be computed over (docchat.domain.documents.SheetTable).

Invariants:
- The columns are the header's cells; an empty one is named by its letter (`column F`), and a
  name that comes twice (or is `_row` or `_kind`) gets its letter too (`Amount (column D)`), so
  every column has one name.
- A header over two lines (a spanning or merged cell above the columns it spans: "2024" over
  "Units" and "Revenue") names each column by both: `2024 Units`, `2024 Revenue`.
- A column of numbers written with one currency or unit (`$1,200`, `12.5 km`, `12%`) keeps it,
  so a figure computed from it is stated with it ("$18,150").
- A column's type is the narrowest that every non-empty cell of its data rows reads as: an
  integer, a real number, an ISO date (`2024-03-12`), else text. A column with no value is text.
- A number is read as people write one (issue 55): `1200.5`, `1,200`, a sign or a Unicode minus
  (`−4.5`), an accountant's `(1,200)`, a currency (`$1,200`, `NOK 420`, `40 €`), a scale word
  (`$1.2 billion`, `$3.4m`, `12k`; `2.4m` alone is metres), a unit (`12.5 km`), a percentage
  (`12%`, kept as 12), a footnote mark (`1,204[3]`, `88*`). In a column of numbers, a dash,
  "n/a", "NA", "NaN", "NULL" or ".." alone is no value: an empty cell (in a column of text, it
  is kept as written and stored as none where it stands for none: "n/a", and "NA" where the
  column's other cells are names; beside codes such as "EU", or alone, "NA" is North America).
- A row whose first text cell names a total ("Oslo subtotal", "Total", "Grand total", "Sum") is a
  subtotal or a total, never data: a figure added over the rows would count it again. So is one
  labelled for the whole its rows are parts of ("All", "All regions", "Overall", "National")
  where one of its figures is the sum of the other data rows' (a party called National is data).
  Its type is read from the data rows only.
- A sheet with more than MAX_ROWS rows or MAX_COLUMNS columns has no table: its figures are
  answered from passages (SQLite holds at most 2,000 columns in a table).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from docchat.domain.documents import Column, ColumnType, RowKind, SheetTable, TableRow
from docchat.tables.places import US_STATES

MAX_ROWS = 100_000
MAX_COLUMNS = 1_000
_TOTAL = re.compile(r"\b(?:(sub)[\s-]?total|(?:grand\s+)?total|sum)s?\b", re.IGNORECASE)
# A row labelled for the whole of what the others are parts of: "All", "All regions", "Overall",
# "National", "Nationwide", "Worldwide", "Whole country" (the label alone, not a name holding it).
_WHOLE = re.compile(r"(?:all(?:\s+\w+s)?|overall|national|nationwide|worldwide|country-?wide|whole\s+country|"
                    r"every\w*|combined)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")
_GROUPED = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,200 or 12,345.50
_REAL = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# "NA" as R writes a missing value, "NaN" as pandas does, "NULL" as a database export does.
_NO_VALUE = frozenset(("-", "\u2013", "\u2014", "\u2212", "n/a", "..", "\u2026", "--", "na", "nan", "null"))
_TEXT_BLANKS = frozenset(("n/a", "nan", "null"))
_CODE = re.compile(r"[A-Z]{2}")
_STATE_CODES = frozenset(US_STATES.values())
_MINUS = ("-", "\u2212", "\u2013")
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6, "mn": 1e6,
           "bn": 1e9, "b": 1e9}
_CURRENCY = r"(?:US\$|[$€£¥₹]|(?:USD|EUR|GBP|NOK|SEK|DKK|CHF|JPY|CAD|AUD|INR|CNY)\s?)"
_WRITTEN = re.compile(
    rf"(?P<open>\()?(?P<sign>[-+\u2212\u2013])?\s?(?P<before>{_CURRENCY})?\s?"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn)|(?P<letter>[kKmMbB]))?(?![A-Za-z])"
    r"(?P<percent>\s?%)?"
    rf"(?:\s?(?P<after>[€£¥₹]|kr|(?:USD|EUR|GBP|NOK|SEK|DKK|CHF|JPY|CAD|AUD|INR|CNY)))?"
    r"(?:\s(?P<unit>[a-zA-Z°µ][a-zA-Z°µ/²³]{0,5}))?"
    r"(?(open)\))"
    r"(?:\[\w{1,3}\]|[*†‡§]{1,3})?")


def table_of(sheet: str, header: Sequence[str], header_row: int,
             rows: Sequence[tuple[int, Sequence[str]]]) -> SheetTable | None:
    """The table of a sheet from its header's cells and its rows' cells as shown; None for a
    sheet past MAX_ROWS rows."""
    if len(rows) > MAX_ROWS:
        return None
    width = max([len(header), *(len(cells) for _, cells in rows)])
    if width > MAX_COLUMNS:
        return None
    if len(rows) > 1 and _continues_header(_padded(header, width), _padded(rows[0][1], width), rows[1:]):
        header, header_row, rows = _joined(_padded(header, width), _padded(rows[0][1], width)), rows[0][0], rows[1:]
    read = _wholes(_named_data(tuple(TableRow(number, tuple(cells) + ("",) * (width - len(cells)), row_kind(cells))
                                     for number, cells in rows)))
    data = [row.cells for row in read if row.kind is RowKind.ROW]
    names = column_names(header, width)
    columns = []
    for index, name in enumerate(names):
        cells = [cells[index] for cells in data]
        kind = column_type(cells)
        columns.append(Column(name, kind, written_unit(cells) if kind is ColumnType.REAL else "",
                              text_blanks(cells) if kind is ColumnType.TEXT else frozenset()))
    return SheetTable(sheet, tuple(columns), header_row, read)


def _padded(cells: Sequence[str], width: int) -> list[str]:
    return [*cells, *[""] * (width - len(cells))]


def _continues_header(top: list[str], second: list[str], below: Sequence[tuple[int, Sequence[str]]]) -> bool:
    """Whether the row under the header is the header's second line: the header spans it (a cell
    of the header empty or repeated, as a merged or spanning cell reads, over one of it), it
    names two or more columns and is no data row (it has no number, or no label and numbers
    that are years: "2024", "2025" under "Units"), and a column it names holds numbers below."""
    spanned = any(second[i] and (not top[i] or top[i] == top[i - 1]) for i in range(1, len(top)))
    named = [i for i, cell in enumerate(second) if cell]
    numbers = [number(cell) for cell in second if cell]
    if not spanned or len(named) < 2:
        return False
    if any(value is not None for value in numbers) and (second[0] or not all(
            value.is_integer() and 1900 <= value <= 2100 for value in numbers if value is not None)):
        return False
    return any(sum(number(cells[i]) is not None for _, cells in below if i < len(cells)) * 2 >= len(below)
               for i in named)


def _joined(top: list[str], second: list[str]) -> list[str]:
    """The header's two lines as one: each column named by the line above it (a spanning cell's
    name carried over the columns it spans) and its own ("2024 Units")."""
    names, above = [], ""
    for index, (upper, lower) in enumerate(zip(top, second)):
        above = upper or (above if index and lower else "")
        names.append(" ".join(part for part in dict.fromkeys((above, lower)) if part))
    return names


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


def _named_data(rows: tuple[TableRow, ...]) -> tuple[TableRow, ...]:
    """The rows, one labelled "Total" alone kept as data where it stands among the data rows, two
    or more after it, and none of its figures is the sum of the data rows before it (since the
    last total) nor of all the others: a company called Total among 2,000."""
    kept = list(rows)
    for at, row in enumerate(rows):
        label = next((cell for cell in row.cells if cell and number(cell) is None), "")
        after = [other for other in rows[at + 1:] if other.kind is RowKind.ROW]
        if row.kind is not RowKind.TOTAL or label.strip().casefold() != "total" or len(after) < 2:
            continue
        start = max((i for i in range(at) if rows[i].kind is not RowKind.ROW), default=-1) + 1
        before = [other for other in rows[start:at] if other.kind is RowKind.ROW]
        others = before + after
        if not any(_sums(row, index, group) for index in range(len(row.cells)) for group in (before, others)):
            kept[at] = TableRow(row.number, row.cells, RowKind.ROW)
    return tuple(kept)


def _sums(row: TableRow, index: int, group: Sequence[TableRow]) -> bool:
    """Whether the row's figure in a column is the sum of the group's."""
    figure = number(row.cells[index]) if row.cells[index] else None
    parts = [number(other.cells[index]) for other in group if other.cells[index]]
    return bool(figure) and bool(parts) and None not in parts and math.isclose(
        sum(parts), figure, rel_tol=0.005)  # type: ignore[arg-type]


def _wholes(rows: tuple[TableRow, ...]) -> tuple[TableRow, ...]:
    """The rows, those labelled for the whole ("All", "National") marked as totals where one of
    their figures is the sum of the other data rows' (a party called National is data)."""
    data = [row for row in rows if row.kind is RowKind.ROW]

    def whole(row: TableRow) -> bool:
        label = next((cell for cell in row.cells if cell and number(cell) is None), "")
        if not _WHOLE.fullmatch(" ".join(label.split())):
            return False
        for index, cell in enumerate(row.cells):
            figure = number(cell) if cell else None
            parts = [number(other.cells[index]) for other in data if other is not row and other.cells[index]]
            if figure and parts and None not in parts and math.isclose(sum(parts), figure, rel_tol=0.005):  # type: ignore[arg-type]
                return True
        return False

    return tuple(TableRow(row.number, row.cells, RowKind.TOTAL) if row.kind is RowKind.ROW and whole(row) else row
                 for row in rows)


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
    present = [value for value in values if not no_value(value)]
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
    """The number a cell shows (`312`, `-4.5`, `1,200`, `1e3`, `$1.2 billion`, `12.5 km`), or None."""
    if _GROUPED.fullmatch(text):
        return float(text.replace(",", ""))
    if _REAL.fullmatch(text):
        return float(text)
    return _written(text)


def written_unit(cells: Sequence[str]) -> str:
    """The currency or unit the numbers of the cells are written with ("$1,200", "NOK 420",
    "12.5 km", "12%"): "$", "NOK", "km", "%"; "" where they differ, or most carry none (a cell
    without it beside them, "(250.00)" under "$1,200.00", is of the same)."""
    units = []
    for cell in cells:
        if no_value(cell):
            continue
        written = _WRITTEN.fullmatch(" ".join(cell.split()))
        units.append("" if written is None else (written.group("before") or written.group("after") or
                                                 written.group("unit") or ("%" if written.group("percent") else "")))
    named = {unit.strip() for unit in units if unit}
    return named.pop() if len(named) == 1 and 2 * sum(1 for unit in units if unit) >= len(units) else ""


def text_blanks(cells: Sequence[str]) -> frozenset[str]:
    """The cells of a column of text that stand for no value: "n/a", "NaN", "NULL" as written,
    and "NA" (as R and pandas write a missing value) where the column's other cells are names,
    not codes ("NA" among "EU" and "AS", or alone, may be North America), or US states' postal
    codes."""
    written = {cell.strip() for cell in cells if cell.strip()}
    blanks = {cell for cell in written if cell.casefold() in _TEXT_BLANKS}
    others = {cell for cell in written - {"NA"} if not no_value(cell)}
    # "NA" among names ("Kenya", "United States"); not among codes, nor alone, where it may be North America
    if "NA" in written and others and not any(_CODE.fullmatch(cell) or len(cell) <= 3 for cell in others):
        blanks.add("NA")
    # "NA" among the US states' postal codes (WI, MN…), of which it is none
    if "NA" in written and len(others) >= 2 and others <= _STATE_CODES:
        blanks.add("NA")
    return frozenset(blanks)


def no_value(cell: str) -> bool:
    """Whether a cell holds no value: empty, or a dash, "n/a", "NA" or ".." standing for none."""
    return not cell or cell.strip().casefold() in _NO_VALUE


def _written(text: str) -> float | None:
    """A number as people write one in a table (see the module's invariants), or None."""
    written = _WRITTEN.fullmatch(" ".join(text.split()))
    if written is None or (written.group("unit") and (written.group("before") or written.group("after"))):
        return None  # a currency and a unit both ("$12 km") is no amount docchat can read
    digits = written.group("digits").replace(",", "")
    scale = (written.group("scale") or written.group("letter") or "").lower()
    if scale in ("m", "b") and not (written.group("before") or written.group("after")):
        scale = ""  # "2.4m" high is metres; "$3.4m" is millions
    value = float(digits) * _SCALES.get(scale, 1.0)
    negative = written.group("sign") in _MINUS or written.group("open") is not None
    return -value if negative else value


def letters(index: int) -> str:
    """A column's letters as spreadsheets show them: 0 is A, 25 Z, 26 AA."""
    shown = ""
    index += 1
    while index:
        index, remainder = divmod(index - 1, 26)
        shown = chr(ord("A") + remainder) + shown
    return shown
