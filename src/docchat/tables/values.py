"""The cells of a table's text columns that a question names (issue 55): its words linked to
values, singular or plural and in people's words ("women" for Female: docchat.tables.linking),
kept or left out ("not in Oslo", "except Oslo and Bergen"), a column of yes and no named by the
question ("how many survived"), and two values of one column set against each other ("Oslo
than Bergen"), as conditions of docchat's queries (docchat.tables.query).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from docchat.domain.documents import TableShape, quoted
from docchat.tables.linking import plain_phrase, question_phrase, words_of
from docchat.tables.row_names import abbreviates

VALUES_READ = 500
_YES, _NO = frozenset(("yes", "true", "y")), frozenset(("no", "false", "n"))
YES_NO = _YES | _NO  # a column holding only these is a flag ("how many survived")
_LEAVING_OUT = ("not", "except", "excluding", "outside", "but", "besides", "nor", "neither")


def values_named(question: str, shape: TableShape, values: Callable[[TableShape, str], Sequence[str]]) -> tuple[str, ...]:
    """The values of the sheet's text columns that the question names (kept or left out): the
    cells its words link it to."""
    return linked_values(shape, f" {question_phrase(question)} ", values)


def linked_values(shape: TableShape, padded: str, values: Callable[[TableShape, str], Sequence[str]]) -> tuple[str, ...]:
    return tuple(value for name, kind in shape.columns if kind == "text"
                 for value in named_values(shape, name, padded, values))


def two_values(shape: TableShape, text: str, values: Callable[[TableShape, str], Sequence[str]]
               ) -> tuple[str, str, str] | None:
    """The text column of which the question names exactly two values, and the two, in the order
    it names them; None if no column has two."""
    padded = f" {text} "
    for name, kind in shape.columns:
        if kind != "text":
            continue
        named = sorted((padded.index(f" {phrase} "), value) for value in named_values(shape, name, padded, values)
                       if not _negated(padded, phrase := plain_phrase(value)))
        if len(named) == 2:
            (_, first), (_, second) = named
            return name, first, second
    return None


def conditions_on_values(shape: TableShape, text: str, values: Callable[[TableShape, str], Sequence[str]], *,
                         besides: str | None = None, counted: str | None = None) -> list[tuple[str, str]]:
    """(SQL, words) for each text column whose values the question names: the rows holding one of
    them, or, for values it names after "not", "except", "excluding", "outside", "other than" or
    "but", the rows holding none of them (a row with no value included). `besides`: the column
    the figure is per; `counted`: the column whose different values are counted."""
    conditions = []
    padded = f" {text} "
    for name, kind in shape.columns:
        if kind == "integer" and name not in (besides, counted) and (flag := _flagged(
                name, padded, values(shape, name), numbers=True)) is not None:
            conditions.append(flag)  # "how many survived", of a column of 1 and 0
            continue
        if kind != "text" or name in (besides, counted):
            continue
        named = named_values(shape, name, padded, values)
        if not named and (flag := _flagged(name, padded, values(shape, name))) is not None:
            conditions.append(flag)
            continue
        kept = [value for value in named if not _negated(padded, plain_phrase(value))]
        left_out = [value for value in named if value not in kept]
        if kept:
            listed = ", ".join(literal(value) for value in kept)
            sql = f"{quoted(name)} = {listed}" if len(kept) == 1 else f"{quoted(name)} IN ({listed})"
            conditions.append((sql, f"{name} is {' or '.join(kept)}"))
        if left_out:
            listed = ", ".join(literal(value) for value in left_out)
            # A row with no value is not known to be another's: "won by a runner not from the United
            # States" leaves out the years no woman finished.
            conditions.append((f"{quoted(name)} NOT IN ({listed})",
                               f"{name} is not {' nor '.join(left_out)}"))
    return conditions


def flag_columns(shape: TableShape, question: str, values: Callable[[TableShape, str], Sequence[str]]) -> set[str]:
    """The columns of 1 and 0 the question names as flags ("how many survived"): they keep rows,
    and are not what is added up."""
    padded = f" {question_phrase(question)} "
    return {name for name, kind in shape.columns
            if kind == "integer" and _flagged(name, padded, values(shape, name), numbers=True) is not None}


def _flagged(name: str, padded: str, held: Sequence[str], numbers: bool = False) -> tuple[str, str] | None:
    """A column of yes and no (or, with `numbers`, of 1 and 0) named by the question ("how many
    survived" of a column Survived): its rows holding yes, or no where the question says "not"
    before it."""
    kinds = {str(value).casefold(): str(value) for value in held}
    yes, no = (frozenset(("1",)), frozenset(("0",))) if numbers else (_YES, _NO)
    if not kinds or not set(kinds) <= yes | no or f" {(phrase := plain_phrase(name))} " not in padded:
        return None
    before = padded[:padded.index(f" {phrase} ")].split()
    wanted = no if before and before[-1] == "not" else yes  # "not survived"; "not crew survived" is of Class
    value = next((kinds[key] for key in kinds if key in wanted), None)
    if value is None:
        return None
    if numbers:  # "survived is 0 (no)": the words say which way the flag is read
        return f"{quoted(name)} = {value}", f"{name} is {value} ({'yes' if value == '1' else 'no'})"
    return f"{quoted(name)} = {literal(value)}", f"{name} is {value}"


def named_values(shape: TableShape, name: str, padded: str,
                 values: Callable[[TableShape, str], Sequence[str]]) -> list[str]:
    """The values of a text column that the question (`padded`: its words, spaced) holds as phrases:
    not a value that is a column's name too (an item called Protein, beside a column protein), nor
    one another column holds as well, unless the question names this column ("left-handed" of
    W.Hnd's Left, not of Clap's)."""
    columns = {plain_phrase(column) for column, _ in shape.columns}
    named = {value: phrase for value in values(shape, name)[:VALUES_READ]
             if (phrase := plain_phrase(value)) and f" {phrase} " in padded and not _a_unit(phrase, padded)
             and not _a_count(phrase, padded) and phrase not in columns
             and not _held_elsewhere(shape, name, value, padded, values)}
    # "non-USA" names non-USA, not USA as well: a value said only inside a longer one is not named.
    return [value for value, phrase in named.items()
            if not any(other != phrase and f" {phrase} " in f" {other} "
                       and padded.count(f" {phrase} ") <= padded.count(f" {other} ") for other in named.values())]


def _held_elsewhere(shape: TableShape, name: str, value: str, padded: str,
                    values: Callable[[TableShape, str], Sequence[str]]) -> bool:
    """Whether another text column holds the same value, and the question names that column, or
    names neither."""
    others = [other for other, kind in shape.columns
              if kind == "text" and other != name and value in values(shape, other)[:VALUES_READ]]
    if not others:
        return False
    words = padded.split()
    return not _said(name, words) or any(_said(other, words) for other in others)


def _said(column: str, words: list[str]) -> bool:
    """Whether a word of the question is a part of the column's name, or abbreviates to it (handed: Hnd)."""
    return any(part == word or abbreviates(part, word, 3)
               for part in (piece.lower() for piece in words_of(column)) for word in words if len(word) > 2)


def _a_unit(phrase: str, padded: str) -> bool:
    """Whether a short value is said only as a number's unit ("hotter than 10,000 K", of a type K)."""
    return len(phrase) <= 2 and padded.count(f" {phrase} ") == len(re.findall(rf"\d {re.escape(phrase)} ", padded))


def _a_count(phrase: str, padded: str) -> bool:
    """Whether a value written as a number is said only as a count of rows or a bound ("the first 3
    boats", "before 1 am", of a boat numbered 3 or 1)."""
    return phrase.isdigit() and padded.count(f" {phrase} ") == len(
        re.findall(rf" (?:first|last|top|bottom|latest|final|before|after|since|until|than|under|over) {phrase} ", padded))


def _negated(padded: str, phrase: str) -> bool:
    """Whether the question names the value after a word that leaves it out ("not in Oslo",
    "except Oslo and Bergen", "any location but Oslo"), within a few words before it."""
    before = padded[:padded.index(f" {phrase} ")].split()[-4:]
    return any(word in _LEAVING_OUT for word in before) or " ".join(before[-2:]) in ("other than", "apart from")


def literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
