"""The ranges a question states, as conditions on a table's numeric columns (issue 55): "more
than 12,500 visitors", "a unit price below 4.5", "50 or more pallets", "a Girth of more than 15",
"a Murder rate below 5". A column named for its range is what is counted or kept, not what is
added up (docchat.tables.query).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docchat.domain.documents import TableShape, quoted
from docchat.tables.linking import words_of
from docchat.text import singular

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
_NUMERIC = ("integer", "real")
# "more than 4 million vehicles": the bound is 4,000,000.
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 1_000_000_000_000}
_COMPARED = (
    (">", r"(?:more|greater|higher|larger|bigger|older|heavier|taller|longer|hotter|warmer|faster|later|wider|deeper|"
          r"richer|costlier|dearer) than|over|above|exceeding"),
    ("<", r"(?:fewer|less|lower|smaller|younger|lighter|shorter|colder|cooler|slower|earlier|cheaper|poorer|"
          r"narrower) than|under|below"),
    (">=", r"at least|no (?:fewer|less) than"),
    ("<=", r"at most|no more than"),
)
# "more than 50 pallets" / "pallets above 50": the column's words follow the number, or come just before.
_RANGE = re.compile(rf"\b({'|'.join(words for _, words in _COMPARED)})\s+[$£€]?{_NUMBER}(?:\s+({'|'.join(_SCALES)}))?\b")
# "50 or more pallets", "40 or older", "65 watts or less": the comparative says what is measured, as
# "older than" does.
_OR_MORE = re.compile(rf"\b{_NUMBER}\s+(?:[a-z]+\s+)?or\s+(more|fewer|less|over|under|above|below|older|younger|higher|lower|"
                      rf"larger|bigger|smaller|taller|shorter|longer|heavier|lighter|faster|slower)\b")
_AT_LEAST = frozenset(("more", "over", "above", "older", "higher", "larger", "bigger", "taller", "longer", "heavier",
                       "faster"))
IN_RANGE_WORDS = {">": "more than", "<": "less than", ">=": "at least", "<=": "at most"}
# What a comparative or a unit measures, as a column may be named: "younger than 10" is of an Age,
# "hotter than 10,000 K" of a temperature (Temp abbreviates it), "under 5 miles" of a distance.
UNIT_WORDS = frozenset(("mile", "km", "kilometre", "kg", "kilogram", "lb", "pound", "foot", "feet", "metre", "k",
                        "degree", "year", "hour", "minute", "second", "day", "week", "month", "percent", "cent"))
_MEASURED_BY = {
    "older": ("age",), "younger": ("age",), "heavier": ("weight", "mass"), "lighter": ("weight", "mass"),
    "taller": ("height",), "higher": ("elevation", "altitude"), "lower": ("elevation", "altitude"), "shorter": ("height", "length"), "longer": ("length", "distance"),
    "hotter": ("temperature",), "warmer": ("temperature",), "colder": ("temperature",), "cooler": ("temperature",),
    "faster": ("speed",), "slower": ("speed",), "cheaper": ("price", "cost", "msrp"), "costlier": ("price", "cost", "msrp"),
    "dearer": ("price", "cost", "msrp"),
    # "the largest state", of no column named: its area
    "larger": ("area", "size"), "bigger": ("area", "size"), "smaller": ("area", "size"),
    "cost": ("price", "msrp"), "costs": ("price", "msrp"),  # "cars that cost more than $200,000"
    "richer": ("income", "wealth"), "poorer": ("income", "wealth"),
    "miles": ("distance", "length"), "km": ("distance", "length"), "kilometres": ("distance", "length"),
    "kg": ("weight", "mass"), "kilograms": ("weight", "mass"), "lbs": ("weight", "mass"), "pounds": ("weight", "mass"),
    "feet": ("height", "elevation", "altitude"), "metres": ("height", "elevation", "altitude"),
    "k": ("temperature",), "degrees": ("temperature",), "years": ("age",),
}
# A word after a column's name that says what it measures, not another column: "a Murder rate".
_WITH_UNIT = re.compile(rf"(?<![\w.]){_NUMBER}[\s-]?(miles|km|kilometres|kilometers|kg|kilograms|lbs|pounds|feet|metres|"
                        r"meters)\b")
_MEASURES = frozenset(("rate", "level", "value", "score", "figure", "total", "amount", "weight", "size", "length",
                       "count", "number"))


def unranged(question: str) -> str:
    """The question, lower-cased, with its ranges taken out: "at least 10 pallets" asks for no
    lowest, nor "at most" for a highest."""
    return _OR_MORE.sub(" ", _RANGE.sub(" ", question.lower()))


def stated_bounds(question: str) -> list[tuple[str, str, list[str], list[str], list[str]]]:
    """(operator, bound, the four words after it, the four before, its own) for each range the
    question states: "more than 50 pallets", "a unit price below 4.5", "50 or more pallets"."""
    lowered = question.lower()
    found = [(next(op for op, cue in _COMPARED if re.fullmatch(cue, match.group(1))), match)
             for match in _RANGE.finditer(lowered)]
    found += [(">=" if match.group(2) in _AT_LEAST else "<=", match) for match in _OR_MORE.finditer(lowered)
              if not any(other.start() <= match.start() < other.end() for _, other in found)]
    # "65 watts or less": the word between the number and "or" is of what it bounds, as the words after it are
    return [(operator, _bound(match), ([word for word in _words(lowered[match.end(1):match.start(2)])[:-1]
                                        if word not in _SCALES] if match.re is _OR_MORE else []) +
             _words(question[match.end():])[:4],
             _words(question[:match.start()])[-4:],
             _words(match.group(2) if match.re is _OR_MORE else match.group(1))) for operator, match in found]


def measured_values(shape: TableShape, question: str) -> list[tuple[str, str]]:
    """(SQL, words) for each number the question names with a unit, no range's bound: "the 10 km
    road record" keeps the rows whose one column the unit measures (Distance) is 10."""
    bounds = {bound for _, bound, *_ in stated_bounds(question)}
    conditions = []
    for match in _WITH_UNIT.finditer(question.lower()):
        number = match.group(1).replace(",", "")
        if number in bounds or (column := _measured(shape, [match.group(2)])) is None:
            continue
        if (condition := (f"{quoted(column)} = {number}", f"{column} is {number}")) not in conditions:
            conditions.append(condition)
    return conditions


def _bound(match: re.Match[str]) -> str:
    """The number a range states, as SQL writes it: "12,500" -> 12500, "4 million" -> 4000000."""
    number = next(group for group in match.groups() if group and group[0].isdigit()).replace(",", "")
    scale = next((_SCALES[word] for word in re.findall(r"[a-z]+", match.group().lower()) if word in _SCALES), 1)
    if scale == 1:
        return number
    scaled = float(number) * scale
    return str(int(scaled)) if scaled.is_integer() else str(scaled)


def ranges_of(shape: TableShape, bounds: list[tuple[str, str, list[str], list[str], list[str]]],
              named: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """(column, operator, bound) for each of the question's ranges that names a numeric column of
    the sheet: by the words right after its bound or right before it, by what its comparative or
    its unit or the verb before it measures ("younger than 10", "under 5 miles", "cost more than
    $200,000"), or else the one numeric column the
    question names (`named`, where it counts rows: "in how many states did Trump get more than 60%")."""
    ranges = []
    for operator, bound, after, before, cue in bounds:
        column = _column_near(shape, after, from_start=True) or _column_near(shape, before) \
            or _measured(shape, (cue + after[:1] if after[1:2] != ["per"] else cue) + before[-1:]) \
            or (named[0] if len(named) == 1 else None) or _ending_in(shape, after[:1])  # "30 miles per gallon" is no distance
        if column is not None and (column, operator, bound) not in ranges:
            ranges.append((column, operator, bound))
    return ranges


def _ending_in(shape: TableShape, words: list[str]) -> str | None:
    """The one numeric column whose name ends in the unit after a bound ("under 25 minutes" of
    run_time_minutes)."""
    units = [singular(word) for word in words if singular(word) in UNIT_WORDS]
    found = [name for name, kind in shape.columns if kind in _NUMERIC and units
             and (parts := _words(name)) and len(parts) > 1 and singular(parts[-1]) == units[0]]
    return found[0] if len(found) == 1 else None


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


# A superlative, and the comparative saying what it measures: "the hottest star" ranks a temperature.
SUPERLATIVES = {"hottest": "hotter", "warmest": "warmer", "coldest": "colder", "coolest": "cooler",
                "tallest": "taller", "shortest": "shorter", "longest": "longer", "oldest": "older",
                "youngest": "younger", "heaviest": "heavier", "lightest": "lighter", "fastest": "faster",
                "slowest": "slower", "cheapest": "cheaper", "richest": "richer", "poorest": "poorer",
                "expensive": "costlier", "largest": "larger", "biggest": "bigger", "smallest": "smaller"}


# "How old was George Donner": the one cell of what the adjective measures (his Age).
ASKED_HOW = {"old": "older", "young": "younger", "tall": "taller", "long": "longer", "heavy": "heavier",
             "fast": "faster", "expensive": "costlier", "hot": "hotter", "cold": "colder", "rich": "richer"}


def compared_measure(shape: TableShape, question: str) -> str | None:
    """The one numeric column a comparative of the question measures ("how much higher is Mt.
    Marcy": its Elevation; "how many times older": its Age), if it names one."""
    found = {name for word in _words(question) if word in _MEASURED_BY and not word.endswith(("s", "km"))
             and (name := _measured(shape, [word])) is not None}
    return found.pop() if len(found) == 1 else None


def asked_how(shape: TableShape, adjective: str) -> str | None:
    """The one numeric column "how old" (tall, long…) asks of, if the sheet has one."""
    return _measured(shape, [ASKED_HOW[adjective]]) if adjective in ASKED_HOW else None


def measured_column(shape: TableShape, words: Sequence[str]) -> str | None:
    """The one numeric column a superlative of the question measures ("the tallest", "the most
    expensive"), if it names one."""
    return _measured(shape, [SUPERLATIVES[word] for word in words if word in SUPERLATIVES])


def _measured(shape: TableShape, words: list[str]) -> str | None:
    """The one numeric column a comparative or a unit measures: its name, or a part of it, is the
    measure's word or abbreviates it (Temp of temperature, dist of distance)."""
    wanted = [measure for word in words for measure in _MEASURED_BY.get(word, ())]
    numeric = [name for name, kind in shape.columns if kind in _NUMERIC]
    whole = [name for name in numeric if name.lower() in wanted]  # Price, of Min.Price, Price and Max.Price
    found = whole or [name for name in numeric if any(
        part == measure or (len(part) >= 3 and measure.startswith(part)) for part in _words(name) for measure in wanted)]
    return found[0] if len(found) == 1 else None


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
    return words_of(text)
