"""History-aware retrieval for follow-up questions, with no LLM in the loop.

Invariant: with no earlier question the ranking is exactly `retrieve(question)`. Otherwise the
question is searched alone and again with the previous question appended, the two rankings are
fused with Reciprocal Rank Fusion, and passages the previous answer cited are lifted a little (a
bias, never a filter: a passage neither search found is not added). The list is as long as the
question's own ranking. A passage both readings found keeps the closer similarity and word
coverage of the two, which the evidence judgement reads (docchat.grounding.evidence).

Why: an elliptical follow-up ("what if it falls on a weekend?") finds its topic only in the
joint search, while a self-contained one ("What is the Payment Date?") finds its own passage in
both and keeps it first; appending terms of every earlier topic (the fallback before, now the
bench's baseline `docchat_bench.followups.enrich`) blurs both.
Chosen with `docchat bench followups`: equal weights, and k = 10 rather than retrieval's 60 so
that rank gaps stay wider than the x1.05 citation lift, which then only settles close calls; a
heavier lift cost topic switches their passage, and a second earlier question did no better.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from docchat.retrieval.fusion import rrf
from docchat.domain import joint_reading

if TYPE_CHECKING:
    from docchat.domain import Retrieved

FOLLOW_UP_RRF_K = 10
CITED_BOOST = 1.05


def joint_query(question: str, previous_questions: Sequence[str]) -> str | None:
    """The second reading of a follow-up: the question with the previous one."""
    return joint_reading(question, previous_questions[-1]) if previous_questions else None


def retrieve_follow_up(retrieve: Callable[[str], list[Retrieved]], question: str,
                       previous_questions: Sequence[str], cited_chunk_ids: Collection[str] = ()) -> list[Retrieved]:
    """The passages for `question`, asked after `previous_questions` (oldest first)."""
    own = retrieve(question)
    if not previous_questions:
        return own
    joint = retrieve(joint_query(question, previous_questions))
    hits = {hit.chunk.id: hit for hit in joint + own}
    for hit in joint:  # what the evidence judgement reads: the closer of the two readings
        mine = hits[hit.chunk.id]
        hits[hit.chunk.id] = replace(mine, similarity=max(mine.similarity or 0.0, hit.similarity or 0.0) or None,
                                     coverage=max(mine.coverage, hit.coverage))
    fused = rrf([[hit.chunk.id for hit in own], [hit.chunk.id for hit in joint]], k=FOLLOW_UP_RRF_K)
    scored = [replace(hits[chunk_id], score=score * (CITED_BOOST if chunk_id in cited_chunk_ids else 1.0))
              for chunk_id, score in fused]
    return sorted(scored, key=lambda hit: hit.score, reverse=True)[:len(own)]
