"""A question put in its table's own words (issue 55 part 2), before it is read: the words that
name a column or a cell otherwise than the table writes it are replaced by the table's name.

- An abbreviation the table uses: "highway" for `hwy`, "North America" for `N.Amer`, "life
  expectancy" for `Life Exp`, "assistant professors" for `AsstProf`, "herbivores" for `herbi`.
  A short name abbreviates a word when the word starts with it (three letters or more; a value's
  four or more), or when it keeps the word's first and last letters and its letters are in the
  word in order ("hwy", "cty").
- Where the question names no numeric column by its words, one it names by meaning: a word the
  bundled encoder finds near one numeric column's name and no other ("earn" for `salary`, "weigh"
  for `Weight_in_lbs`, "unemployment" for `Unemployed`): at least NEAR similar, and by MARGIN more
  than to any other column. Words of a question's shape ("highest", "ratio", "times") and words
  after which a measure is said ("weight", "rate") are never linked so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from docchat.domain.documents import TableShape
from docchat.tables.numbers import ordinal
from docchat.text import singular

# How near (cosine) a word must be to a column's name, and by how much nearer than to the next.
NEAR, MARGIN = 0.5, 0.15
# Similarity of each word to each name: near(words, names)[i][j].
Near = Callable[[list[str], list[str]], list[list[float]]]
_WORD = re.compile(r"[^\W\d_]+|\d+")
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_NUMERIC = ("integer", "real")
_DIGITS = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th"}
_ORDINAL = re.compile(rf"\b({'|'.join(_DIGITS)})\b(?!\s+(?:\d|{'|'.join(('one', 'two', 'three', 'four', 'five'))}))",
                      re.IGNORECASE)
# Words for the "no" of a yes/no column, and nouns for its "yes", by the column's name.
_OPPOSITES = {"survived": ("died", "perished", "drowned", "dead", "did not survive", "didn't survive"),
              "alive": ("died", "dead")}
_NOUNS = {"survived": ("survivors", "survivor")}
_NOT_LINKED = frozenset((
    "how", "many", "much", "what", "which", "who", "when", "where", "the", "and", "was", "were", "are", "did", "does",
    "have", "has", "had", "there", "than", "that", "this", "with", "from", "for", "into", "over", "under", "above",
    "below", "more", "less", "fewer", "most", "least", "total", "sum", "average", "mean", "number", "highest",
    "lowest", "largest", "smallest", "biggest", "maximum", "minimum", "top", "bottom", "ratio", "times", "difference",
    "first", "last", "each", "every", "per", "different", "distinct", "all", "any", "not", "other", "rate", "level",
    "value", "score", "figure", "amount", "weight", "size", "length", "count", "between", "after", "before", "since",
    "until", "year", "years", "month", "months", "day", "days", "week", "weeks", "row", "rows", "table",
))


def in_table_words(question: str, shapes: Sequence[TableShape], values: Callable[[TableShape, str], Sequence[str]],
                   near: Near | None = None) -> str:
    """The question with its words for the tables' columns and cells put as the tables write them."""
    names = [name for shape in shapes for name, _ in shape.columns]
    cells = [value for shape in shapes for name, kind in shape.columns if kind == "text"
             for value in values(shape, name)]
    # A word that is a cell's as written ("admitted", of Admit's Admitted) names that cell, not a column.
    kept = {singular(part.lower()) for cell in cells for part in _WORD.findall(cell)}
    written = _abbreviations(question, names, 3, kept)
    written = _abbreviations(written, cells, 4, kept)
    written = _flags(_ordinals(written, cells), names)
    if near is not None:
        written = _meant(written, shapes, near)
    return written


def _ordinals(question: str, cells: Sequence[str]) -> str:
    """"first-class" as "1st-class" where a cell is written 1st; "the first 5 races" keeps its rows."""
    written = {cell.casefold() for cell in cells}
    return _ORDINAL.sub(lambda match: _DIGITS[match.group(1).lower()] if _DIGITS[match.group(1).lower()] in written
                        else match.group(), question)


def _flags(question: str, names: Sequence[str]) -> str:
    """A word for a yes/no column's "no" as "not" and its name ("died" of Survived: "not Survived"),
    and its noun as its name ("survivors": "Survived")."""
    for name in names:
        opposite, noun = _OPPOSITES.get(name.casefold()), _NOUNS.get(name.casefold())
        if opposite:
            question = re.sub(rf"\b(?:{'|'.join(opposite)})\b", f"not {name}", question, flags=re.IGNORECASE)
        if noun:
            question = re.sub(rf"\b(?:{'|'.join(noun)})\b", name, question, flags=re.IGNORECASE)
    return question


def _abbreviations(question: str, names: Sequence[str], shortest: int, kept: set[str]) -> str:
    tokens = [(match.group().lower(), match.span()) for match in _WORD.finditer(question)]
    present = {singular(word) for word, _ in tokens}
    spans: list[tuple[int, int, str]] = []
    # The name of more parts first: "assistant professors" is AsstProf before "professors" is Prof.
    for name in sorted(dict.fromkeys(names), key=lambda name: -len(_PART.findall(name))):
        parts = [part.lower() for part in _PART.findall(name)]
        if not parts or {singular(part) for part in parts} <= present:
            continue  # named as the table writes it: nothing to put in its words
        for at in range(len(tokens) - len(parts) + 1):
            words = [word for word, _ in tokens[at:at + len(parts)]]
            if _abbreviated(parts, words, shortest) and not any(singular(word) in kept for word in words):
                start, end = tokens[at][1][0], tokens[at + len(parts) - 1][1][1]
                if not any(s < end and start < e for s, e, _ in spans):
                    spans.append((start, end, name))
    for start, end, name in sorted(spans, reverse=True):
        question = question[:start] + name + question[end:]
    return question


def _abbreviated(parts: list[str], words: list[str], shortest: int) -> bool:
    """Whether the name's parts are the words, each the same (singular or plural) or abbreviating
    it, one at least abbreviating; a one-letter part ("N" of N.Amer) only beside a longer one that does."""
    if any(word in _NOT_LINKED for word in words):
        return False
    shortened = [part for part, word in zip(parts, words, strict=True) if singular(part) != singular(word)]
    if not shortened or not all(_abbreviates(part, word, 1 if len(parts) > 1 else shortest)
                                for part, word in zip(parts, words, strict=True) if singular(part) != singular(word)):
        return False
    return any(len(part) >= shortest for part in shortened) or len(shortened) < len(parts)


def _abbreviates(short: str, word: str, shortest: int) -> bool:
    if len(short) < shortest or len(short) >= len(word) or short.isdigit():
        return False
    if word.startswith(short):
        return True
    return len(short) >= 3 and short[0] == word[0] and short[-1] == word[-1] and _in_order(short, word)


def _in_order(short: str, word: str) -> bool:
    letters = iter(word)
    return all(letter in letters for letter in short)


def _meant(question: str, shapes: Sequence[TableShape], near: Near) -> str:
    """The question with a word put as the one numeric column it means, where it names none."""
    tokens = [(match.group(), match.span()) for match in _WORD.finditer(question)]
    present = {singular(word.lower()) for word, _ in tokens}
    measures = [name for shape in shapes for name, kind in shape.columns if kind in _NUMERIC and not ordinal(name, kind)]
    named_words = {singular(part.lower()) for shape in shapes for name, _ in shape.columns for part in _PART.findall(name)}
    if len(measures) < 2 or any({singular(part.lower()) for part in _PART.findall(name)} <= present for name in measures):
        return question
    candidates = [(word, span) for at, (word, span) in enumerate(tokens)
                  if len(word) >= 4 and not word.isdigit() and word.lower() not in _NOT_LINKED
                  and singular(word.lower()) not in named_words and not (at > 0 and word[0].isupper())]
    if not candidates:
        return question
    similar = near([word.lower() for word, _ in candidates], [_spoken(name) for name in measures])
    chosen = None
    for (word, span), row in zip(candidates, similar, strict=True):
        ranked = sorted(range(len(measures)), key=lambda j: -row[j])
        best, second = row[ranked[0]], row[ranked[1]]
        if best >= NEAR and best - second >= MARGIN and (chosen is None or best > chosen[0]):
            chosen = (best, span, measures[ranked[0]])
    if chosen is None:
        return question
    _, (start, end), name = chosen
    return question[:start] + name + question[end:]


def _spoken(name: str) -> str:
    """A column's name as words for the encoder: "Weight_in_lbs" -> "weight in lbs"."""
    return " ".join(part.lower() for part in _PART.findall(name))
