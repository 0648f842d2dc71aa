"""A figure asked of a sheet that docchat's own queries (docchat.tables.query) do not
compute, asked of the served model as one SQL query, where the model has shown it can write
one (issue 38): "the value of the stock in Oslo, pallets times unit price".

- The model is shown each sheet as a table of its data rows only, under a plain name ("stock"
  for the sheet Stock), with its columns, their types and its first rows.
- docchat runs what it wrote behind those names, set before it as common table expressions over
  the kept tables' data rows (`_kind = 'row'`): whatever the model writes, subtotal and total
  rows are never added again. The query runs as docchat's own do: on a read-only connection,
  under an authorizer that lets it only read, with a time and a row limit.
- What it wrote must be one SELECT (or WITH ... SELECT), code fences and a final semicolon
  aside, that reads a sheet shown to it and gives a figure: one row of one number, or a row per
  value of a column (the value, then a number), or one cell's text. Anything else is unusable: the passages answer,
  and the model's tally (`SkillGate`) says so; a model with none usable is not asked again.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing

from docchat.domain.approach import Figure, number
from docchat.domain.documents import QueryResult, TableShape, quoted
from docchat.errors import UnusableOutput

# Rows of each sheet the model is shown, and characters of a text cell.
FIRST_ROWS = 3
SHOWN_CHARS = 60
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*|\s*```\s*$")
_STARTS = re.compile(r"^\s*(select|with)\b", re.IGNORECASE)
_WITH = re.compile(r"^\s*with\s+(recursive\s+)?", re.IGNORECASE)


def plain_names(shapes: Sequence[TableShape]) -> dict[str, TableShape]:
    """Each sheet under the name the model sees: its words, lower case, joined by "_"
    ("Lead times" -> lead_times), made unique."""
    named: dict[str, TableShape] = {}
    for shape in shapes:
        base = "_".join(re.findall(r"[a-z0-9]+", shape.sheet.lower())) or "sheet"
        base = base if base[0].isalpha() and _a_name(base) else f"sheet_{base}"  # "Order" is no table name
        name, n = base, 2
        while name in named:
            name, n = f"{base}_{n}", n + 1
        named[name] = shape
    return named


def _a_name(word: str) -> bool:
    """Whether SQLite takes `word` as a table's name unquoted (not a keyword such as ORDER)."""
    with closing(sqlite3.connect(":memory:")) as db:
        try:
            db.execute(f"WITH {word} AS (SELECT 1) SELECT * FROM {word}")
        except sqlite3.Error:
            return False
    return True


def described(named: dict[str, TableShape], names: dict[str, str],
              first_rows: Callable[[TableShape], Sequence[tuple[object, ...]]]) -> str:
    """The sheets as the model is shown them; `names`: each document's name by its id."""
    parts = []
    for name, shape in named.items():
        columns = ", ".join(f"{quoted(column)} {kind.upper()}" for column, kind in shape.columns)
        rows = "\n".join(f"  {tuple(_short(value) for value in row)!r}" for row in first_rows(shape))
        parts.append(f"Table {name} (the sheet {shape.sheet} of {names[shape.document_id]}): {columns}\n"
                     f"Its first rows:\n{rows}")
    return "\n\n".join(parts)


def _short(value: object) -> object:
    """A cell as the model is shown it: a long text cut (a note column is not what a query needs)."""
    return value[:SHOWN_CHARS] + "…" if isinstance(value, str) and len(value) > SHOWN_CHARS else value


def statement(written: str) -> str:
    """The SELECT the model wrote, without fences or a final semicolon; UnusableOutput for
    anything else."""
    sql = _FENCE.sub("", written.strip()).strip().rstrip(";").strip()
    if not _STARTS.match(sql):
        raise UnusableOutput(f"not a SELECT statement: {sql[:80]!r}")
    return sql


def wrapped(sql: str, named: dict[str, TableShape]) -> str:
    """The query as docchat runs it: each shown sheet's name bound to its data rows first."""
    ours = ", ".join(f"{name} AS (SELECT {', '.join(quoted(column) for column, _ in shape.columns)} "
                     f"FROM {shape.table} WHERE _kind = 'row')" for name, shape in named.items())
    written = _WITH.match(sql)
    if written is None:
        return f"WITH {ours} {sql}"
    return f"WITH {written.group(1) or ''}{ours}, {sql[written.end():]}"


def figure_of(result: QueryResult, named: dict[str, TableShape], names: dict[str, str], sql: str,
              model: str) -> Figure:
    """The figure the query gave, of the first shown sheet it read; UnusableOutput when it gave
    none or read no sheet shown."""
    read = [shape for shape in named.values() if shape.table in result.read]
    if not read:
        raise UnusableOutput(f"the query reads none of the sheets shown: {sql[:80]!r}")
    shape, document = read[0], names[read[0].document_id]
    rows, columns = result.rows, result.columns
    if result.truncated or not rows:
        raise UnusableOutput("the query gave no rows" if not rows else "the query gave too many rows")
    if len(columns) == 1 and len(rows) == 1 and number(rows[0][0]) is not None:
        return Figure(shape.document_id, document, shape.sheet, _what(columns[0]), number(rows[0][0]), sql, (),
                      written_by=model)
    if len(columns) == 1 and len(rows) == 1 and isinstance(rows[0][0], str) and rows[0][0].strip():
        # one cell's text looked up ("what party was Nixon in"): the figure is that text
        return Figure(shape.document_id, document, shape.sheet, _what(columns[0]), None, sql, (),
                      text=rows[0][0], written_by=model)
    if len(columns) == 2 and all(number(value) is not None or value is None for _, value in rows):
        groups = tuple(("" if per is None else str(per), number(value)) for per, value in rows)
        return Figure(shape.document_id, document, shape.sheet, _what(columns[1]), None, sql, (),
                      by=columns[0], groups=groups, written_by=model)
    raise UnusableOutput(f"the query gave no figure ({len(rows)} rows of {', '.join(columns)})")


def _what(column: str) -> str:
    """What a result's column holds, in words: "total_value" -> "total value"."""
    return " ".join(column.replace("_", " ").split())
