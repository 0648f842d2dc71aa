"""Two figures a question sets against each other (issue 55): their difference ("how many more
… than", "how much higher … than", "by how much did the GNP grow from 1947 to 1962") or their
ratio ("how many times more", "how many times as many", "the ratio of … to …").

The two sides, in the order the question names them:

- two values of one text column: "Oslo than Bergen", "men than women";
- two numeric columns: "died of disease than of wounds", "Bush than Gore", "the Rural Male rate
  than the Rural Female rate", "in 1955 than in 1950" where each year heads a column;
- two years, or months of a year, of the table's Year column or its one date column: "Asia in 1961
  than in 1951", "from January 2000 to January 2010".

Growth ("grew", "rose", "increased" from one to the other) is the second less the first, a fall
("fell", "dropped") the first less the second; otherwise the first less (or over) the second.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from docchat.domain.documents import TableShape, quoted
from docchat.tables.dates import MONTHS
from docchat.tables.linking import word_spans, words_of
from docchat.tables.numbers import is_year
from docchat.tables.values import literal, two_values
from docchat.text import singular

# One figure less another: "how many more … than", "how much higher … than", "the difference".
_COMPARATIVES = ("more", "fewer", "less", "higher", "lower", "larger", "bigger", "greater", "smaller", "longer",
                 "shorter", "heavier", "lighter", "taller", "older", "younger", "faster", "slower", "warmer",
                 "colder", "wetter", "drier", "richer", "poorer")
# A comparison of a measure, not of rows counted: "how many times bigger", "how much longer".
MEASURED = re.compile(rf"\b(?:{'|'.join(_COMPARATIVES[3:])})\b")
_DIFFERENCE = re.compile(rf"\bhow (?:many|much) (?:\w+ )?(?:{'|'.join(_COMPARATIVES)})\b.*\bthan\b|\bdifference\b")
# One figure over another: "how many times more … than", "how many times as many", "the ratio of".
_RATIO = re.compile(r"\bhow many times\b|\bratio\b|\btimes (?:more|as (?:many|much))\b")
_RISES = ("grow", "grew", "grown", "increase", "increased", "rise", "rose", "risen", "climb", "climbed", "change",
          "changed")
_FALLS = ("fall", "fell", "fallen", "drop", "dropped", "decline", "declined", "decrease", "decreased", "shrink",
          "shrank")
_MOVED = re.compile(rf"\b(?P<verb>{'|'.join(_RISES + _FALLS)})\b.*\bfrom\b")
# Between two columns, the words that keep the rows where the first is more (or less) than the second.
_ROW_COMPARED = re.compile(r" (?:ahead of|(?:got|get|had|have|has|won|received|scored) more (?:\w+ )?than|more \w+ than|"
                           r"beat|beats|exceeded|exceeds|higher than|greater than|over|above|outpolled|"
                           r"(?P<less>behind|less (?:\w+ )?than|fewer (?:\w+ )?than|lower than|below|under)) ")
_MONTH_YEAR = re.compile(rf"\b(?:(?P<month>{'|'.join(MONTHS)})\s+)?(?P<year>(?:1[6-9]|20)\d{{2}})\b(?![-/])")


@dataclass(frozen=True)
class Side:
    condition: str  # SQL keeping this side's rows; "" for every row the query keeps
    column: str | None  # the column this side's figure is of; None: the query's
    words: str  # "Location is Oslo", "disease", "Year is 1961"


@dataclass(frozen=True)
class Pair:
    first: Side
    second: Side
    ratio: bool
    spans: tuple[tuple[int, int], ...] = ()  # where the question names the sides (not rows to keep as well)


_TIMES = re.compile(r"\b(?:how many|\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten) times\b",
                    re.IGNORECASE)


def without_times(question: str) -> str:
    """The question without the "times" of a ratio ("how many times more", "3 times as many"), which
    names no column Time."""
    return _TIMES.sub(lambda match: match.group().rsplit(" ", 1)[0], question)


def compared(question: str) -> str:
    """"ratio", "difference", or "" when the question sets no two figures against each other."""
    lowered = question.lower()
    if _RATIO.search(lowered):
        return "ratio"
    return "difference" if _DIFFERENCE.search(lowered) or _MOVED.search(lowered) else ""


def pair_of(shape: TableShape, question: str, text: str, values: Callable[[TableShape, str], Sequence[str]],
            named: Sequence[str]) -> Pair | None:
    """The two sides the question sets against each other in this sheet, in the order its figure
    takes them; `named`: the sheet's numeric columns the question names."""
    how = compared(question)
    if not how:
        return None
    ratio = how == "ratio"
    if (values_pair := two_values(shape, text, values)) is not None:
        column, one, other = values_pair
        first, second = (Side(f"{quoted(column)} = {literal(value)}", None, f"{column} is {value}")
                         for value in (one, other))
        return Pair(first, second, ratio)
    moved = _MOVED.search(question.lower())
    falls = moved is not None and moved.group("verb") in _FALLS
    if len(placed := _placed_columns(question, named)) == 2:
        first, second = (Side("", column, column) for column in placed)
        return Pair(first, second, ratio) if falls or moved is None else Pair(second, first, ratio)
    if (dated := _dated(shape, question)) is not None:
        first, second, spans = dated
        return Pair(first, second, ratio, spans) if falls or moved is None else Pair(second, first, ratio, spans)
    return None


def row_comparisons(question: str, named: Sequence[str]) -> list[tuple[str, str, tuple[str, str]]]:
    """(SQL, words, the two columns) where the question keeps the rows in which one numeric column
    is more than another: "polls in which Leave was ahead of Remain", "counties where Gore got more
    votes than Bush"; not where it asks one figure less the other ("how many more votes did Bush
    get than Gore")."""
    if compared(question):
        return []
    placed = _placed_columns(question, named, spans=True, exactly=0)
    found = []
    for (first, (_, end)), (second, (start, _)) in zip(placed, placed[1:]):
        between = question[end:start]
        match = _ROW_COMPARED.search(f" {' '.join(words_of(between))} ")
        if match is not None and not re.search(r"\d", between):  # "had more than 1,000 plague deaths" is a range
            operator, said = ("<", "less than") if match.group("less") else (">", "more than")
            found.append((f"{quoted(first)} {operator} {quoted(second)}", f"{first} is {said} {second}", (first, second)))
    return found


def measured(pair: Pair, figure: str, column: str | None) -> str:
    """The SQL of the one figure less, or over, the other."""
    one, other = (_side_figure(side, figure, column) for side in (pair.first, pair.second))
    return f"CAST({one} AS REAL) / NULLIF({other}, 0)" if pair.ratio else f"{one} - {other}"


def _side_figure(side: Side, figure: str, column: str | None) -> str:
    of = side.column or column
    if of is None:  # rows counted
        return f"SUM({side.condition})" if side.condition else "COUNT(*)"
    function = "SUM" if figure in ("COUNT", "DISTINCT") else figure
    if side.condition:
        return f"{function}(CASE WHEN {side.condition} THEN {quoted(of)} END)"
    return f"{function}({quoted(of)})"


def _placed_columns(question: str, named: Sequence[str], *, spans: bool = False, exactly: int = 2) -> list[Any]:
    """The numeric columns the question names, in its order, where it names `exactly` that many
    (0: any number) and no name is inside the other's ("Rural Male", "Rural Female"); with `spans`,
    each with where the question names it."""
    # Where each word stands in the question itself: the text between two columns is read from it.
    tokens = [(singular(word), span) for word, span in word_spans(question)]
    words = [word for word, _ in tokens]
    placed = []
    for name in named:
        column = [singular(word) for word in words_of(name)]
        at = next((i for i in range(len(words) - len(column) + 1) if words[i:i + len(column)] == column), None)
        if at is not None:
            placed.append((at, name, (tokens[at][1][0], tokens[at + len(column) - 1][1][1])))
    if exactly and len(placed) != exactly:
        return []
    return [(name, span) if spans else name for _, name, span in sorted(placed)]


def _dated(shape: TableShape, question: str) -> tuple[Side, Side, tuple[tuple[int, int], ...]] | None:
    """Two years, or months of years, of the table's Year column of whole numbers or its one date
    column; a year heading a column names that column, not a year."""
    headed = {name.casefold() for name, _ in shape.columns}
    found = [match for match in _MONTH_YEAR.finditer(question) if match.group("year") not in headed]
    if len(found) != 2:
        return None
    dates = [name for name, kind in shape.columns if kind == "date"]
    years = [name for name, kind in shape.columns if is_year(name, kind)]
    sides = []
    for match in found:
        year, month = match.group("year"), match.group("month")
        if len(dates) == 1:
            column = quoted(dates[0])
            if month:
                at = f"{year}-{MONTHS.index(month) + 1:02d}"
                sides.append(Side(f"substr({column}, 1, 7) = '{at}'", None, f"{dates[0]} is in {month} {year}"))
            else:
                sides.append(Side(f"substr({column}, 1, 4) = '{year}'", None, f"{dates[0]} is in {year}"))
        elif len(years) == 1 and not month:
            sides.append(Side(f"{quoted(years[0])} = {year}", None, f"{years[0]} is {year}"))
        else:
            return None
    return sides[0], sides[1], tuple(match.span() for match in found)
