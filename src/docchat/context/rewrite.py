"""Follow-up questions as standalone retrieval queries.

Signal-gated: the DSPy rewriter runs only for a question with a reference word (it, this,
that, they, same, ...) or a short one; any other question passes through at no cost.
Without the rewriter, or when it fails, retrieval reads the question with the previous one
(docchat.context.followup), which a small model cannot spoil. `enrich` (appending the
summary's topics and recent salient terms) was the fallback before; it blurs a follow-up
after two topics, and stays only as the baseline `docchat bench followups` measures.
"""

from __future__ import annotations

import logging
import re

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


def standalone_query(programs, recent: list, question: str) -> str | None:
    """The rewriter's standalone query, or None when the question needs none, there is no
    rewriter, it failed, or it changed nothing."""
    if programs is None or not recent or not needs_rewrite(question):
        return None
    try:
        query = programs.rewrite(transcript(recent), question, max_tokens=MAX_OUTPUT_TOKENS)
    except Exception as error:  # a failed rewrite must never cost the answer
        log.info("rewriter failed, reading the question with the previous one instead: %s", error)
        return None
    return None if query == question else query


def transcript(messages) -> str:
    return "\n".join(f"{m.role.value}: {m.content}" for m in messages)
