"""The citation half of `docchat bench grounding`, small: planted unsupported sentences over the
follow-ups bench's documents, checked with the real MiniLM embedder; the check is compared with
the baseline that accepts every citation in the same run (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from docchat_bench import grounding, grounding_citations
from docchat_bench.grounding_citations import planted_answers, run_citation_bench

pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize("planted_set", [grounding_citations.CALIBRATION, grounding.HELD_OUT], ids=["calibration", "held-out"])
def test_every_planted_answer_holds_two_supported_sentences_and_one_planted_one(planted_set):
    answers = planted_answers(planted_set)

    assert {a.kind for a in answers} == set(grounding_citations.KINDS)
    for answer in answers:
        assert answer.text.endswith(answer.planted)
        assert all(sentence in answer.text for sentence, _ in answer.supported)


def test_the_check_finds_planted_sentences_the_baseline_accepts_and_prints_both(capsys, monkeypatch):
    monkeypatch.setattr(grounding_citations, "SWEEP", (0.45, 0.55))

    report = run_citation_bench(as_json=True)

    assert json.loads(capsys.readouterr().out) == report
    baseline, check = report["baseline_every_citation_accepted"], report["check"]
    assert baseline["recall"] == 0.0
    assert check["recall"] > 0.8 and check["precision"] > 0.8
    assert set(report["sweep"]) == {"0.45", "0.55"}
    assert report["attribution"]["supported_attributed_to_their_section"] > 0.8
    for cost in (report["cost_per_answer"], report["cost_passages_embedded"], report["cost_without_embedding"]):
        assert cost["p95_ms"] >= cost["p50_ms"] > 0


def test_the_table_names_the_baseline_the_check_and_the_cost(capsys, monkeypatch):
    monkeypatch.setattr(grounding_citations, "SWEEP", (0.55,))

    run_citation_bench(as_json=False)

    out = capsys.readouterr().out
    assert "baseline: every citation accepted" in out
    assert "check (at 0.55)" in out
    assert "cost per answer: p50" in out
