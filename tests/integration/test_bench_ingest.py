"""`docchat bench ingest` at a tiny size: both ways ingest the same files into libraries that
find the same passages, and every figure is reported (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main


def test_the_ingest_bench_reports_both_ways_over_the_same_chunks_as_json(capsys, data_dir):
    assert main(["bench", "ingest", "--pages", "2", "--files", "5", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    for corpus, files in (("long", 1), ("small", 5)):
        before, after = report["before"][corpus], report["after"][corpus]
        assert before["files"] == after["files"] == files
        assert before["chunks"] == after["chunks"] > files - 1
        assert {"wall_s", "cpu_s", "chunks_per_s", "files_per_s", "load"} <= set(after)
    assert report["top10_overlap"] == 1.0
