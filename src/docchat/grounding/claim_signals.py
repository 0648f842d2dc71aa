"""Two cheap signals of a claim its passage contradicts in the passage's own words (the
citation check's hardest case: the words and the embedding match, what is said does not).

- Numbers written as words ("one month's notice", "the fifth anniversary") count as numbers, so a
  sentence's "one" is checked against a passage's "six" as "1" is against "6". Only in sentences
  that cite (the case measured): "one of the two options" in a sentence citing nothing would be
  a count no passage needs to hold.
- A negation the passage lacks: a sentence saying "not", "never", "no", "without" where its
  passage has no negation or contrast of its own ("other than", "rather than", "unless", "only").

Measured on `docchat bench grounding`'s planted sentences (both sets, the passages' vectors
from the index): invented claims caught 0.20 -> 0.50 on the calibration set and 0.00 -> 0.25 on
the held-out one, precision 1.000 on both (no supported sentence marked). Negation gave most of
it (0.40 and 0.25 alone). A paraphrase that says "not X" where its passage says "rather than X"
is why contrast counts on the passage's side.
"""

from __future__ import annotations

import re

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
# Not "first" or "second": "the first 14 days", "first-class", "a second opinion" count nothing.
_ORDINALS = {"third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
             "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
             "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
             "twentieth": 20, "thirtieth": 30}
_VALUES = {**{word: n for n, word in enumerate(_UNITS)}, **_TENS, **_ORDINALS}
_NUMBER_WORD = re.compile(r"(?<![\w-])(" + "|".join(sorted(_TENS, key=len, reverse=True)) + r")-(\w+)(?![\w-])"
                          r"|(?<![\w-])(\w+)(?![\w-])", re.IGNORECASE)
# "the one before", "that one", "no one": a pronoun, not a count.
_PRONOUN_BEFORE = frozenset("the that this which each any every no another".split())
# "a third of the height": a fraction, not the third of anything.
_FRACTION_BEFORE = frozenset("a one two".split())
_NEGATION = re.compile(r"\b(?:not|never|no|without|cannot|nor|none)\b|n't\b", re.IGNORECASE)
_CONTRAST = re.compile(r"\b(?:other than|rather than|instead|unless|except|only|excluding)\b", re.IGNORECASE)


def number_words(text: str) -> dict[str, str]:
    """Numbers written as words, as digits ("twenty-fifth" -> "25") -> as written."""
    found: dict[str, str] = {}
    previous = ""
    for match in _NUMBER_WORD.finditer(text):
        if match.group(1):
            tens, unit = match.group(1).lower(), match.group(2).lower()
            if unit in _VALUES and _VALUES[unit] < 10:
                found[str(_TENS[tens] + _VALUES[unit])] = match.group()
        else:
            word = match.group(3).lower()
            pronoun = word == "one" and previous in _PRONOUN_BEFORE
            fraction = word in _ORDINALS and previous in _FRACTION_BEFORE
            if word in _VALUES and not pronoun and not fraction:
                found[str(_VALUES[word])] = match.group()
            previous = word
    return found


def negated(text: str) -> bool:
    return _NEGATION.search(text) is not None


def negates_or_contrasts(text: str) -> bool:
    return negated(text) or _CONTRAST.search(text) is not None
