"""`docchat bench grounding` on a small question set: every figure comes out, the judgement and
its baseline are measured on the same questions, and the sweep's tables add up."""

from __future__ import annotations

import json

import pytest

from docchat.cli import main
from docchat_bench import grounding, grounding_citations, grounding_data, grounding_heldout


@pytest.fixture
def small(monkeypatch):
    # Two answerable dialogs, one unanswerable dialog and three lone questions.
    chosen = (grounding_data.ANSWERABLE_DIALOGS[:2] + grounding_data.UNANSWERABLE_DIALOGS[:1]
              + [[question] for question in grounding_data.UNANSWERABLE_ALONE[-3:]])
    monkeypatch.setattr(grounding, "dialogs", lambda: chosen)
    # The held-out set, small too: one answerable dialog, one unanswerable, two lone questions.
    monkeypatch.setattr(grounding_heldout, "dialogs", lambda: (
        grounding_heldout.ANSWERABLE_DIALOGS[:1] + grounding_heldout.UNANSWERABLE_DIALOGS[:1]
        + [[question] for question in grounding_heldout.UNANSWERABLE_ALONE[-2:]]))
    # The citation half, small too: a few planted answers of each set, one threshold.
    every = grounding_citations.planted_answers
    monkeypatch.setattr(grounding, "planted_answers", lambda *args, **kwargs: every(*args, **kwargs)[:6])
    monkeypatch.setattr(grounding_citations, "SWEEP", (0.55,))
    return chosen


def test_the_bench_judges_every_question_and_compares_with_the_baseline(capsys, small):
    assert main(["bench", "grounding", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["citations"]["answers"] == 6 and report["citations"]["baseline_every_citation_accepted"]["recall"] == 0
    evidence = report["evidence"]
    asked = [question for dialog in small for question in dialog]
    assert evidence["questions"]["answerable"] == sum(q.answerable for q in asked)
    assert evidence["questions"]["unanswerable"] == sum(not q.answerable for q in asked)
    assert evidence["questions"]["follow_ups"] == sum(len(dialog) - 1 for dialog in small)
    assert sum(evidence["confusion"]["answerable"].values()) == evidence["questions"]["answerable"]
    for method in (evidence["judgement"], evidence["baseline"]):
        for label in ("not_found", "found"):
            assert 0 <= method[label]["precision"] <= 1 and 0 <= method[label]["recall"] <= 1
    for row in evidence["sweep"].values():
        assert row["answerable_held"] + row["answerable_missed"] == evidence["questions"]["answerable"]


def test_questions_about_nothing_in_the_documents_are_not_found(capsys, small):
    assert main(["bench", "grounding", "--json"]) == 0

    # "What is the capital of Australia?" and "Which planets have rings?" of a legal and cookery library.
    assert json.loads(capsys.readouterr().out)["evidence"]["confusion"]["unanswerable"]["not found"] >= 2


def test_the_printed_report_names_the_judgement_and_the_baseline(capsys, small):
    assert main(["bench", "grounding"]) == 0

    out = capsys.readouterr().out
    assert "evidence judgement" in out and "baseline: top fused score" in out
    # Both halves in one run: the citation check beside its own baseline, its cost beside the
    # way before; then both again on the held-out set.
    assert "baseline: every citation accepted" in out and "check (at 0.55)" in out
    assert "cost per answer" in out and "as before, the passages embedded again" in out
    assert "Held-out set" in out and out.count("check (at 0.55)") == 2
    # The fresh invented claims (written before the signals that catch them) apart, in both sets.
    assert out.count("fresh set, not used for design") == 2 and "closed-category comparisons" in out


def test_the_held_out_set_is_measured_with_the_thresholds_fixed_on_the_calibration_set(capsys, small):
    assert main(["bench", "grounding", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    held_out = report["held_out"]
    assert held_out["evidence"]["questions"] == {"answerable": 4, "unanswerable": 4, "follow_ups": 4}
    assert held_out["evidence"]["thresholds"] == report["evidence"]["thresholds"]
    assert held_out["evidence"]["baseline"]["threshold"] == report["evidence"]["baseline"]["threshold"]
    assert held_out["citations"]["answers"] == 6 and held_out["citations"]["threshold"] == 0.55
    assert held_out["citations"]["baseline_every_citation_accepted"]["recall"] == 0
    assert report["citations"]["fresh"]["invented"] == 40 and held_out["citations"]["fresh"]["invented"] == 24
