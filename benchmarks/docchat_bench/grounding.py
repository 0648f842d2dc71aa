"""`docchat bench grounding`: does the evidence judgement tell questions the documents answer
from questions they do not?

The follow-ups bench's five documents are ingested through the real services (SQLite, MiniLM,
Qdrant local mode, in a temporary folder; no LLM). Every question of
`grounding_data.dialogs()` (answerable ones from the follow-ups bench, unanswerable ones alone
and as follow-ups) is retrieved as the answer pipeline retrieves it (`retrieve_follow_up` with
the questions before it) and judged by `docchat.grounding.evidence.judge`.

Figures, in the same run:
- the judgement's three-way confusion table (answerable / unanswerable x found / weak / not
  found) at its thresholds, and precision and recall of "not found" (on unanswerable
  questions) and of "found" (on answerable ones);
- the baseline: the top passage's fused score alone, thresholded (at the threshold that does
  best on this very set, which flatters it), with the same precision and recall;
- how both move with the threshold: the two-way table (score at or above the threshold is
  taken as "the documents hold it") for each threshold of a sweep;
- the citation half (grounding_citations) over the same library: planted answers, the passages'
  vectors read from its index;
- both halves again on a held-out set (grounding_heldout: four other documents, their own
  questions and planted sentences), with every threshold fixed on the first set, the
  baseline's included: the first set's figures are fitted to it, the held-out ones are not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from docchat.context.followup import retrieve_follow_up
from docchat.domain import Judgement
from docchat.grounding.evidence import FOUND_AT, NOT_FOUND_BELOW, evidence_score, judge

from docchat_bench import grounding_fresh, grounding_heldout
from docchat_bench.followups import TOP_K, bench_services
from docchat_bench.grounding_citations import (
    CALIBRATION, PlantedSet, citation_cost, citation_figures, planted_answers, print_citations,
)
from docchat_bench.grounding_data import Question, dialogs

HELD_OUT = PlantedSet(grounding_heldout.DOCUMENTS, grounding_heldout.PARAPHRASES, grounding_heldout.INVENTED)
RECENT_QUESTIONS = 3  # as the follow-ups bench: the pipeline's recent messages hold three questions
SWEEP = tuple(round(0.30 + 0.05 * step, 2) for step in range(12))  # 0.30 .. 0.85


@dataclass(frozen=True)
class Judged:
    question: Question
    follow_up: bool
    score: float  # the judgement's
    judgement: Judgement
    fused: float  # the baseline's: the top passage's fused score


def _judge_all(retrieve, sets: list[list[Question]]) -> list[Judged]:
    judged = []
    for dialog in sets:
        asked: list[str] = []
        for question in dialog:
            ranked = retrieve_follow_up(retrieve, question.text, asked[-RECENT_QUESTIONS:])
            strength = judge(ranked)
            judged.append(Judged(question, bool(asked), evidence_score(ranked), strength.judgement,
                                 ranked[0].score if ranked else 0.0))
            asked.append(question.text)
    return judged


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def _precision_recall(judged: list[Judged], said, wanted) -> dict:
    """Precision and recall of a label: `said(j)` the method gave it, `wanted(j)` it was right."""
    said_it = [j for j in judged if said(j)]
    return {"precision": _ratio(sum(wanted(j) for j in said_it), len(said_it)),
            "recall": _ratio(sum(said(j) for j in judged if wanted(j)), sum(wanted(j) for j in judged))}


def _two_way(judged: list[Judged], value, threshold: float) -> dict:
    """Score at or above the threshold: taken as answered by the documents."""
    def count(answerable: bool, held: bool) -> int:
        return sum(j.question.answerable is answerable and (value(j) >= threshold) is held for j in judged)

    table = {"answerable_held": count(True, True), "answerable_missed": count(True, False),
             "unanswerable_held": count(False, True), "unanswerable_missed": count(False, False)}
    table["accuracy"] = _ratio(table["answerable_held"] + table["unanswerable_missed"], len(judged))
    return table


def _best_threshold(judged: list[Judged], value) -> float:
    candidates = sorted({value(j) for j in judged})
    return max(candidates, key=lambda t: (_two_way(judged, value, t)["accuracy"], -t))


def figures(judged: list[Judged], baseline_at: float | None = None) -> dict:
    """Every figure the bench prints, from the judged questions; the baseline's threshold is the
    best on these very questions unless one is given (the held-out set takes the calibration's)."""
    confusion = {("answerable" if answerable else "unanswerable"): {
        label.value: sum(j.question.answerable is answerable and j.judgement is label for j in judged)
        for label in Judgement} for answerable in (True, False)}
    if baseline_at is None:
        baseline_at = _best_threshold(judged, lambda j: j.fused)

    def baseline_held(j: Judged) -> bool:
        return j.fused >= baseline_at

    return {
        "questions": {"answerable": sum(j.question.answerable for j in judged),
                      "unanswerable": sum(not j.question.answerable for j in judged),
                      "follow_ups": sum(j.follow_up for j in judged)},
        "thresholds": {"found_at": FOUND_AT, "not_found_below": NOT_FOUND_BELOW},
        "confusion": confusion,
        "judgement": {
            "not_found": _precision_recall(judged, lambda j: j.judgement is Judgement.NOT_FOUND,
                                           lambda j: not j.question.answerable),
            "found": _precision_recall(judged, lambda j: j.judgement is Judgement.FOUND,
                                       lambda j: j.question.answerable),
        },
        "baseline": {
            "threshold": round(baseline_at, 5),
            "not_found": _precision_recall(judged, lambda j: not baseline_held(j), lambda j: not j.question.answerable),
            "found": _precision_recall(judged, baseline_held, lambda j: j.question.answerable),
        },
        "sweep": {f"{t:.2f}": _two_way(judged, lambda j: j.score, t) for t in SWEEP},
        "follow_ups_only": {
            ("answerable" if answerable else "unanswerable"): {
                label.value: sum(j.follow_up and j.question.answerable is answerable and j.judgement is label
                                 for j in judged) for label in Judgement}
            for answerable in (True, False)},
    }


def _run_set(prefix: str, planted_set: PlantedSet, questions: list[list[Question]], embedder, fresh: dict[str, str],
             *, baseline_at: float | None = None, cost: bool = False) -> dict:
    """Both halves over one set's documents, in a library of their own: the evidence judgement of
    its questions and the citation check of its planted answers (passages' vectors from the index)."""
    with bench_services(prefix, planted_set.documents) as services:
        evidence = figures(_judge_all(lambda query: services.retrieval.retrieve(query, top_k=TOP_K), questions),
                           baseline_at)
        whole = services.retrieval.whole(None, max_tokens=10**9) or []
        chunk_ids = {(r.document, r.chunk.label): r.chunk.id for r in whole}
        answers = planted_answers(planted_set, chunk_ids)
        citations = citation_figures(answers, embedder, services.index.passage_vectors)
        citations["fresh"] = grounding_fresh.fresh_figures(planted_set, fresh, chunk_ids, embedder, services.index.passage_vectors)
        if cost:
            citations.update(citation_cost(answers, embedder, services.index.passage_vectors))
    return {"evidence": evidence, "citations": citations}


def run_grounding_bench(*, as_json: bool = False) -> dict:
    from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

    embedder = OnnxMiniLMEmbedder()
    result = _run_set("docchat-bench-grounding-", CALIBRATION, dialogs(), embedder, grounding_fresh.CALIBRATION,
                      cost=True)
    # Thresholds fixed on the calibration set, the baseline's included, then measured on documents
    # and questions none of them was chosen on.
    result["held_out"] = _run_set("docchat-bench-grounding-held-out-", HELD_OUT, grounding_heldout.dialogs(),
                                  embedder, grounding_fresh.HELD_OUT, baseline_at=result["evidence"]["baseline"]["threshold"])
    if as_json:
        print(json.dumps(result))
        return result
    print("Calibration set (the thresholds are set on it)\n")
    _print(result["evidence"], len(CALIBRATION.documents))
    print()
    print_citations(result["citations"], documents=len(CALIBRATION.documents))
    print("\n\nHeld-out set (other documents and questions; thresholds fixed above)\n")
    _print(result["held_out"]["evidence"], len(HELD_OUT.documents))
    print()
    print_citations(result["held_out"]["citations"], documents=len(HELD_OUT.documents))
    return result


def _print(evidence: dict, documents: int) -> None:
    counts = evidence["questions"]
    print(f"{counts['answerable'] + counts['unanswerable']} questions over {documents} documents: "
          f"{counts['answerable']} answerable, {counts['unanswerable']} not; {counts['follow_ups']} asked as follow-ups")
    thresholds = evidence["thresholds"]
    print(f"\nevidence judgement (found at {thresholds['found_at']}, not found below {thresholds['not_found_below']}):")
    print(f"{'':<14}{'found':>8}{'weak':>8}{'not found':>11}")
    for row, cells in evidence["confusion"].items():
        print(f"{row:<14}{cells['found']:>8}{cells['weak']:>8}{cells['not found']:>11}")
    baseline = evidence["baseline"]
    print(f"\n{'method':<38}{'not found: P':>13}{'R':>7}{'found: P':>10}{'R':>7}")
    for name, row in (("evidence judgement", evidence["judgement"]),
                      (f"baseline: top fused score >= {baseline['threshold']}", baseline)):
        print(f"{name:<38}{row['not_found']['precision']:>13.3f}{row['not_found']['recall']:>7.3f}"
              f"{row['found']['precision']:>10.3f}{row['found']['recall']:>7.3f}")
    print("\nscore >= threshold taken as held by the documents:")
    print(f"{'threshold':>9}{'answerable held':>17}{'missed':>8}{'unanswerable held':>19}{'missed':>8}{'accuracy':>10}")
    for threshold, row in evidence["sweep"].items():
        print(f"{threshold:>9}{row['answerable_held']:>17}{row['answerable_missed']:>8}"
              f"{row['unanswerable_held']:>19}{row['unanswerable_missed']:>8}{row['accuracy']:>10.3f}")
