"""Checks a finished answer's citations with the query embedder already loaded (one batched
call per answer); the rules are docchat.context.citation_check's. Without an embedder, or when
it fails, the check goes by words and numbers alone."""

from __future__ import annotations

from typing import Sequence

from docchat.context.citation_check import check
from docchat.domain import Citation, Grounding
from docchat.ports import Embedder


class CitationChecker:
    def __init__(self, embedder: Embedder | None):
        self._embedder = embedder

    def __call__(self, answer: str, given: Sequence[Citation]) -> Grounding | None:
        """None for an answer given no passage: there is nothing to check it against."""
        if not given:
            return None
        embed = self._embedder.embed if self._embedder is not None else None
        return check(answer, {c.number: c.text for c in given}, embed)
