"""`docchat bench engines` at a tiny size: each engine's row comes out of one run with every
figure; below the size Qdrant Edge indexes, its search is exact, and pgvector's HNSW search at
this size finds the exact top 10 (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main


def test_each_engine_reports_every_figure_and_small_libraries_are_searched_exactly(capsys, postgres):
    database_url = postgres.create_database()
    assert main(["bench", "engines", "--chunks", "3000", "--engines", "qdrant_edge,pgvector,lancedb,numpy_exact",
                 "--database-url", database_url, "--json"]) == 0

    captured = capsys.readouterr()
    rows = {row["engine"]: row for row in map(json.loads, captured.out.strip().splitlines())}
    assert sorted(rows) == ["numpy_exact", "pgvector", "qdrant_edge"]  # LanceDB is not one of docchat's dependencies
    assert "lancedb is not installed" in captured.err
    for row in rows.values():
        assert row["chunks"] == 3000
        for mode in ("all", "scoped_1", "scoped_25"):
            assert row[f"{mode}_p95_ms"] >= row[f"{mode}_p50_ms"] > 0
            assert row[f"{mode}_recall_at_10"] == 1.0
        assert row["open_s"] > 0 and row["rss_mb"] > 0 and row["disk_mb"] > 0


def test_jittered_vectors_past_the_embedded_ones_are_near_copies_of_them_as_bench_retrieval_s_stand_ins_are():
    from docchat_bench.engines import JITTERED_FROM, PER_DOCUMENT, library

    vectors, owner = library(JITTERED_FROM + 500, jittered=True)
    base, _ = library(JITTERED_FROM)

    assert (vectors[:JITTERED_FROM] == base).all()
    closest = (vectors[JITTERED_FROM:] @ base.T).max(axis=1)
    assert 0.93 < closest.min() and closest.max() < 0.99  # each a copy of one, cosine about 0.96
    assert owner[-1] == (JITTERED_FROM + 499) // PER_DOCUMENT
