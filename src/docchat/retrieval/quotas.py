"""Sharing the prompt's room for passages among documents (a comparison, or the whole collection),
so that each gets its own, best passages first.

The documents' rankings are taken in turns: each one's best passage, then each one's second, and
so on. Filled into the room in that order (context.evidence.fill, which passes over a passage
too long for what is left), the room is shared equally, and a document with fewer good passages
leaves its room to the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def in_turns(rankings: Sequence[Sequence[T]]) -> list[T]:
    """One ranking from several, best of each first: a1, b1, c1, a2, b2, ..."""
    depth = max((len(ranking) for ranking in rankings), default=0)
    return [ranking[turn] for turn in range(depth) for ranking in rankings if turn < len(ranking)]
