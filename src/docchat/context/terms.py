"""Salient terms without an LLM: frequent content words, for query enrichment and topics."""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-']{2,}")
STOPWORDS = frozenset("""
a about above after again all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each either few for from further had has have having
he her here hers him his how i if in into is it its itself just me more most my neither no nor not now of
off on once only or other our ours out over own same she should so some such than that the their theirs
them then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yes okay please thanks thank tell know like want need
happens happen falls fall said says say get gets got make made one two three
""".split())


def salient_terms(texts: list[str], *, limit: int = 8, exclude: str = "") -> list[str]:
    excluded = {w.lower() for w in _WORD.findall(exclude)}
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for text in texts:
        for word in _WORD.findall(text):
            key = word.lower()
            if key in STOPWORDS or key in excluded:
                continue
            counts[key] += 1
            first_seen.setdefault(key, len(first_seen))
    ranked = sorted(counts, key=lambda w: (-counts[w], first_seen[w]))
    return ranked[:limit]
