"""The words a question is searched for on the keyword side of retrieval.

Words are lowercased letters and digits; anything else separates them, so "ZX-4471" is the
two terms "zx" and "4471" (FTS5's unicode61 tokenizer cuts chunk text the same way). No
stemming: the dense embedding already matches word forms, and the keyword side is there for
exact terms (names, codes, numbers) that stemming would blur. Stopwords go: they match
almost every chunk, which costs time and says nothing about relevance.
"""

from __future__ import annotations

import re

# Letters and digits of any script; "_" is a word character to `\w`, not a letter.
_WORD = re.compile(r"[^\W_]+")

# Common English function words, and what apostrophes leave behind ("trustee's" -> "trustee", "s").
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t d ll m re ve
    """.split()
)


def words(text: str) -> list[str]:
    """The text's words in order, lowercased, stopwords kept ("not" among them)."""
    return _WORD.findall(text.lower())


def tokenize(text: str) -> list[str]:
    """The text's terms in order: lowercased words, stopwords dropped."""
    return [word for word in words(text) if word not in STOPWORDS]


def query_terms(text: str) -> list[str]:
    """The distinct terms of a question, in the order they first appear."""
    return list(dict.fromkeys(tokenize(text)))
