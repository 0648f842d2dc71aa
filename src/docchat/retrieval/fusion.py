"""Hybrid ranking: the dense and keyword candidate lists fused into one, then biased.

Invariants:
- Fusion is Reciprocal Rank Fusion: each list adds 1 / (k + position) for a chunk, positions
  counted from 0; highest first, ties in the order the chunks were first seen.
- The bias towards active documents reorders chunks and never removes one: with or without
  it, the same number comes back as long as there are that many candidates.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

# The constant of the original RRF paper. Qdrant's default is 2, which lets the top of either
# list dominate; 60 lets agreement between the two lists count for more.
RRF_K = 60
DEFAULT_BOOST = 1.15


@dataclass(frozen=True)
class Ranked:
    """A chunk found for a question, with its fused score (higher is better)."""

    chunk_id: str
    document_id: str
    score: float


def rrf(rank_lists: Sequence[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal Rank Fusion of ranked item lists, best first."""
    scores: dict[str, float] = {}
    for ranking in rank_lists:
        for position, item in enumerate(ranking):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + position)
    return sorted(scores.items(), key=lambda pair: pair[1], reverse=True)


def apply_bias(ranked: Iterable[Ranked], boost_documents: set[str] | frozenset[str],
               boost: float = DEFAULT_BOOST) -> list[Ranked]:
    """Multiplies the score of chunks from `boost_documents` by `boost` and re-sorts (stable).
    Every chunk comes back: a bias, never a filter."""
    biased = [replace(r, score=r.score * boost) if r.document_id in boost_documents else r for r in ranked]
    return sorted(biased, key=lambda r: r.score, reverse=True)


def fuse(dense: Sequence[tuple[str, str]], keyword: Sequence[tuple[str, str]], *, top_k: int,
         boost_documents: set[str] | frozenset[str] = frozenset(),
         boost: float = DEFAULT_BOOST) -> list[Ranked]:
    """The `top_k` best of two ranked lists of (chunk id, document id). Every fused candidate
    is biased before the cut, so the bias can lift one from just below it."""
    document_of = dict(dense) | dict(keyword)
    fused = rrf([[chunk for chunk, _ in dense], [chunk for chunk, _ in keyword]])
    ranked = (Ranked(chunk, document_of[chunk], score) for chunk, score in fused)
    return apply_bias(ranked, boost_documents, boost)[:top_k]
