"""Session memory: what a conversation has settled so far, kept in the store with it.

Resolved terms (a term the user asked about -> a short snippet of the answer), the active
documents and sections its answers cited (retrieval boosts their chunks x1.15, never
filters by them), and a turn count.
"""

from __future__ import annotations

import re

from docchat.domain import SessionMemory

MAX_TERMS = 50
SNIPPET = 160
_DEFINITION = re.compile(
    r"^\s*(?:and\s+)?(?:what|who)\s+(?:is|are|was|were)\s+(?:the\s+|a\s+|an\s+)?(?P<term>[^?]{2,60}?)\s*\??\s*$"
    r"|^\s*what\s+does\s+(?:the\s+)?(?P<term2>[^?]{2,60}?)\s+mean\s*\??\s*$",
    re.IGNORECASE,
)
_REFERENCE = {"it", "this", "that", "they", "those", "these"}


def term_asked_about(question: str) -> str | None:
    match = _DEFINITION.match(question)
    if not match:
        return None
    term = (match.group("term") or match.group("term2") or "").strip(" .,:;\"'")
    if not term or term.lower() in _REFERENCE or len(term.split()) > 6:
        return None
    return term


def updated(session: SessionMemory, *, question: str, answer: str, documents: list[str] = (),
            sections: list[str] = ()) -> SessionMemory:
    """The session after one complete exchange; `documents`/`sections` are what it cited."""
    terms = dict(session.resolved_terms)
    term = term_asked_about(question)
    if term and answer.strip():
        text = " ".join(answer.split())
        terms.pop(term, None)
        terms[term] = text if len(text) <= SNIPPET else text[: SNIPPET - 1].rstrip() + "…"
        while len(terms) > MAX_TERMS:
            terms.pop(next(iter(terms)))
    return SessionMemory(
        resolved_terms=terms,
        active_documents=_merged(session.active_documents, documents),
        sections_seen=_merged(session.sections_seen, sections)[-MAX_TERMS:],
        turns=session.turns + 1,
    )


def _merged(old: tuple[str, ...], new) -> tuple[str, ...]:
    return old + tuple(item for item in dict.fromkeys(new) if item not in old)
