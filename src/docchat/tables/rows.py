"""The rows a question names by where they stand in the table (issue 55): "the first 5 races",
"the last two orders", "the final 3 rows" keep those rows of the table's data rows, in the order
the table lists them (subtotal and total rows are not counted among them). "The top 3" ranks by a
figure instead (docchat.tables.query); a number written past ten, or none ("the first
race"), names no rows here; "the first 3 months" names a span of time, which is not read.
"""

from __future__ import annotations

import re

from docchat.domain.documents import TableShape
from docchat.tables.linking import NUMBER_WORDS

_PLACED = re.compile(r"\b(?P<end>first|last|final|opening|latest)\s+(?P<count>\d{1,4}|" + "|".join(NUMBER_WORDS) +
                     r")\s+(?P<noun>[a-z][\w-]*)", re.IGNORECASE)
# A noun after the number that says a span of time, not rows: "the first 3 months" of a sheet with
# a row a day. docchat's reader does not read it, and computes no figure for such a question
# rather than one over every row.
_SPANS = frozenset(("day", "days", "week", "weeks", "month", "months", "year", "years", "quarter", "quarters",
                    "hour", "hours", "minute", "minutes"))


def names_a_span(question: str) -> bool:
    """Whether the question names the first or last N days, weeks, months... (see _SPANS)."""
    return any(match.group("noun").lower() in _SPANS for match in _PLACED.finditer(question))


def placed_conditions(shape: TableShape, question: str) -> list[tuple[str, str]]:
    """(SQL, words) for the rows the question names by their place: the first or last N."""
    conditions = []
    for match in _PLACED.finditer(question):
        if match.group("noun").lower() in _SPANS:
            continue
        count_word = match.group("count").lower()
        count = int(count_word) if count_word.isdigit() else NUMBER_WORDS[count_word]
        if count < 1:
            continue
        last = match.group("end").lower() in ("last", "final", "latest")
        order = "DESC" if last else "ASC"
        conditions.append((f"_row IN (SELECT _row FROM {shape.table} WHERE _kind = 'row' ORDER BY _row {order} "
                           f"LIMIT {count})", f"the row is among the {'last' if last else 'first'} {count}"))
    return conditions
