"""Follow-up questions as standalone retrieval queries.

Signal-gated: the DSPy rewriter runs only for a question with a reference word (it, this,
that, they, same, ...) or a short one; any other question passes through at no cost.
Without the rewriter, or when it fails, the question is enriched instead: the summary's
topics and salient terms of recent turns are appended (no LLM needed).
"""

from __future__ import annotations

import logging
import re
from typing import Callable

from docchat.context.terms import salient_terms

log = logging.getLogger(__name__)

REFERENCE_WORDS = frozenset(
    "it its this that these those they them their same which both either neither above former latter "
    "he she him her such".split()
)
SHORT_QUESTION_WORDS = 5
RECENT_MESSAGES = 6
MAX_OUTPUT_TOKENS = 150
_WORDS = re.compile(r"[A-Za-z']+")


def needs_rewrite(question: str) -> bool:
    words = [w.lower() for w in _WORDS.findall(question)]
    return len(words) <= SHORT_QUESTION_WORDS or any(w in REFERENCE_WORDS for w in words) or "the above" in question.lower()


def enrich(question: str, *, topics: list[str], recent: list[str], limit: int = 6) -> str:
    extra = [t for t in topics if t.lower() not in question.lower()]
    extra += salient_terms(recent, limit=limit, exclude=question + " " + " ".join(extra))
    extra = extra[:limit]
    return f"{question} {' '.join(extra)}".strip() if extra else question


def standalone_query(programs, recent: list, question: str, *,
                     topics: Callable[[], list[str]] = list) -> tuple[str | None, str]:
    """(query, how it was made): "rewriter", "enriched", or (None, "none") when the question
    needs no rewrite or nothing would change. `topics` is asked only if enrichment runs."""
    if not recent or not needs_rewrite(question):
        return None, "none"
    query, method = None, "rewriter"
    if programs is not None:
        try:
            query = programs.rewrite(transcript(recent), question, max_tokens=MAX_OUTPUT_TOKENS)
        except Exception as error:  # a failed rewrite must never cost the answer
            log.info("rewriter failed, enriching instead: %s", error)
    if query is None:
        query, method = enrich(question, topics=topics(), recent=[m.content for m in recent]), "enriched"
    return (None, "none") if query == question else (query, method)


def transcript(messages) -> str:
    return "\n".join(f"{m.role.value}: {m.content}" for m in messages)
