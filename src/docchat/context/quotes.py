"""Sentences of the passages quoted by docchat itself, chosen by the question's words: the notes
of a round a small model could not write (docchat.context.rounds) and the quoted answer, the
form of an answer for a model that cannot cite what it was given (issue 39).

A sentence is scored by how many of the question's word stems it holds, divided by how many of
the passages hold it (a clause every contract shares says least about any one of them); one
holding none of them is never quoted. Nothing is added to a quote: it claims exactly what its
passage says, and cites it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from docchat.domain import Citation, by_number
from docchat.domain.grounding import REFUSAL
from docchat.retrieval.words import query_terms, tokenize

MAX_QUOTES = 3
# What the earlier question's words are worth together beside one of the question's own: a
# follow-up that changes the subject ("What about parental leave?" after annual leave) is
# answered for what it asks, and the earlier words only break its ties. Counted per word, three
# of them ("days", "annual", "get") outweighed "parental" (seen on the page, stop 53).
CONTEXT_WEIGHT = 0.5
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """The text's sentences; a Markdown heading ("## Sick leave") names a section, it says nothing."""
    return [" ".join(sentence.split()) for sentence in _SENTENCE.split(text)
            if sentence.strip() and not sentence.lstrip().startswith("#")]


def sentence_counts(texts: Iterable[str]) -> Counter[str]:
    """In how many of the texts each sentence is."""
    return Counter(sentence for text in texts for sentence in set(sentences(text)))


def stems(question: str) -> set[str]:
    return {_stem(term) for term in query_terms(question)}


def best_sentence(terms: set[str], text: str, counts: Counter[str], context: set[str] = frozenset()) -> tuple[float, str]:
    """The text's sentence holding the most of `terms` (and of `context`, all of which together
    count CONTEXT_WEIGHT) for the passages holding it, with its score; (0, "") when it holds none
    of them."""
    best: tuple[float, str] = (0.0, "")
    for sentence in sentences(text):
        held = {_stem(word) for word in tokenize(sentence)}
        if not (terms | context) & held:
            continue
        earlier = CONTEXT_WEIGHT * len(context & held) / len(context) if context else 0.0
        score = (len(terms & held) + earlier) / max(1, counts[sentence])
        best = max(best, (score, sentence), key=lambda pair: pair[0])
    return best


def quoted_answer(question: str, citations: Sequence[Citation], *, context: str = "",
                  max_quotes: int = MAX_QUOTES) -> str:
    """The answer as the passages' own sentences: the best sentence of each of the `max_quotes`
    passages that answer best, best first, each quoted and cited, one a line. `context`: what a
    follow-up was searched with besides its words ("Is it paid?" after parental leave)."""
    texts = {number: "\n".join(c.text for c in chunks) for number, chunks in by_number(citations).items()}
    terms, counts = stems(question), sentence_counts(texts.values())
    context_terms = stems(context) - terms
    scored = [(*best_sentence(terms, text, counts, context_terms), number)
              for number, text in texts.items()]
    chosen = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[2]))[:max_quotes]
    if not chosen:  # no passage holds any of the question's words
        return REFUSAL
    return "\n".join(f"- \u201c{sentence}\u201d [{number}]" for _, sentence, number in chosen)


def _stem(word: str) -> str:
    """A word's first five letters: "delivers", "delivery" and "deliveries" alike, to choose a
    sentence by (never to search with)."""
    return word[:5]
