"""The collection's answer to a question asking one value of each document (issue 54): "When does
each contract renew?", "How much is the rent in each lease?". A table with a row per document,
a column for the value its quote states, and the quote it was read from, so that the values can
be read down one column; docchat takes the value from the quote as written, and adds nothing.

Which value is asked is read from the question's words: a date ("when", "date", "deadline") or
a figure ("how much", "how many", "cost", "total"...). A question asking anything else (a name,
a clause) keeps the list, each document's own sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docchat.domain.stated import escaped
from docchat.grounding.numbers import values_in

DATE, FIGURE = "Date", "Figure"
_ASKS_DATE = re.compile(r"^\s*(?:and\s+)?when\b|\b(?:dates?|deadlines?|due|expir\w*|renew\w*\s+on)\b", re.IGNORECASE)
_ASKS_FIGURE = re.compile(r"\bhow\s+(?:much|many|long|large|big)\b|\b(?:amounts?|costs?|prices?|fees?|rents?|totals?|"
                          r"sums?|salar\w+|rates?|percentages?|budgets?|values?|figures?|numbers?\s+of)\b",
                          re.IGNORECASE)
# A word after a figure that says what it counts ("30 days", "1,840 pallets"), unless it is one of these.
_NOT_A_UNIT = frozenset("a an and are as at be by every each for from in is it of on or per the to was were will "
                        "with".split())
_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")
NONE_STATED = "—"


def asked_value(question: str) -> str | None:
    """The kind of value a question asks of each document (DATE or FIGURE); None: not one value."""
    if _ASKS_DATE.search(question):
        return DATE
    return FIGURE if _ASKS_FIGURE.search(question) else None


def value_of(sentence: str, kind: str) -> str | None:
    """The first value of `kind` the sentence states, as written (a figure with the word that
    says what it counts), None if it states none."""
    for written, is_date in values_in(sentence):
        if is_date == (kind == DATE):
            if kind == FIGURE and (unit := _NEXT_WORD.match(sentence, sentence.index(written) + len(written))):
                if unit.group(1) not in _NOT_A_UNIT:
                    return f"{written} {unit.group(1)}"
            return written
    return None


def value_table(kind: str, rows: Sequence[tuple[str, str | None, str]]) -> str:
    """The table of (document name, the sentence quoted from it or None, what its row says)."""
    lines = [f"| Document | {kind} | What it says |", "| --- | --- | --- |"]
    for name, sentence, said in rows:
        value = value_of(sentence, kind) if sentence is not None else None
        lines.append(f"| {escaped(name)} | {escaped(value) if value else NONE_STATED} | {said} |")
    return "\n".join(lines)
