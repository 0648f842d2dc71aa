"""`docchat bench pdf-tables`: every reader is scored on the same drawn tables, and docchat's finds
each of them with no table read where there is none (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main


def test_the_bench_scores_every_reader_on_the_same_tables(capsys):
    assert main(["bench", "pdf-tables", "--documents", "6", "--first-seed", "500", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 6 and report["tables"] >= 4
    readers = report["readers"]
    assert {"pdfplumber (lines)", "pdfplumber (text)", "docchat (its reader over PDFium's words)"} <= set(readers)
    for row in readers.values():
        assert 0 <= row["found"] <= report["tables"] and 0 <= row["cells_right"] <= 1 and row["s_per_page"] > 0
    ours = readers["docchat (its reader over PDFium's words)"]
    assert ours["found"] == report["tables"] and ours["false_tables"] == 0 and ours["cells_right"] >= 0.95
