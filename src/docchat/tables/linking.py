"""How sure docchat is of its reading of a question over a table (issue 55 part 2): the words of
the question that could change its figure and that the reading did not use.

A figure is stated as docchat's only when its reading used every such word; else it is said as
unsure, with the reading and the words it left unread ("the second highest": docchat reads the
highest; "the median price": it reads none). Those words are:

- numbers ("8", "12,500", "0.5") and counts written out ("three"): a bound, a value, a year or a
  number of rows the reading used says them (`what` holds each, as its words say the query);
- names a question capitalises past its first word ("Texas", "Biscoe"), which are values,
  columns or names of the document or the table;
- months ("in March"), used when the reading holds a month or a date;
- words the reading uses in some shapes only ("first", "per", "different", "not", "than",
  "times", "top"), used when the reading's words show that shape;
- words docchat does not read at all ("median", "percentage", "second", "increase"): never used.

Everything else (verbs, the noun a row stands for, "average", "how many") is no link: a reading
that misses one of them computes the same figure.
"""

from __future__ import annotations

import re

from docchat.text import singular

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[^\W_]+")
_COUNTS = {word: number for number, word in enumerate("two three four five six seven eight nine ten".split(),
                                                       start=2)}
_MONTHS = {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"}
# A word of a shape, and the words of a reading that show the reading is of that shape.
_SHAPE_WORDS = {
    "first": {"first"}, "last": {"last"}, "final": {"last"}, "latest": {"last"},
    "top": {"highest"}, "bottom": {"lowest"},
    "per": {"per"}, "each": {"per"},
    "different": {"different"}, "distinct": {"different"}, "unique": {"different"},
    "not": {"not"}, "except": {"not"}, "excluding": {"not"}, "outside": {"not"}, "without": {"not"},
    "besides": {"not"},
    "than": {"than", "difference", "ratio", "highest", "lowest"},
    "times": {"ratio"}, "ratio": {"ratio"},
}
_NEVER_READ = frozenset((
    "median", "mode", "percent", "percentage", "percentages", "proportion", "share", "fraction", "cumulative",
    "cumulatively", "running", "increase", "increased", "decrease", "decreased", "growth", "grew", "change",
    "changed", "deviation", "variance", "std", "second", "third", "fourth", "fifth", "penultimate", "half",
    "quarter", "weighted", "ratios",
))


def unread_words(question: str, what: str, names: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The words of `question` that could change its figure and that the reading `what` ("the
    total of Pallets where Location is Oslo") did not use, in the question's order; `names`: the
    document's and the table's, whose words the question may use to name them."""
    read = {singular(word) for word in _words(" ".join((what, *names)))}
    read_numbers = {_value(number) for number in _NUMBER.findall(" ".join((what, *names)))}
    dated = re.search(r"\b\d{4}-\d{2}\b", what) is not None
    unread: list[str] = []
    for at, match in enumerate(re.finditer(r"\S+", question)):
        token = match.group().strip("?!.,;:\"'()“”‘’")
        for number in _NUMBER.findall(token):
            if _value(number) not in read_numbers:
                unread.append(number)
        for word in _WORD.findall(token):
            plain = word.lower()
            if plain.isdigit():
                continue
            if plain in _NEVER_READ:
                unread.append(word)
            elif plain in _COUNTS:
                if float(_COUNTS[plain]) not in read_numbers:
                    unread.append(word)
            elif plain in _SHAPE_WORDS:
                if not _SHAPE_WORDS[plain] & read:
                    unread.append(word)
            elif plain in _MONTHS and word[0].isupper():
                if plain not in read and not dated:
                    unread.append(word)
            elif word[0].isupper() and at > 0 and len(word) > 1 and singular(plain) not in read:
                unread.append(word)
    return tuple(dict.fromkeys(unread))


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def _value(number: str) -> float:
    return float(number.replace(",", ""))
