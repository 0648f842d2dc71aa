"""A figure a question asks of a sheet, as a read-only SQL query docchat writes itself: no model
is asked, so the bundled model gets exact figures too (issue 38).

The shapes it writes: the total, average, count, highest or lowest of one numeric column of one
sheet, over its data rows only (`_kind = 'row'`: subtotals and totals are never added again),
filtered by the values of its text columns that the question names.

- The column: a numeric column whose name's words are all in the question ("pallets" names
  `Pallets`, "unit price" names `Unit price`); of several, the longest name.
- The figure: "total", "sum", "altogether" add up; "average" or "mean" average; "highest",
  "largest", "most" and "maximum" take the highest, their opposites the lowest; "how many" with
  a column named adds it up ("how many pallets"), without one counts the rows ("how many items").
- The filters: every value of a text column (up to VALUES_READ of them) that the question holds
  as a phrase, case aside ("Oslo", "cardboard boxes"); two values of one column are either.
- Per value of a text column: "per location", "by location", "for each location" (the column's
  name, singular or plural, after "per", "by", "each" or "every") give the figure for each of its
  values, in the order the sheet first has them ("how many items per location" counts the rows).
- No column named and no rows to count, or no figure asked for: no query (passages answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from docchat.context.approach import singular
from docchat.documents.tables import quoted
from docchat.ports import TableShape

VALUES_READ = 500
_WORD = re.compile(r"[^\W_]+")
_FIGURES = (("SUM", ("total", "sum", "altogether", "combined")), ("AVG", ("average", "mean")),
            ("MAX", ("highest", "largest", "biggest", "most", "maximum")),
            ("MIN", ("lowest", "smallest", "least", "fewest", "minimum")))
_IN_WORDS = {"SUM": "total", "AVG": "average", "MAX": "highest", "MIN": "lowest", "COUNT": "number of rows"}
_NUMERIC = ("integer", "real")
_HOW_MANY = re.compile(r"\bhow (?:many|much)\b")
_PER = ("per", "by", "each", "every")


@dataclass(frozen=True)
class TableQuery:
    shape: TableShape
    sql: str
    # What it computes, in words: "the total of Pallets where Location is Oslo".
    what: str
    by: str | None = None  # the column whose values it is computed per (a row each)


def table_query(question: str, shapes: Sequence[TableShape],
                values: Callable[[TableShape, str], Sequence[str]]) -> TableQuery | None:
    """The query for the figure `question` asks of one of the sheets, or None. `values(shape,
    column)`: the distinct values of a text column's data rows."""
    words = _words(question)
    text = " ".join(words)
    figure = _figure(words, text)
    if figure is None:
        return None
    found = [(shape, column) for shape in shapes for column in _named_columns(shape, set(words))]
    column: str | None
    if found:
        shape, column = max(found, key=lambda pair: len(_words(pair[1])))
    elif _HOW_MANY.search(text) and (counted := _counted(shapes, words)) is not None:
        shape, column, figure = counted, None, "COUNT"  # "how many suppliers": the rows, counted
    else:
        return None
    by = _per(shape, words)
    conditions = _conditions(shape, text, values, besides=by)
    where = " AND ".join(["_kind = 'row'", *(sql for sql, _ in conditions)])
    measured = "COUNT(*)" if column is None else f"{figure}({quoted(column)})"
    counts = f"{measured} AS value, COUNT(*) AS rows_read, GROUP_CONCAT(_row) AS rows_used"
    if by is None:
        sql = f"SELECT {counts} FROM {shape.table} WHERE {where}"
    else:
        sql = (f"SELECT {quoted(by)} AS per, {counts} FROM {shape.table} WHERE {where} "
               f"GROUP BY {quoted(by)} ORDER BY MIN(_row)")
    what = f"the {_IN_WORDS[figure]}" + (f" of {column}" if column else "") + (f" per {by}" if by else "")
    if conditions:
        what += " where " + " and ".join(words_ for _, words_ in conditions)
    return TableQuery(shape, sql, what, by)


def asks_a_figure(question: str) -> bool:
    """Whether the question asks for a figure at all (no sheet need be read to tell)."""
    words = _words(question)
    return _figure(words, " ".join(words)) is not None


def _figure(words: list[str], text: str) -> str | None:
    for figure, cues in _FIGURES:
        if any(cue in words for cue in cues):
            return figure
    return "SUM" if _HOW_MANY.search(text) else None


def _named_columns(shape: TableShape, present: set[str]) -> list[str]:
    named = []
    for name, kind in shape.columns:
        column_words = {singular(word) for word in _words(name)}
        if kind in _NUMERIC and column_words and column_words <= {singular(word) for word in present}:
            named.append(name)
    return named


def _counted(shapes: Sequence[TableShape], words: list[str]) -> TableShape | None:
    """The sheet whose rows "how many" counts: the only one, or the only one with a column the
    question counts per."""
    if len(shapes) == 1:
        return shapes[0]
    per = [shape for shape in shapes if _per(shape, words) is not None]
    return per[0] if len(per) == 1 else None


def _per(shape: TableShape, words: list[str]) -> str | None:
    """The text column the question asks the figure per: its name, singular or plural, right
    after "per", "by", "each" or "every" (a "the" between them aside)."""
    plain = [singular(word) for word in words if word != "the"]
    for name, kind in shape.columns:
        named = [singular(word) for word in _words(name)]
        if kind != "text" or not named:
            continue
        for at in range(1, len(plain) - len(named) + 1):
            if plain[at - 1] in _PER and plain[at:at + len(named)] == named:
                return name
    return None


def _conditions(shape: TableShape, text: str, values: Callable[[TableShape, str], Sequence[str]], *,
                besides: str | None = None) -> list[tuple[str, str]]:
    conditions = []
    padded = f" {text} "
    for name, kind in shape.columns:
        if kind != "text" or name == besides:
            continue
        named = [value for value in values(shape, name)[:VALUES_READ]
                 if (phrase := " ".join(_words(value))) and f" {phrase} " in padded]
        if named:
            listed = ", ".join(_literal(value) for value in named)
            sql = f"{quoted(name)} = {listed}" if len(named) == 1 else f"{quoted(name)} IN ({listed})"
            conditions.append((sql, f"{name} is {' or '.join(named)}"))
    return conditions


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
