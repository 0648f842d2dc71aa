"""`docchat bench table-scale` at a small size: a sheet written as people write one is ingested
through the real services, the typed tables' share of it is timed, and every question of the
bench is computed from it (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main
from docchat_bench.table_scale import QUESTIONS


def test_the_bench_ingests_the_sheet_and_computes_every_question_from_it(capsys):
    assert main(["bench", "table-scale", "--rows", "300", "--repeats", "1", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["rows"] == 300 and report["figures"] == report["questions"] == len(QUESTIONS)
    assert 0 < report["typed_tables_s"] < report["ingest_s"]
