"""`docchat bench tables`: every question is asked of its own real table, kept as the kind of
document the bench makes of it, and scored against pandas' answer from the same data; docchat's
reader keeps to the issue's targets on them (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main
from docchat_bench.table_questions import QUESTIONS
from docchat_bench.tables import KINDS


def test_the_bench_asks_every_question_of_its_table_and_meets_the_targets_on_them(capsys):
    assert main(["bench", "tables", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["tables"] == len(KINDS) and report["questions"] == len(QUESTIONS)
    assert set(report["by_kind"]) == {"csv", "xlsx", "pdf", "md", "html", "docx"}
    assert report["right"] >= 0.90 and report["right_of_stated"] >= 0.95, report["wrong"]
