"""A table's numeric columns as a question names them beyond a figure's column (issue 55):

- A number beside a column's name is a condition on it: "cars with 8 cyl", "in Month 7", "a dose
  of 2", "year 1931" keep the rows holding that number, and the column is not what is added up.
  A number a range, a date or "the first N" already took is not read again.
- A column that numbers or dates its rows (Day, Month, Year, Week, an id) is an ordinal: "how many
  days" counts rows and never adds up the Day column; its values may still group a figure ("per
  year") or keep rows ("Month 7").
- A column named for a count ("count", "number", "frequency", "n") holds what "how many" asks
  when the question names no column: "how many insects were counted with spray C" adds up Count.
- A year ("in 1932", "during 2008"), a span of years ("from 1950 to 1955", "the 1650s") or a bound
  ("before 1700") is a condition on a column of whole numbers named Year, in a table with no
  column of dates (docchat.tables.dates reads those).
"""

from __future__ import annotations

import re

from docchat.domain.documents import TableShape, quoted
from docchat.tables.row_names import PART
from docchat.text import singular

_ORDINALS = frozenset(("day", "month", "year", "week", "quarter", "id", "no", "rank", "position", "code", "season"))
COUNT_NAMES = frozenset(("count", "number", "frequency", "freq", "n", "tally"))
# A generic name of a long table's one measure: "country, year, value" counts what "how many" asks.
_GENERIC = frozenset(("value", "values", "amount", "total", "quantity"))
_FILLERS = frozenset(("of", "is", "was", "are", "were", "a", "an", "the", "with", "equal", "to", "equals", "=",
                      "rating", "rated", "level", "grade", "score"))  # "a difficulty rating of 5"
# Words between a number and the column it is of, said after it: "rated 7 for difficulty".
_BEFORE_NAME = frozenset(("for", "on", "in"))
_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_WORD = re.compile(r"[\w.]+")
_YEARS = r"((?:1[6-9]|20)\d{2})"  # 1600 to 2099
_IN_YEAR = re.compile(rf"\b(?:in|during|for|of|from|the)\s+{_YEARS}\b(?![-/])(?!\s+(?:on|onwards?|to|until|till|through)\b)")
_YEAR_SPAN = re.compile(rf"\b(?:from|between)\s+{_YEARS}\s+(?:to|and|until|till|through)\s+{_YEARS}\b")
_YEAR_BOUND = re.compile(rf"\b(after|before|since|until|till|from)\s+{_YEARS}\b(?!\s+(?:to|and|until|till|through)\b)")
_DECADE = re.compile(r"\bthe\s+((?:1[6-9]|20)\d)0s\b")
_OR_BOUND = re.compile(_NUMBER + r"\s+(?:[a-z]+\s+)?or\s+(?:more|fewer|less|over|under|above|below|older|younger|"
                       r"higher|lower|larger|bigger|smaller|taller|shorter|longer|heavier|lighter|faster|slower)\b",
                       re.IGNORECASE)
_YEAR_OPERATORS = {"after": ">", "before": "<", "since": ">=", "until": "<=", "till": "<=", "from": ">="}
# Words before a number that make it a bound, a rank or a place, not a value of a column.
_TAKEN = re.compile(r"\b(?:more|greater|higher|larger|bigger|fewer|less|lower|smaller|over|above|exceeding|under|"
                    r"below|least|most|top|first|last|final|latest|opening|than|after|before|since|until|from|in|to|through)"
                    r"\s+" + _NUMBER, re.IGNORECASE)


def is_year(name: str, kind: str) -> bool:
    """Whether a column is the table's Year: whole numbers, named year or years."""
    return kind == "integer" and singular(name.lower()) == "year"


def ordinal(name: str, kind: str) -> bool:
    """Whether a numeric column numbers or dates its rows rather than measuring them."""
    words = [singular(word) for word in _WORD.findall(name.lower())]
    return kind == "integer" and bool(words) and (words[-1] in _ORDINALS or words[-1].endswith("id"))


def count_column(shape: TableShape) -> str | None:
    """The one numeric column named for a count, if the table has one; or its one measure, named
    generically ("value", "total")."""
    named = [name for name, kind in shape.columns if kind in ("integer", "real") and name.lower() in COUNT_NAMES]
    if not named:  # the only measure, named generically
        measures = [name for name, kind in shape.columns if kind in ("integer", "real") and not ordinal(name, kind)]
        named = measures if len(measures) == 1 and measures[0].lower() in _GENERIC else []
    return named[0] if len(named) == 1 else None


_PEOPLE = frozenset(("people", "persons", "passengers", "individuals", "men and women"))


def people_total(shape: TableShape, words: list[str]) -> str | None:
    """The numeric column named Total, where the question counts people and the table has
    several counts of them ("how many people were in the boats", of crew, men, women and total)."""
    totals = [name for name, kind in shape.columns if kind in ("integer", "real") and name.lower() == "total"]
    return totals[0] if len(totals) == 1 and _PEOPLE & set(words) else None


def equal_conditions(shape: TableShape, question: str) -> list[tuple[str, str]]:
    """(SQL, words) for each number the question names beside a numeric column's name."""
    taken = [match.span(1) for match in _TAKEN.finditer(question)] + [
        match.span(1) for match in _OR_BOUND.finditer(question)]  # "65 watts or less" is a bound, not a value
    words = [(match.group(), match.span()) for match in _WORD.finditer(question.lower())]
    conditions = []
    for name, kind in shape.columns:
        named = [singular(word) for word in _WORD.findall(name.lower())]
        if kind not in ("integer", "real") or not named:
            continue
        for at in range(len(words) - len(named) + 1):
            if [singular(word) for word, _ in words[at:at + len(named)]] != named:
                continue
            value = _beside(words, at, at + len(named), taken)
            if value is not None and (condition := (f"{quoted(name)} = {value}", f"{name} is {value}")) \
                    not in conditions:
                conditions.append(condition)
    return conditions


def year_conditions(shape: TableShape, question: str) -> list[tuple[str, str]]:
    """(SQL, words) for the years the question names, on the table's Year column of whole numbers:
    "in 1932", "the 2019 champion", "from 1950 to 1955", "between 1950 and 1955", "before 1700", "since 1990", "the 1650s"."""
    # else the one column of whole numbers a year names ("built in the 1950s" of year_built)
    years = [name for name, kind in shape.columns if is_year(name, kind)] or [
        name for name, kind in shape.columns if kind == "integer"
        and "year" in {singular(part.lower()) for part in PART.findall(name)}]
    if len(years) != 1:
        return []
    name, column = years[0], quoted(years[0])
    conditions: list[tuple[str, str]] = []
    if any(kind == "date" for _, kind in shape.columns):  # the dates read the rest (docchat.tables.dates)
        return _decades(question, name, column)
    taken = []
    for match in _YEAR_SPAN.finditer(question):
        first, last = sorted((int(match.group(1)), int(match.group(2))))
        conditions.append((f"{column} BETWEEN {first} AND {last}", f"{name} is from {first} to {last}"))
        taken.append(match.span())
    conditions += _decades(question, name, column)
    for match in _YEAR_BOUND.finditer(question):
        if not _within(match.span(), taken) and not (match.group(1) == "from" and _IN_YEAR.match(question, match.start())):
            operator = _YEAR_OPERATORS[match.group(1)]
            conditions.append((f"{column} {operator} {match.group(2)}", f"{name} is {match.group(1)} {match.group(2)}"))
            taken.append(match.span())
    named = sorted({match.group(1) for match in _IN_YEAR.finditer(question) if not _within(match.span(), taken)})
    if named:
        sql = f"{column} = {named[0]}" if len(named) == 1 else f"{column} IN ({', '.join(named)})"
        conditions.append((sql, f"{name} is {' or '.join(named)}"))
    return conditions


def _decades(question: str, name: str, column: str) -> list[tuple[str, str]]:
    return [(f"{column} BETWEEN {start} AND {start + 9}", f"{name} is in the {start}s")
            for start in (int(match.group(1)) * 10 for match in _DECADE.finditer(question))]


def _within(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in taken)


def _beside(words: list[tuple[str, tuple[int, int]]], start: int, end: int,
            taken: list[tuple[int, int]]) -> str | None:
    """The number right before the column's words ("8 cyl") or after them, past fillers ("dose of 2")."""
    candidates = []
    if start > 0:
        candidates.append(words[start - 1])
    if start > 1 and words[start - 1][0] in _BEFORE_NAME:
        candidates.append(words[start - 2])
    after = end
    while after < len(words) and words[after][0] in _FILLERS:
        after += 1
    if after < len(words):
        candidates.append(words[after])
    for word, span in candidates:
        plain = word.rstrip(".").replace(",", "")
        if re.fullmatch(r"\d+(?:\.\d+)?", plain) and not any(a <= span[0] < b for a, b in taken):
            return plain
    return None
