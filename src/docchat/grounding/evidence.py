"""Whether the documents in scope hold the answer to a question: found, weak or not found.

Judged from what retrieval computed anyway (no model, microseconds): for each of the best
few passages, its cosine similarity to the question (MiniLM) plus a share of the question's
content words it holds; the score is the best passage's. Why both: the dense side alone
rates a near miss ("How long does a turkey roast for?" beside the chicken) about as high as a
hit, while exact words (names, numbers, defined terms) are what a near miss lacks; the fused
RRF score alone says only where a passage ranks, not how close it is (any question's best
passage scores 1/60 + 1/60 when both lists agree).

A follow-up is judged by the closer of its two readings (alone, and with the previous
question: docchat.context.followup), so "Can it go up?" after a question about the rent is
judged as the rent review it is about.

Calibrated with `docchat bench grounding` on 83 questions (53 answerable, 30 not; follow-ups
included) over the bench's five documents: see docs/perf/grounding.md for the confusion table
at each threshold. "Not found" is set where no answerable question of the set falls (a
documents-only conversation then does not call the model: a false "not found" costs an
answer), "found" where the fewest unanswerable ones pass for answered.
"""

from __future__ import annotations

from docchat.domain import EvidenceStrength, Judgement, Retrieved

# The passages that count: the best few of the ranking (the model is given them first).
JUDGED_PASSAGES = 3
# What a passage's holding all the question's content words adds to its similarity.
COVERAGE_WEIGHT = 0.3
# At or above: found. Below NOT_FOUND_BELOW: not found. Between: weak.
FOUND_AT = 0.65
NOT_FOUND_BELOW = 0.55


def passage_strength(passage: Retrieved) -> float:
    """How close one passage is to the question: its similarity, plus its share of the words."""
    return (passage.similarity or 0.0) + COVERAGE_WEIGHT * passage.coverage


def evidence_score(ranked: list[Retrieved]) -> float:
    """The best of the first passages' strengths; 0 when nothing was found."""
    return round(max((passage_strength(p) for p in ranked[:JUDGED_PASSAGES]), default=0.0), 4)


def judgement_at(score: float, *, found_at: float = FOUND_AT, not_found_below: float = NOT_FOUND_BELOW) -> Judgement:
    if score >= found_at:
        return Judgement.FOUND
    return Judgement.NOT_FOUND if score < not_found_below else Judgement.WEAK


def judge(ranked: list[Retrieved]) -> EvidenceStrength:
    """The judgement of a question's ranked passages (best first)."""
    score = evidence_score(ranked)
    if ranked and all(p.similarity is None for p in ranked[:JUDGED_PASSAGES]):
        # Searched by keywords only (the index or the embeddings server was unavailable): the
        # words alone cannot say "found", and passages that share some are not "nothing found".
        weak = any(p.coverage > 0 for p in ranked[:JUDGED_PASSAGES])
        return EvidenceStrength(Judgement.WEAK if weak else Judgement.NOT_FOUND, score)
    return EvidenceStrength(judgement_at(score), score)
