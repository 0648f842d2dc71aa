"""The columns a question names over a table (issue 55): by their words, singular or plural
(`named_columns`), right after a word that marks them ("per location", "which warehouse":
`named_after`), the ones measuring its rows (`measures`), the column naming its rows
(`label_column`: "which hurricane" is its Name), and the text column whose different values it
counts (`distinct_column`: "how many different items", "how many countries", "how many
hospices" of a column of their names, each in many rows), the date column "which month" ranks
(`dated_by`), and whether the document's name says what "how many" counts (`the_rows`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from docchat.domain.documents import TableShape
from docchat.tables.linking import words_of
from docchat.tables.numbers import COUNT_NAMES, count_column, ordinal
from docchat.tables.values import VALUES_READ, YES_NO
from docchat.text import singular

T = TypeVar("T")
NUMERIC = ("integer", "real")
_DIFFERENT = ("different", "distinct", "unique", "separate")
# Who a table names: its column of people, where it has one.
_PEOPLE = ("name", "person", "who", "winner", "champion", "player", "author", "artist", "actor", "driver", "president",
           "candidate", "athlete", "runner", "contestant", "member", "competitor", "passenger", "employee", "student")


def _kind_of(shape: TableShape, words: list[str], values: Callable[[TableShape, str], Sequence[str]]) -> str | None:
    """The text column whose values are what "how many" counts, where no column is named so: most
    of them say it ("how many hospices" of BAPTIST HOSPICE, SAAD HOSPICE SERVICES…), each in three
    rows or more (a row a hospice and measure: its rows counted would be no hospices)."""
    noun = next((singular(words[at + 1]) for at, word in enumerate(words[:-1]) if word == "many"), None)
    if noun is None or len(noun) < 4:
        return None
    for name, kind in shape.columns:
        held = values(shape, name) if kind == "text" else ()
        if held and len(held) < VALUES_READ and 3 * len(held) <= shape.rows and 2 * sum(
                noun in {singular(word.lower()) for word in words_of(value)} for value in held) > len(held):
            return name
    return None


# Names of a column that may count (Titanic's n a class and sex) or not (a jersey's number, a
# poll's sample size n); a Freq or a Count always counts.
COUNT_OR_NOT = frozenset(("n", "number"))
_COUNTED_NOUN = re.compile(r"\bhow\s+many\s+(?:of\s+(?:the\s+|these\s+|those\s+)?)?([^\W\d_]+)", re.IGNORECASE)


def dated_by(shape: TableShape, noun: str, values: Callable[[TableShape, str], Sequence[str]]) -> str | None:
    """The one date column "which month" (day, date) ranks, where no column is so named (day_of_week
    is not): for a month, one whose every date is a month's first, each month once (a row a month)."""
    unit = singular(noun.lower())
    dated = [name for name, kind in shape.columns if kind == "date"]
    if unit not in ("month", "day", "date") or len(dated) != 1 or any(
            [singular(word) for word in words_of(name)] == [unit] for name, _ in shape.columns):
        return None  # a column Month of its own is what "which month" names
    if unit == "month":
        held = values(shape, dated[0])
        if not held or any(value[8:10] != "01" for value in held) or len({value[:7] for value in held}) != len(held):
            return None
    return dated[0]


def the_rows(question: str, title: str) -> bool:
    """Whether what "how many" counts is what the document's name says its rows are, by its last
    word ("how many of the polls", of polls-2008.pdf; "how many players", of nba-players.html; not
    "how many vehicles" of vehicle-production.csv, whose rows are a country's production a year)."""
    counted = _COUNTED_NOUN.search(question)
    named = [word for word in words_of(title.rsplit(".", 1)[0]) if not word.isdigit()]
    return counted is not None and bool(named) and len(named[-1]) > 2 and singular(
        counted.group(1).lower()) == singular(named[-1])


def named_columns(shape: TableShape, present: set[str], *, kinds: tuple[str, ...] = NUMERIC) -> list[str]:
    """The columns of those kinds whose name's words, singular or plural, are all the question's."""
    named = []
    for name, kind in shape.columns:
        column_words = {singular(word) for word in words_of(name)}
        if kind in kinds and column_words and column_words <= {singular(word) for word in present}:
            named.append(name)
    return named


def named_after(shape: TableShape, words: list[str], mark: Callable[[str], T | None]) -> tuple[str, T] | None:
    """The sheet's text column (or column of whole numbers) named, singular or plural, right
    after a word that `mark` reads as something (a "the" between them aside), with what it read;
    None if no column is."""
    plain = [singular(word) for word in words if word != "the"]
    for name, kind in shape.columns:
        named = [singular(word) for word in words_of(name)]
        if kind not in ("text", "integer", "date") or not named:  # whole numbers and dates group too: which Month
            continue
        for at in range(1, len(plain) - len(named) + 1):
            if plain[at:at + len(named)] == named and (read := mark(plain[at - 1])) is not None:
                return name, read
    return None


def measures(shape: TableShape, words: list[str]) -> list[str]:
    """The numeric columns the question names that measure its rows (not a Year numbering them)."""
    return [name for name in named_columns(shape, set(words)) if not ordinal(name, dict(shape.columns)[name])]


def only_measure(shape: TableShape) -> list[str]:
    measures = [name for name, kind in shape.columns if kind in NUMERIC and not ordinal(name, kind)]
    return measures if len(measures) == 1 else []


_SOMEONE = frozenset(("people", "persons", "person", "individuals"))  # counted by the column of people
_LABELS = frozenset(("name", "title", "label"))


def label_column(shape: TableShape, values: Callable[[TableShape, str], Sequence[str]], *,
                  who: bool = False) -> str | None:
    """The text column naming the table's rows: the one whose values are nearly all different (two
    hurricanes may share a name); None if none is, or several are (a car's Model and its Make).
    `who`: its column of people ("who was the oldest winner": Name, not Movie), else none."""
    if who:
        people = [name for name, kind in shape.columns if kind == "text" and singular(name.lower()) in _PEOPLE]
        return people[0] if len(people) == 1 else None
    named = unique_columns(shape, values)
    if len(named) > 1:  # a fleet's code (A1, A2…) beside its name: the names
        named = [name for name in named if not _codes(values(shape, name))] or named
    if len(named) > 1:  # a car's Model beside its Make, "Acura Integra": the one holding the other
        named = [name for name in named if all(_holds(values(shape, name), values(shape, other))
                                               for other in named if other != name)] or named
    if len(named) > 1:  # a journal's abbreviation beside its title: the one named for names
        named = [name for name in named if singular(name.lower()) in _LABELS]
    if not named:  # more names than are read (Forbes' 2,000 companies): the column called name
        named = [name for name, kind in shape.columns if kind == "text" and singular(name.lower()) in _LABELS
                 and len(values(shape, name)) >= VALUES_READ]
    return named[0] if len(named) == 1 else None


_NAME_RUN = re.compile(r"[^\W\d_]{3,}")


def _codes(held: Sequence[str]) -> bool:
    """Whether most values are codes, with no run of three letters (A1, 55, B-12), not names."""
    return sum(_NAME_RUN.search(value) is None for value in held) * 2 > len(held)


def _holds(held: Sequence[str], other: Sequence[str]) -> bool:
    """Whether nearly every value of `other` is part of a value of `held` ("Integra" of "Acura
    Integra"), and `held` writes more."""
    inside = " | ".join(held).casefold()
    return sum(len(value) for value in held) > sum(len(value) for value in other) and sum(
        value.casefold() in inside for value in other) >= 0.9 * len(other)


def unique_columns(shape: TableShape, values: Callable[[TableShape, str], Sequence[str]]) -> list[str]:
    """The text columns whose values are nearly all different and are words: each names a row
    (a column of times such as 02:31:38 names none)."""
    return [name for name, kind in shape.columns
            if kind == "text" and 0.9 * shape.rows <= len(held := values(shape, name)) < VALUES_READ
            and sum(any(letter.isalpha() for letter in value) for value in held) * 2 > len(held)]


def numbers_rows(shape: TableShape, name: str, values: Callable[[TableShape, str], Sequence[str]]) -> bool:
    """Whether a numeric column numbers the rows, 1, 2, 3… (the 111th Congress): "how many
    Congresses" counts its rows, not adds it up; "how many males", of a count a year, adds."""
    if dict(shape.columns).get(name) != "integer" or not 0 < shape.rows < VALUES_READ:
        return False
    held = sorted(int(float(value)) for value in values(shape, name))
    # shape.rows counts a PDF's repeated header rows too
    return len(held) >= max(5, 0.9 * shape.rows) and held[0] in (0, 1) and held[-1] - held[0] + 1 == len(held)


def distinct_column(shapes: Sequence[TableShape], words: list[str],
                     values: Callable[[TableShape, str], Sequence[str]]) -> tuple[TableShape, str] | None:
    """The sheet and text column whose different values "how many different items" counts: named,
    singular or plural, right after "different", "distinct", "unique" or "separate" (a word between
    them aside: "different spectral types"), or a text column right after "how many" ("how many
    countries", of a row a country and year)."""
    for shape in shapes:
        if (found := named_after(shape, words, lambda word: True if word in _DIFFERENT else None)) is not None:
            return shape, found[0]
        for at, word in enumerate(words[:-1]):
            if word in _DIFFERENT and (found := named_after(shape, words[:at + 1] + words[at + 2:],
                                                             lambda word: True if word in _DIFFERENT else None)):
                return shape, found[0]
        found = named_after(shape, words, lambda word: True if word == "many" else None)
        # A value of a row in three or more ("how many countries", of a row a country and a year); not
        # "how many survived", of Survived's yes and no.
        held = values(shape, found[0]) if found is not None and dict(shape.columns)[found[0]] == "text" else ()
        counts = count_column(shape)
        if held and (counts is None or counts.lower() not in COUNT_NAMES) and not {value.casefold() for value in held} <= YES_NO \
                and 3 * len(held) <= shape.rows:
            return shape, found[0]  # type: ignore[index]  # found is set where held is
        if found is None and (kind_of := _kind_of(shape, words, values)) is not None:
            return shape, kind_of
    after = next((words[at + 1] for at, word in enumerate(words[:-1]) if word in _DIFFERENT), None)
    if len(shapes) == 1 and after is not None and (
            label := label_column(shapes[0], values, who=after in _SOMEONE or singular(after) in _PEOPLE)) is not None:
        return shapes[0], label  # "how many different queens", of a row a contestant: its names
    return None
