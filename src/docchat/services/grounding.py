"""Checks a finished answer's citations with the query embedder already loaded (one batched
call per answer, of the answer's sentences) and the passages' own vectors, read from the
document index rather than embedded again; the rules are docchat.grounding.citation_check's.
Without an embedder, or when it fails, the check goes by words and numbers alone; a passage
whose vector cannot be read (its document removed since, the index not open) is embedded in the
same call instead."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from docchat.grounding.citation_check import check
from docchat.domain import Citation, Grounding, by_number
from docchat.domain.numbers import NumberCheck
from docchat.ports import Embedder

# Chunk ids -> the vectors the document index holds for them (those it has).
PassageVectors = Callable[[Sequence[str]], Mapping[str, Sequence[float]]]
log = logging.getLogger(__name__)


class CitationChecker:
    def __init__(self, embedder: Embedder | None, vectors: PassageVectors | None = None):
        self._embedder = embedder
        self._vectors = vectors

    def __call__(self, answer: str, given: Sequence[Citation], /, numbers: NumberCheck | None = None) -> Grounding | None:
        """None for an answer given no passage: there is nothing to check it against. `numbers`:
        what the answer's numbers were found to be, kept with the check."""
        if not given:
            return None
        embed = self._embedder.embed if self._embedder is not None else None
        parts = by_number(given)
        passages = {number: "\n".join(c.text for c in chunks) for number, chunks in parts.items()}
        single = [chunks[0] for chunks in parts.values() if len(chunks) == 1]
        return replace(check(answer, passages, embed, self._passage_vectors(single)), numbers=numbers)

    def _passage_vectors(self, given: Sequence[Citation]) -> dict[int, Sequence[float]]:
        """The stored vectors of passages that are one chunk each (a part of several is embedded)."""
        if self._vectors is None or self._embedder is None:
            return {}
        try:
            found = self._vectors([c.chunk_id for c in given if c.chunk_id])
        except Exception as error:  # the passages are embedded instead: slower, the same check
            log.warning("passage vectors unreadable, embedding the passages: %s", error)
            return {}
        return {c.number: found[c.chunk_id] for c in given if c.chunk_id in found}
