"""The dates a question names, as conditions on a sheet's date column (issue 55): "the units sold
in 2025" keeps the rows dated 2025, where the query had added up every row.

- A year ("in 2025", "during 2024", "for 2023"): the rows dated in it.
- A decade ("in the 1990s"): the rows dated in it.
- A month with its year ("in March 2025") or alone ("in March": in any year): the rows dated in it.
  Month names count only written with a capital, so "may" the verb is no month.
- A bound: "after", "before", "since", "until" or "from" with a date ("1 October 2025",
  "October 1st, 2025", "2025-10-01") or a year ("after 2024": from 1 January 2025 on).
- A day: "on 4 July 2013", "on 2013-07-04", "of the 3rd of May"… ("on 3 May", "on May 3rd",
  "on Christmas Day": that day in any year): the rows dated that day.
- The column: the sheet's one date column (ISO dates, as docchat keeps them), or of several the
  one a word of the question begins ("started" for startdate); else no date condition. A year that is also a column's name ("made in 1999" where
  1999 heads a column) names that column, not a date.
"""

from __future__ import annotations

import re

from docchat.domain.documents import TableShape, quoted
from docchat.tables.numbers import is_year

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_SHORT = {name[:3]: number for number, name in enumerate(MONTHS, start=1)}
_MONTH = r"(?P<month>" + "|".join([*MONTHS, *(m[:3] for m in MONTHS if m != "May")]) + r")\.?"
_YEAR = r"(?P<year>(?:1[6-9]|20)\d{2})"  # 1600 to 2099: the Crimean war's months, a parish's christenings
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_BOUND = r"(?P<bound>after|before|since|until|till|from)"
_FULL_DATES = (rf"{_DAY}\s+{_MONTH},?\s+{_YEAR}", rf"{_MONTH}\s+{_DAY},?\s+{_YEAR}",
               r"(?P<iso>(?P<year>(?:1[6-9]|20)\d{2})-(?P<month>\d{2})-(?P<day>\d{2}))")
# "from 1975" alone is the year ("cars from 1975"); "from 1975 on" or "from 1975 to 1980" a bound.
_BOUNDED = [re.compile(rf"\b{_BOUND}\s+(?:the\s+)?{date}(?![\w-])") for date in _FULL_DATES] + [
    re.compile(rf"\b(?!from\b){_BOUND}\s+{_YEAR}(?![\w-])"),
    re.compile(rf"\b(?P<bound>from)\s+{_YEAR}(?=\s+(?:on|onwards?|to|until|till|through)\b)")]
_ON_DAY = [re.compile(rf"\b(?:on|of)\s+(?:the\s+)?{date}(?![\w-])") for date in _FULL_DATES]
_ON_DAY_OF_ANY_YEAR = [re.compile(rf"\bon\s+(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MONTH}(?![\w-])"),
                       re.compile(rf"\bon\s+{_MONTH}\s+{_DAY}(?![\w-])")]
_IN_MONTH = re.compile(rf"\b(?:in|during|for|of)\s+{_MONTH}(?:\s+{_YEAR})?(?![\w-])")
_IN_YEAR = re.compile(rf"\b(?:in|during|for|of|from)\s+(?:the\s+year\s+)?{_YEAR}(?![\w-])")
_DECADE = re.compile(r"\b(?:in|during|of|from)\s+the\s+(?P<decade>(?:1[6-9]|20)\d)0s\b")
# Holidays on one day of every year (not Easter's, which moves).
_HOLIDAYS = {"christmas day": "25 December", "christmas eve": "24 December", "christmas": "25 December",
             "boxing day": "26 December", "new year's day": "1 January", "new year's eve": "31 December",
             "halloween": "31 October", "valentine's day": "14 February", "independence day": "4 July"}
_HOLIDAY = re.compile(r"(?<=\bon )(?:the )?(" + "|".join(name.replace("'", "['’]") for name in _HOLIDAYS) + r")\b",
                      re.IGNORECASE)
_OPERATORS = {"after": ">", "before": "<", "since": ">=", "until": "<=", "till": "<=", "from": ">="}


def as_dates(question: str) -> str:
    """The question with each fixed-date holiday it names as its day: "on Christmas Day" as "on
    25 December" (any year's, as a day and month are)."""
    return _HOLIDAY.sub(lambda match: _HOLIDAYS[match.group(1).lower().replace("’", "'")], question)


def date_conditions(shape: TableShape, question: str) -> list[tuple[str, str]]:
    """(SQL, words) for each date the question names, on the sheet's one date column."""
    dated = [name for name, kind in shape.columns if kind == "date"]
    if len(dated) > 1:  # "the polls that started in June": startdate, of startdate and enddate
        dated = [name for name in dated if any(name.lower().startswith(stem) for stem in _stems(question))]
    if len(dated) != 1:
        return []
    column, named = quoted(dated[0]), {name.casefold() for name, _ in shape.columns}
    day = f"substr({column}, 1, 10)"
    conditions: list[tuple[str, str]] = []
    taken: list[re.Match[str]] = []
    for pattern in _BOUNDED:
        for match in pattern.finditer(question):
            if _overlaps(match, taken):
                continue
            taken.append(match)
            bound, operator = match.group("bound"), _OPERATORS[match.group("bound")]
            if "day" in match.groupdict() and match.group("day"):
                iso = _iso(match)
                conditions.append((f"{day} {operator} '{iso}'", f"{dated[0]} is {bound} {iso}"))
            else:
                year = match.group("year")
                edge = f"{year}-12-31" if operator in (">", "<=") else f"{year}-01-01"
                conditions.append((f"{day} {operator} '{edge}'", f"{dated[0]} is {bound} {year}"))
    for pattern in _ON_DAY:
        for match in pattern.finditer(question):
            if not _overlaps(match, taken):
                taken.append(match)
                conditions.append((f"{day} = '{_iso(match)}'", f"{dated[0]} is {_iso(match)}"))
    for pattern in _ON_DAY_OF_ANY_YEAR:
        for match in pattern.finditer(question):
            if not _overlaps(match, taken):
                taken.append(match)
                month, of_month = _month(match.group("month")), int(match.group("day"))
                conditions.append((f"substr({column}, 6, 5) = '{month:02d}-{of_month:02d}'",
                                   f"{dated[0]} is on {of_month} {MONTHS[month - 1]}"))
    for match in _IN_MONTH.finditer(question):
        if _overlaps(match, taken):
            continue
        taken.append(match)
        month, year = _month(match.group("month")), match.group("year")
        if year:
            conditions.append((f"substr({column}, 1, 7) = '{year}-{month:02d}'",
                               f"{dated[0]} is in {MONTHS[month - 1]} {year}"))
        else:
            conditions.append((f"substr({column}, 6, 2) = '{month:02d}'", f"{dated[0]} is in {MONTHS[month - 1]}"))
    # a decade is the Year column's, where there is one (docchat.tables.numbers), not the dates'
    has_year = any(is_year(name, kind) for name, kind in shape.columns)
    for match in () if has_year else _DECADE.finditer(question):
        if not _overlaps(match, taken):
            taken.append(match)
            conditions.append((f"substr({column}, 1, 3) = '{match.group('decade')}'",
                               f"{dated[0]} is in the {match.group('decade')}0s"))
    for match in _IN_YEAR.finditer(question):
        year = match.group("year")
        if _overlaps(match, taken) or year in named:
            continue
        taken.append(match)
        conditions.append((f"substr({column}, 1, 4) = '{year}'", f"{dated[0]} is in {year}"))
    return conditions


def _stems(question: str) -> list[str]:
    """The question's words less an ending ("started" -> start), three letters or more."""
    stems = [re.sub(r"(?:ed|ing|s)$", "", word) for word in re.findall(r"[a-z]+", question.lower())]
    return [stem for stem in stems if len(stem) >= 3]


def _iso(match: re.Match[str]) -> str:
    if match.groupdict().get("iso"):
        return match.group("iso")
    return f"{match.group('year')}-{_month(match.group('month')):02d}-{int(match.group('day')):02d}"


def _month(name: str) -> int:
    return int(name) if name.isdigit() else _SHORT[name[:3]]


def _overlaps(match: re.Match[str], taken: list[re.Match[str]]) -> bool:
    return any(match.start() < other.end() and other.start() < match.end() for other in taken)
