"""`docchat bench citations` with the scripted model: each form of an answer side by side, scored
on the same dialogs in one run."""

from __future__ import annotations

import json

from docchat.cli import main


def test_the_bench_reports_each_form_side_by_side_and_quotes_cite_what_holds_the_answer(capsys):
    assert main(["bench", "citations", "--model", "scripted", "--dialogs", "2", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    free, constrained, quoted = (report["forms"][form] for form in ("free", "constrained", "quoted"))
    assert free["answers"] == constrained["answers"] == quoted["answers"] == 9
    # The stand-in takes no pattern: asked for one, it answers in its own words, the same every
    # time ("The document says so [1]. …"), which no passage holds.
    assert (free["written_so"], constrained["written_so"], quoted["written_so"]) == (9, 0, 9)
    assert free["flagged"] > 0 and constrained["flagged"] > 0
    # Quotes are the passages' own sentences, cited: nothing in them is unsupported.
    assert quoted["own_marks"] == 1.0 and quoted["flagged"] == 0.0 and quoted["on_gold"] >= 0.8
    # As the gate chooses on a fresh install: the stand-in takes no pattern, so its first three
    # answers are tried in its own words unseen, and judged not to cite well enough (2 of 3):
    # the user reads quotes throughout.
    gate = report["forms"]["gate"]
    assert (gate["answers"], gate["written"]) == (9, {"quoted": 9})
    assert gate["flagged"] == 0.0
