"""`docchat bench engines` at a tiny size: each engine's row comes out of one run with every
figure, and below the size Qdrant Edge indexes, its search is exact (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main


def test_each_engine_reports_every_figure_and_small_libraries_are_searched_exactly(capsys):
    assert main(["bench", "engines", "--chunks", "3000", "--engines", "qdrant_edge,lancedb,numpy_exact",
                 "--json"]) == 0

    captured = capsys.readouterr()
    rows = {row["engine"]: row for row in map(json.loads, captured.out.strip().splitlines())}
    assert sorted(rows) == ["numpy_exact", "qdrant_edge"]  # LanceDB is not one of docchat's dependencies
    assert "lancedb is not installed" in captured.err
    for row in rows.values():
        assert row["chunks"] == 3000
        for mode in ("all", "scoped_1", "scoped_25"):
            assert row[f"{mode}_p95_ms"] >= row[f"{mode}_p50_ms"] > 0
            assert row[f"{mode}_recall_at_10"] == 1.0
        assert row["open_s"] > 0 and row["rss_mb"] > 0 and row["disk_mb"] > 0
