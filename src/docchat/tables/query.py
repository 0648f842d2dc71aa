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
- The filters: every value of a text column that the question holds as a phrase, case aside
  ("Oslo", "cardboard boxes"; docchat.tables.values); two values of one column are either.
- Ranges of a numeric column: "more than 50 pallets", "a unit price below 4.5", "at least 10
  pallets", "50 or more pallets" keep the rows whose value is in range. "How many items have more
  than 50 pallets" counts those rows; "the total of pallets of items with a unit price above 4"
  adds another column over them.
- Per value of a text column: "per location", "by location", "for each location" (the column's
  name, singular or plural, after "per", "by", "each" or "every") give the figure for each of its
  values, in the order the sheet first has them ("how many items per location" counts the rows).
- Which value of a text column has the highest or lowest figure (issue 55): "which warehouse has
  the most pallets" (the column's name right after "which" or "what") ranks the column's values
  by their figure and names the first, with its figure, and any tied with it: "most", "fewest"
  and "least" rank totals ("the most pallets" of a warehouse is all of its pallets), "highest"
  and the like each value's highest row, "average" averages, and a sheet with no column named
  its rows, counted. "Of a single item" asks for the highest row, not the value holding it.
- One cell: a "what", "which" or "who" question naming a numeric column, or else a text column,
  and values or dates that pick out one data row ("What is the unit price of tape in Bergen?",
  "What was the weather on 2013-07-04?") gives that row's value; "who" naming none reads the
  table's column of people ("Who won in 1990?": its Champion), "which country" the column named
  after "which" of several named.
- "When was … highest": the date (or Year) whose row ranks first.
- One figure over or less another: "how many times more pallets in Oslo than in Bergen", "the
  ratio of", "how many more … than", "the difference between" two values of one column.
- Dates: "in 2025", "in March 2025", "after 1 October 2025" keep the rows of the sheet's date
  column in them (docchat.tables.dates).
- No column named and no rows to count, or no figure asked for: no query (passages answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from docchat.domain.documents import TableShape, quoted
from docchat.tables.columns import (
    COUNT_OR_NOT, dated_by, distinct_column, label_column, measures, named_after, named_columns, numbers_rows,
    only_measure, the_rows, unique_columns,
)
from docchat.tables.dates import date_conditions
from docchat.tables.linking import NUMBER_WORDS, SAME_AS, plain, question_phrase, without_column_names, words_of
from docchat.tables.numbers import (COUNT_NAMES, count_column, equal_conditions, is_year, ordinal, people_total,
                                   year_conditions)
from docchat.tables.pairs import MEASURED as _MEASURED, Pair, Side, compared, measured, pair_of, row_comparisons, without_times
from docchat.tables.ranges import (ASKED_HOW, IN_RANGE_WORDS, SUPERLATIVES, asked_how, compared_measure,
                                  measured_column, measured_values, ranges_of, stated_bounds, unranged)
from docchat.tables.rows import names_a_span, placed_conditions, without_spans
from docchat.tables.values import conditions_on_values, flag_columns, linked_values, literal, two_values
from docchat.text import singular

_FIGURES = (("SUM", ("total", "sum", "altogether", "combined")), ("AVG", ("average", "mean")),
            ("MAX", ("highest", "largest", "biggest", "most", "maximum", "top", "hottest", "warmest", "tallest",
                     "longest", "oldest", "heaviest", "fastest", "richest")),
            ("MIN", ("lowest", "smallest", "least", "fewest", "minimum", "bottom", "coldest", "coolest", "shortest",
                     "youngest", "lightest", "slowest", "cheapest", "poorest")))
_IN_WORDS = {"SUM": "total", "AVG": "average", "MAX": "highest", "MIN": "lowest", "COUNT": "number of rows",
             "DISTINCT": "number of different"}
_NUMERIC = ("integer", "real")
_HOW_MANY = re.compile(r"\bhow (?:many|much)\b")
_PER = ("per", "by", "each", "every")
_WHICH = ("which", "what")
_PICKS = re.compile(r"\s*(?:(?:on |in |at |for |from |by )?which\s+(?!is\b|was\b|are\b|were\b|of\b)"
                    r"(?P<noun>[^\W\d_]+)|who)\b", re.IGNORECASE)
_COUNTS_WRITTEN = tuple(word for word, number in NUMBER_WORDS.items() if number > 1)
# "the 3 most cited journals", "the five biggest companies": a number of the rows' labels, ranked.
_TOP_ROWS = re.compile(r"\b(?:top\s+)?(?P<n>\d{1,2}|" + "|".join(_COUNTS_WRITTEN) + r")\s+(?:most|least|highest|lowest|"
                       r"[a-z]{2,}est)\b", re.IGNORECASE)
_LOOKS_UP = re.compile(r"\s*(?:what|which|who|where|how\s+(?P<how>" + "|".join(ASKED_HOW) + r"))\b", re.IGNORECASE)
_SINGLE = ("single", "one", "individual")
# "how much more carbon": an amount, never rows counted; "the largest number of items": rows counted.
_MUCH = re.compile(r"\b(?:how|as|so)\s+much\b", re.IGNORECASE)
_NUMBER_OF = re.compile(r"\b(?:number|count)\s+of\b", re.IGNORECASE)
_WHEN = re.compile(r"\s*when\b", re.IGNORECASE)
_TOTALLED = ("most", "fewest", "least", "total", "altogether", "combined", "top", "bottom")
# The values a top list names at most ("the top 20 items"); a number past it is no count of values.
MOST_RANKED = 20
_COUNTS = {word: number for word, number in NUMBER_WORDS.items() if number > 1}
_AVERAGED = ("average", "mean")


@dataclass(frozen=True)
class TableQuery:
    shape: TableShape
    sql: str
    # What it computes, in words: "the total of Pallets where Location is Oslo".
    what: str
    by: str | None = None  # the column whose values it is computed per (a row each)
    # "highest" or "lowest": the values of `by` ranked by their figure, best first (TableQuery.by
    # names them); "": a figure, or one per value in the sheet's order.
    ranked: str = ""
    counts_rows: bool = False  # it counts rows, naming no column
    unit: str = ""  # the currency or unit of the figure: its column's, for a total, an average, a highest…


def table_query(question: str, shapes: Sequence[TableShape],
                values: Callable[[TableShape, str], Sequence[str]],
                titles: Mapping[str, str] | None = None) -> TableQuery | None:
    """The query for the figure `question` asks of one of the sheets, or None. `values(shape,
    column)`: the distinct values of a text column's data rows; `titles`: each sheet's document's
    name, by its table ("nba-players.html": its rows are players)."""
    # "how many times more" names no column Time, nor "the first 10 years" a column Year
    words = _words(without_spans(without_times(question)))
    text = question_phrase(question)  # values are matched singular or plural, "women" as "female"
    # "at least 10 pallets" asks for no lowest, nor "at most" for a highest: a range's words are no
    # cue, nor are a column's ("the average sleep_total" asks no total).
    cues = _adjectival(without_column_names(_words(unranged(question)), shapes))
    figure = _figure(cues, " ".join(cues))
    if (figure is None and not looks_up(question)) or names_a_span(question, shapes):
        return None
    counting = not any(cue in cues for _, listed in _FIGURES for cue in listed)  # "how many" alone
    bounds = stated_bounds(question)
    # Counting, a bound no column stands beside is of the one measure the question names, or the
    # table's only one ("in how many years did Korea make more than 4 million vehicles": value).
    ranges = {shape.table: ranges_of(shape, bounds, (measures(shape, words) or only_measure(shape)) if counting
                                     else ()) for shape in shapes}
    found = []
    for shape in shapes:
        after_many = named_after(shape, words, lambda word: True if word == "many" else None)  # "how many Congresses"
        equal = [sql for sql, _ in equal_conditions(shape, question) + year_conditions(shape, question)]
        limited = {column for column, *_ in ranges[shape.table]} | {
            column for column, _ in shape.columns if any(sql.startswith((f"{quoted(column)} = ", f"{quoted(column)} BETWEEN ",
                                                                         f"{quoted(column)} IN ")) for sql in equal)} | {
            column for *_, columns in row_comparisons(question, measures(shape, words)) for column in columns} | \
            flag_columns(shape, question, values)
        # Counting, a column numbering the rows is no measure; adding or ranking, a Year is none either:
        # "the most carbon in a single year" is no highest Year (a lookup reads it: "in what year"), where
        # "the average lead time in days" is of Days.
        named = [column for column in named_columns(shape, set(words))
                 if not ((counting and ordinal(column, dict(shape.columns)[column]))
                         or (figure is not None and _a_year(column, dict(shape.columns)[column])))
                 and not (after_many and column == after_many[0] and numbers_rows(shape, column, values))]
        # A column named for its range is what is counted or kept, not what is added up.
        found += [(shape, column) for column in [c for c in named if c not in limited] or
                  ([] if counting else named)]
    if figure is None:
        return _looked_up(question, text, shapes, found, values, ranges)
    column: str | None
    # "the highest average", "the most in total": a value's rank, whatever figure ranks it.
    extreme = next((name for name, listed in _FIGURES if name in ("MAX", "MIN") and any(c in cues for c in listed)),
                   None)
    ranked = _ranked_column(shapes, words) if extreme is not None else None
    said = ""
    picked = _PICKS.match(question)
    if ranked is None and extreme is not None and picked and len(shapes) == 1 and (
            label := label_column(shapes[0], values, who=picked.group("noun") is None)) is not None:
        ranked = (shapes[0], label, 1)  # "which hurricane caused the most deaths": its Name, no column Hurricane
        said = picked.group("noun") or ""
    when = _WHEN.match(question) is not None
    if ranked is None and extreme is not None and when and len(shapes) == 1:
        dated = [name for name, kind in shapes[0].columns if kind == "date"] or [
            name for name, kind in shapes[0].columns if is_year(name, kind)]
        if len(dated) != 1:
            return None  # "when was it highest", of no one column of dates: not the highest figure alone
        ranked = (shapes[0], dated[0], 1)  # "when was dissatisfaction at its highest": the date ranked first
    if ranked is None and extreme is not None and picked and picked.group("noun") and len(shapes) == 1 and (
            dates := dated_by(shapes[0], picked.group("noun"), values)) is not None:
        ranked = (shapes[0], dates, 1)  # "which month had the most deaths", of a row a month: its date
        said = picked.group("noun")
    top = _TOP_ROWS.search(question)
    if ranked is None and extreme is not None and top and len(shapes) == 1 and (
            label := label_column(shapes[0], values)) is not None:
        first = NUMBER_WORDS.get(top.group("n").lower()) or int(top.group("n"))
        ranked = (shapes[0], label, first) if 2 <= first <= MOST_RANKED else None  # "the 3 most cited journals": titles
    if ranked is None and extreme is not None and picked and not any(word in _SINGLE for word in words):
        return None  # "on which day were the most babies born", no column of days: not the most births
    distinct = distinct_column(shapes, words, values) if counting else None
    if distinct is not None:
        shape, column, figure = distinct[0], distinct[1], "DISTINCT"  # "how many different items"
    elif found:
        # Not the column the figure is per or ranks ("the average qsec per cyl": qsec, not cyl).
        grouping = [(shape, column) for shape, column in found
                    if column == _per(shape, words) or (ranked is not None and column == ranked[1])]
        shape, column = max([pair for pair in found if pair not in grouping] or found,
                            key=lambda pair: len(_words(pair[1])))
    elif extreme is not None and (measure := next(((shape, name) for shape in shapes
                                                   if (name := measured_column(shape, cues)) is not None), None)):
        shape, column = measure  # "the tallest character": its Height; "the most expensive model": its Price
    elif extreme is not None and len(shapes) == 1 and (total := people_total(shapes[0], words)) is not None:
        shape, column = shapes[0], total  # "the largest number of people in any one boat": its Total
    elif counting and (counted := _counted(shapes, words, ranges, values)) is not None:
        # "how many suppliers": the rows, counted; "how many insects", of a table with a Count: it, added up.
        # "how many states are in the West", of a table with a total of murders a state: its rows.
        column = count_column(counted) or people_total(counted, words)
        if column is not None and (column.lower() not in COUNT_NAMES and named_after(
                counted, words, lambda word: True if word == "many" else None)
                or (column.lower() in COUNT_OR_NOT and the_rows(question, (titles or {}).get(counted.table, "")))):
            column = None  # "how many players", of nba-players.html: its rows, not its column Number added up
        shape, figure = counted, "COUNT" if column is None else "SUM"
    elif ranked is not None and (any(cue in ("most", "fewest", "least") for cue in cues) or _NUMBER_OF.search(question)):
        # "which location has the most items": its rows, counted (not "the oldest"), or the table's
        # count, added up ("which class had the most passengers", of class and Freq). Not a measure
        # named generically (country, year and value): a World row a year is no total docchat can tell.
        shape, column = ranked[0], None
        if any(cue in ("most", "fewest", "least") for cue in cues) and (
                counts := count_column(shape)) is not None and counts.lower() in COUNT_NAMES:
            column = counts
    else:
        return None
    by = ranked[1] if ranked is not None and ranked[0] is shape else _per(shape, words)
    each = _each_of_two(shape, question, text, values) if by is None and not compared(question) else None
    if each is not None:
        by = each[0]  # "the average mortality in the North and in the South": a figure for each
    if compared(question) and by is not None and dict(shape.columns)[by] in _NUMERIC and not found:
        column, figure, by = by, "SUM" if figure == "COUNT" else figure, None  # "larger … by area": what is set against
    elif compared(question) and column is None and _MEASURED.search(question.lower()):
        # "how many times bigger is Borneo than Britain": a measure, not rows counted: what the comparative
        # measures ("higher" of a peak: its Elevation), else the table's only one
        only = [higher] if (higher := compared_measure(shape, question)) else only_measure(shape)
        if not only:
            return None  # "how many times longer", of a race's distance, climb and time: not its rows counted
        column, figure = only[0], "SUM"
    conditions = ([(f"{quoted(each[0])} IN ({literal(each[1])}, {literal(each[2])})",
                    f"{each[0]} is {each[1]} or {each[2]}")] if each else []) + _kept_rows(
        shape, question, text, values, ranges, besides=by,
                            counted=column if figure == "DISTINCT" else None)
    if ranked is not None and ranked[0] is shape:
        if column == ranked[1]:
            return None  # "in which year was unemployment highest", no column of it: the years by themselves
        return _ranked(shape, ranked[1], column, extreme or figure, cues, conditions, first=ranked[2], said=said)
    if figure != "DISTINCT" and compared(question) and (by is None or by == column) and (
            pair := pair_of(shape, question, text, values, named_columns(shape, set(words)))) is not None:
        if column is None and (_MUCH.search(question) or pair.first.condition.split(" = ")[0] in {
                quoted(name) for name in unique_columns(shape, values)}):
            return None  # "how much more did Endgame make than Infinity War", "how much more carbon": not rows counted
        if pair.spans:  # "in 1961 than in 1951" names the two sides, not rows both must be in
            conditions = _kept_rows(shape, _blanked(question, pair.spans), text, values, ranges)
        return _two_figures(shape, column, figure, pair, conditions)
    if column is None and figure == "COUNT" and any(sql.startswith(f"{quoted(label)} = ") for label in
                                                    unique_columns(shape, values) for sql, _ in conditions):
        return None  # "how many gun murders in Texas", a row a state: its measure, not its one row counted
    where = " AND ".join(["_kind = 'row'", *(sql for sql, _ in conditions)])
    measured = "COUNT(*)" if column is None else f"COUNT(DISTINCT {quoted(column)})" if figure == "DISTINCT" \
        else f"{figure}({quoted(column)})"
    counts = f"{measured} AS value, COUNT(*) AS rows_read, GROUP_CONCAT(_row) AS rows_used"
    if by is None:
        sql = f"SELECT {counts} FROM {shape.table} WHERE {where}"
    else:
        sql = (f"SELECT {quoted(by)} AS per, {counts} FROM {shape.table} WHERE {where} "
               f"GROUP BY {quoted(by)} ORDER BY MIN(_row)")
    what = f"the {_IN_WORDS[figure]}" + (f" of {column}" if column and figure != "DISTINCT" else f" {column}"
                                         if column else "") + (f" per {by}" if by else "")
    if conditions:
        what += " where " + " and ".join(words_ for _, words_ in conditions)
    return TableQuery(shape, sql, what, by, unit=shape.unit(column) if figure in ("SUM", "AVG", "MAX", "MIN") else "")


def _ranked(shape: TableShape, by: str, column: str | None, figure: str, cues: list[str],
            conditions: list[tuple[str, str]], first: int = 1, said: str = "") -> TableQuery:
    """The query ranking the values of `by` by their figure: their total for "most", "fewest" or
    "top", their average for "average", else each one's highest (lowest) row; their rows, counted,
    with no column named. `first`: how many are asked ("the top 3 items"); past one, they are a
    figure per value, in their rank's order."""
    order, best = ("DESC", "highest") if figure == "MAX" else ("ASC", "lowest")
    if column is None:
        measured, named = "COUNT(*)", f"the {'most' if figure == 'MAX' else 'fewest'} rows"
    elif any(cue in cues for cue in _AVERAGED):
        measured, named = f"AVG({quoted(column)})", f"the {best} average of {column}"
    elif any(cue in cues for cue in _TOTALLED):
        measured, named = f"SUM({quoted(column)})", f"the {best} total of {column}"
    else:
        measured, named = f"{figure}({quoted(column)})", f"the {best} {column}"
    where = " AND ".join(["_kind = 'row'", *(sql for sql, _ in conditions)])
    sql = (f"SELECT {quoted(by)} AS per, {measured} AS value, COUNT(*) AS rows_read, GROUP_CONCAT(_row) AS rows_used "
           f"FROM {shape.table} WHERE {where} GROUP BY {quoted(by)} HAVING value IS NOT NULL "
           f"ORDER BY value {order}, MIN(_row)" + (f" LIMIT {first}" if first > 1 else ""))
    where_words = " where " + " and ".join(words_ for _, words_ in conditions) if conditions else ""
    if first > 1:
        # "the total of Pallets per Item, the 3 highest": a figure per value, its rows in rank order.
        per = named.removeprefix(f"the {best} ").removeprefix("the ")
        what = f"the {per if column else 'number of rows'} per {by}{where_words}, the {first} {best}"
        return TableQuery(shape, sql, what, by, unit=shape.unit(column))
    label = f"{said} ({by})" if said else by  # "the hurricane (Name) with the highest total of deaths"
    return TableQuery(shape, sql, f"the {label} with {named}{where_words}", by, ranked=best, counts_rows=column is None,
                      unit=shape.unit(column))


def _a_year(name: str, kind: str) -> bool:
    return is_year(name, kind) or (kind == "integer" and name.lower() == "yr")


def looks_up(question: str) -> bool:
    """Whether the question may ask for one cell ("What is the unit price of tape in Bergen?"); "how
    much" asks for a total."""
    return _LOOKS_UP.match(question) is not None


def _looked_up(question: str, text: str, shapes: Sequence[TableShape], found: list[tuple[TableShape, str]],
               values: Callable[[TableShape, str], Sequence[str]],
               ranges: dict[str, list[tuple[str, str, str]]]) -> TableQuery | None:
    """The query of one cell: the numeric column the question names, else its text column ("What
    was the weather on 2013-07-04?"), in the one data row its values and dates pick out ("the Unit
    price where Location is Bergen and Item is Tape"); no row is given unless exactly one row is
    picked."""
    words = set(_words(question))
    how = _LOOKS_UP.match(question)
    adjective = how.group("how").lower() if how and how.group("how") else ""
    named = found or [(shape, name) for shape in shapes if (name := asked_how(shape, adjective)) is not None] or [
        (shape, name) for shape in shapes for name in named_columns(shape, words, kinds=("text",))]
    if not named and how and how.group().strip().lower() == "who" and len(shapes) == 1 and (
            people := label_column(shapes[0], values, who=True)) is not None:
        named = [(shapes[0], people)]  # "who won in 1990": the row's Champion, no column Who
    if not named:
        return None
    picked = _PICKS.match(question)
    # "which country was the 2019 women's open champion from": Country, not Champion
    picked_named = [pair for pair in named if picked and picked.group("noun")
                    and singular(picked.group("noun").lower()) in {singular(word) for word in _words(pair[1])}]
    shape, column = max(picked_named or named, key=lambda pair: len(_words(pair[1])))
    conditions = _kept_rows(shape, question, text, values, ranges, besides=column)
    if not conditions:
        return None
    where = " AND ".join(["_kind = 'row'", *(sql for sql, _ in conditions)])
    sql = (f"SELECT MAX({quoted(column)}) AS value, COUNT(*) AS rows_read, GROUP_CONCAT(_row) AS rows_used "
           f"FROM {shape.table} WHERE {where} HAVING COUNT(*) = 1")
    return TableQuery(shape, sql, f"the {column} where " + " and ".join(words_ for _, words_ in conditions),
                      unit=shape.unit(column))


def _two_figures(shape: TableShape, column: str | None, figure: str, pair: Pair,
                 conditions: list[tuple[str, str]]) -> TableQuery:
    """The query of one side's figure less the other's ("how many more pallets does Oslo hold than
    Bergen": the total of Oslo's less the total of Bergen's), or over it ("how many times more"),
    in the order docchat.tables.pairs gives them."""
    where = " AND ".join(["_kind = 'row'", *(sql for sql, _ in conditions)])
    sql = f"SELECT {measured(pair, figure, column)} AS value, COUNT(*) AS rows_read, GROUP_CONCAT(_row) AS rows_used " \
          f"FROM {shape.table} WHERE {where}"
    function = "SUM" if figure == "COUNT" and (column or pair.first.column) else figure
    base, one, other = (f"the {_IN_WORDS[function]}" + (f" of {column}" if column else ""),
                        *(_side_words(side, function) for side in (pair.first, pair.second)))
    # The sides' own values are said with each side ("where Location is Oslo"), not among the others.
    own = f"{pair.first.condition.split(' = ')[0]} IN (" if pair.first.condition else None
    others = [words_ for sql_, words_ in conditions if not (own and sql_.startswith(own))]
    among = f", where {' and '.join(others)}," if others else ""
    if pair.first.column:  # two columns: "the total of disease less the total of wounds"
        if pair.ratio:
            return TableQuery(shape, sql, f"the ratio{among} of {one} to {other}")
        return TableQuery(shape, sql, f"the difference{among} between {one} and {other}",
                          unit=shape.unit(pair.first.column) if shape.unit(pair.first.column) == shape.unit(
                              pair.second.column or "") else "")
    if pair.ratio:
        return TableQuery(shape, sql, f"the ratio{among} of {base} where {one} to that where {other}")
    return TableQuery(shape, sql, f"the difference{among} between {base} where {one} and that where {other}",
                      unit=shape.unit(column) if column and function != "COUNT" else "")


def _side_words(side: Side, function: str) -> str:
    return f"the {_IN_WORDS[function]} of {side.column}" if side.column else side.words


def _blanked(question: str, spans: Sequence[tuple[int, int]]) -> str:
    for start, end in spans:
        question = question[:start] + " " * (end - start) + question[end:]
    return question


def _ranked_column(shapes: Sequence[TableShape], words: list[str]) -> tuple[TableShape, str, int] | None:
    """The sheet and text column whose values the question ranks, and how many it asks for: the
    column named, singular or plural, right after "which" or "what" ("which warehouse": one), or
    after a number ("the top 3 items", "the five locations with the most…"), unless it asks for a
    single row ("of a single item", "in one order")."""
    if any(word in _SINGLE for word in words):
        return None
    for shape in shapes:
        if (found := named_after(shape, words, _first_asked)) is not None:
            return shape, *found
    return None


def _first_asked(word: str) -> int | None:
    """How many values a word before a column's name asks for: one after "which", else a number."""
    return 1 if word in _WHICH else _COUNTS.get(word) or _counted_number(word)


def _counted_number(word: str) -> int | None:
    """A number of values asked for, written in digits: 2 to MOST_RANKED."""
    return int(word) if word.isdigit() and 2 <= int(word) <= MOST_RANKED else None


def asks_a_figure(question: str) -> bool:
    """Whether the question asks for a figure at all (no sheet need be read to tell)."""
    words = _words(unranged(question))
    return _figure(words, " ".join(words)) is not None


def _figure(words: list[str], text: str) -> str | None:
    for figure, cues in _FIGURES:
        if any(cue in words for cue in cues):
            return figure
    return "SUM" if _HOW_MANY.search(text) or "difference" in words or "ratio" in words else None


def _counted(shapes: Sequence[TableShape], words: list[str], ranges: dict[str, list[tuple[str, str, str]]],
             values: Callable[[TableShape, str], Sequence[str]]) -> TableShape | None:
    """The sheet whose rows "how many" counts: the only one, or the only one with a column the
    question counts per or names a range of (`ranges`: each sheet's, by its table), or else the
    only one named by what is counted ("how many races") or holding a value the question names
    ("how many did Berg win": Berg, a Winner)."""
    if len(shapes) == 1:
        return shapes[0]
    named = [shape for shape in shapes if _per(shape, words) is not None or ranges[shape.table]]
    if not named:
        present = {singular(word) for word in words}
        padded = f" {' '.join(plain(word) for word in words)} "
        named = [shape for shape in shapes if {singular(word) for word in _words(shape.sheet)} & present
                 or linked_values(shape, padded, values)]
    return named[0] if len(named) == 1 else None


def _per(shape: TableShape, words: list[str]) -> str | None:
    """The text column the question asks the figure per: its name, singular or plural, right
    after "per", "by", "each" or "every" (a "the" between them aside, or "number of": "by number
    of bedrooms" of a column bed)."""
    words = [word for at, word in enumerate(words) if not (
        (word == "number" and 0 < at < len(words) - 1 and words[at + 1] == "of" and words[at - 1] in (*_PER, "the"))
        or (word == "of" and at >= 2 and words[at - 1] == "number" and words[at - 2] in (*_PER, "the")))]
    found = named_after(shape, words, lambda word: True if word in _PER else None)
    return found[0] if found else None


def _kept_rows(shape: TableShape, question: str, text: str, values: Callable[[TableShape, str], Sequence[str]],
               ranges: dict[str, list[tuple[str, str, str]]], *, besides: str | None = None,
               counted: str | None = None) -> list[tuple[str, str]]:
    """(SQL, words) of every condition on the rows the question keeps: the values it names (or
    leaves out), the ranges it states, the dates it names, the first or last rows it names, the
    numbers it names beside a numeric column ("8 cyl")."""
    return conditions_on_values(shape, text, values, besides=besides, counted=counted) + [
        (f"{quoted(name)} {operator} {bound}", f"{name} is {IN_RANGE_WORDS[operator]} {bound}")
        for name, operator, bound in ranges[shape.table]] + date_conditions(shape, question) + \
        placed_conditions(shape, question) + equal_conditions(shape, question) + year_conditions(shape, question) + \
        measured_values(shape, question) + [
            (sql, words) for sql, words, _ in row_comparisons(question, measures(shape, _words(question)))]


def _each_of_two(shape: TableShape, question: str, text: str,
                 values: Callable[[TableShape, str], Sequence[str]]) -> tuple[str, str, str] | None:
    """The text column two of whose values the question names each after its own preposition ("in
    the North and in the South"), asking a figure for each, not for both together."""
    pair = two_values(shape, text, values)
    if pair is None:
        return None
    name, first, second = pair
    # each value as written, or by a word for it ("of the men and of the women": male, female)
    one, other = ("|".join(re.escape(said) for said in (value.lower(), *(word for word, same in SAME_AS.items()
                                                                          if same == value.lower())))
                  for value in (first, second))
    one, other = f"(?:{one})", f"(?:{other})"
    each = re.search(rf"\b(in|for|of|at|from)\s+(?:the\s+)?{one}\s+and\s+\1\s+(?:the\s+)?{other}\b", question.lower())
    return pair if each else None


def _adjectival(cues: list[str]) -> list[str]:
    """"most expensive" as the highest of what "expensive" measures, not a total ("the most pallets")."""
    for at, cue in enumerate(cues[:-1]):
        if cue in ("most", "least") and cues[at + 1] in SUPERLATIVES:
            cues = [*cues[:at], "highest" if cue == "most" else "lowest", *cues[at + 1:]]
    return cues


def _words(text: str) -> list[str]:
    return words_of(text)
