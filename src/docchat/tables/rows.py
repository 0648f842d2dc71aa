"""The rows a question names by where they stand in the table (issue 55): "the first 5 races",
"the last two orders", "the final 3 rows" keep those rows of the table's data rows, in the order
the table lists them (subtotal and total rows are not counted among them). "The top 3" ranks by a
figure instead (docchat.tables.query); a number written past ten, or none ("the first
race"), names no rows here. "The first 3 months" (days, years) keeps the rows of the first three
months the table's one date column holds, whatever a row stands for; "the first 10 years" of a
Year column its first ten years. Other spans of time ("the first 2 weeks"), or a span where the
table has no one such column, are not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docchat.domain.documents import TableShape, quoted
from docchat.tables.linking import NUMBER_WORDS
from docchat.tables.numbers import is_year
from docchat.text import singular

_PLACED = re.compile(r"\b(?P<end>first|last|final|opening|latest)\s+(?P<count>\d{1,4}|" + "|".join(NUMBER_WORDS) +
                     r")\s+(?P<noun>[a-z][\w-]*)(?P<listed>\s+(?:listed|shown|in\s+the\s+(?:table|list)))?",
                     re.IGNORECASE)
# A noun after the number that says a span of time, not rows: "the first 3 months" of a sheet with
# a row a day. docchat's reader does not read it, and computes no figure for such a question
# rather than one over every row.
_SPANS = frozenset(("day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "quarters",
                    "hour", "hours", "minute", "minutes"))


# The spans read, and how many characters of an ISO date say each.
_DATED = {"day": 10, "month": 7, "year": 4}


def names_a_span(question: str, shapes: Sequence[TableShape]) -> bool:
    """Whether the question names the first or last N days, weeks, months... (see _SPANS) that no
    one of the tables can keep."""
    return any(match.group("noun").lower() in _SPANS and all(_span(shape, match.group("noun")) is None
                                                             for shape in shapes)
               for match in _PLACED.finditer(question))


def without_spans(question: str) -> str:
    """The question less the noun of each span it names ("the first 10 years" names no column Year)."""
    return _PLACED.sub(lambda match: match.group() if match.group("noun").lower() not in _SPANS
                       else match.group()[:match.start("noun") - match.start()], question)


def _span(shape: TableShape, noun: str) -> str | None:
    """The SQL of what a row's day, month or year is, from the table's one date column (or, for a
    year, its one Year column), or None."""
    unit = singular(noun.lower())
    dated = [name for name, kind in shape.columns if kind == "date"]
    if unit in _DATED and len(dated) == 1:
        return f"substr({quoted(dated[0])}, 1, {_DATED[unit]})"
    years = [name for name, kind in shape.columns if is_year(name, kind)]
    return quoted(years[0]) if unit == "year" and not dated and len(years) == 1 else None


def placed_conditions(shape: TableShape, question: str) -> list[tuple[str, str]]:
    """(SQL, words) for the rows the question names by their place: the first or last N rows, or
    days, months or years."""
    conditions = []
    for match in _PLACED.finditer(question):
        noun = match.group("noun").lower()
        if noun in _SPANS and _span(shape, noun) is None:
            continue
        count_word = match.group("count").lower()
        count = int(count_word) if count_word.isdigit() else NUMBER_WORDS[count_word]
        if count < 1:
            continue
        last = match.group("end").lower() in ("last", "final", "latest")
        order = "DESC" if last else "ASC"
        if noun in _SPANS:
            span, unit = _span(shape, noun), singular(noun)
            # "the first 12 months listed": in the table's order (newest first, it may be), else by date
            ordered = f"GROUP BY {span} ORDER BY MIN(_row) {order}" if match.group("listed") else f"ORDER BY 1 {order}"
            chosen = "" if match.group("listed") else "DISTINCT "
            conditions.append((f"{span} IN (SELECT {chosen}{span} FROM {shape.table} WHERE _kind = 'row' AND {span} "
                               f"IS NOT NULL {ordered} LIMIT {count})",
                               f"the row is in the {'last' if last else 'first'} {count} {unit}s"
                               + (" listed" if match.group("listed") else "")))
            continue
        conditions.append((f"_row IN (SELECT _row FROM {shape.table} WHERE _kind = 'row' ORDER BY _row {order} "
                           f"LIMIT {count})", f"the row is among the {'last' if last else 'first'} {count}"))
    return conditions
