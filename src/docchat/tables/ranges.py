"""The ranges a question states, as conditions on a table's numeric columns (issue 55): "more
than 12,500 visitors", "a unit price below 4.5", "50 or more pallets", "a Girth of more than 15",
"a Murder rate below 5". A column named for its range is what is counted or kept, not what is
added up (docchat.tables.query).
"""

from __future__ import annotations

import re

from docchat.domain.documents import TableShape
from docchat.text import singular

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_NUMERIC = ("integer", "real")
_WORD = re.compile(r"[^\W_]+")
_COMPARED = (
    (">", r"(?:more|greater|higher|larger|bigger) than|over|above|exceeding"),
    ("<", r"(?:fewer|less|lower|smaller) than|under|below"),
    (">=", r"at least|no (?:fewer|less) than"),
    ("<=", r"at most|no more than"),
)
# "more than 50 pallets" / "pallets above 50": the column's words follow the number, or come just before.
_RANGE = re.compile(rf"\b({'|'.join(words for _, words in _COMPARED)})\s+[$£€]?{_NUMBER}")
_OR_MORE = re.compile(rf"\b{_NUMBER}\s+or\s+(more|fewer|less)\b")
IN_RANGE_WORDS = {">": "more than", "<": "less than", ">=": "at least", "<=": "at most"}
# A word after a column's name that says what it measures, not another column: "a Murder rate".
_MEASURES = frozenset(("rate", "level", "value", "score", "figure", "total", "amount", "weight", "size", "length",
                       "count", "number"))


def unranged(question: str) -> str:
    """The question, lower-cased, with its ranges taken out: "at least 10 pallets" asks for no
    lowest, nor "at most" for a highest."""
    return _OR_MORE.sub(" ", _RANGE.sub(" ", question.lower()))


def stated_bounds(question: str) -> list[tuple[str, str, list[str], list[str]]]:
    """(operator, bound, the four words after it, the four before) for each range the question
    states: "more than 50 pallets", "a unit price below 4.5", "50 or more pallets"."""
    lowered = question.lower()
    found = [(next(op for op, cue in _COMPARED if re.fullmatch(cue, match.group(1))), match)
             for match in _RANGE.finditer(lowered)]
    found += [(">=" if match.group(2) == "more" else "<=", match) for match in _OR_MORE.finditer(lowered)
              if not any(other.start() <= match.start() < other.end() for _, other in found)]
    return [(operator, next(group for group in match.groups() if group and group[0].isdigit()).replace(",", ""),
             _words(lowered[match.end():])[:4], _words(lowered[:match.start()])[-4:]) for operator, match in found]


def ranges_of(shape: TableShape, bounds: list[tuple[str, str, list[str], list[str]]]) -> list[tuple[str, str, str]]:
    """(column, operator, bound) for each of the question's ranges that names a numeric column of
    the sheet, by the words right after its bound or right before it."""
    ranges = []
    for operator, bound, after, before in bounds:
        column = _column_near(shape, after, from_start=True) or _column_near(shape, before)
        if column is not None and (column, operator, bound) not in ranges:
            ranges.append((column, operator, bound))
    return ranges


def _column_near(shape: TableShape, words: list[str], *, from_start: bool = False) -> str | None:
    """The numeric column named by words next to a bound: at their start ("50 pallets") or their
    end ("a unit price above", "a girth of more than": a filler word between them aside; "a
    Murder rate below 5", "a body weight over 100": a word of what it measures after it, where no
    column is named with it)."""
    plain = [singular(word) for word in words]
    if from_start:
        return _named_at(shape, plain, from_start=True)
    while plain and plain[-1] in ("of", "is", "was", "are", "were"):
        plain.pop()
    found = _named_at(shape, plain, from_start=False)
    if found is None and len(plain) > 1 and plain[-1] in _MEASURES:
        found = _named_at(shape, plain[:-1], from_start=False)
    return found


def _named_at(shape: TableShape, plain: list[str], *, from_start: bool) -> str | None:
    best = None
    for name, kind in shape.columns:
        named = [singular(word) for word in _words(name)]
        if kind not in _NUMERIC or not named or len(named) > len(plain):
            continue
        at_edge = plain[:len(named)] if from_start else plain[len(plain) - len(named):]
        if at_edge == named and (best is None or len(named) > len(_words(best))):
            best = name
    return best


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())
