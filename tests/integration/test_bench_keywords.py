"""`docchat bench keywords` at a tiny size: FTS5 (before) and Tantivy (now) are asked the same
questions in one run, and every figure comes out (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main
from docchat_bench import keywords


def test_both_engines_answer_every_mode_and_mostly_agree(capsys, monkeypatch):
    monkeypatch.setattr(keywords, "LONG_ASKED", 3)
    assert main(["bench", "keywords", "--chunks", "2000", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert (report["chunks"], report["documents"]) == (2000, 10)
    for engine in ("fts5", "tantivy"):
        for mode in keywords.MODES:
            assert report[f"{engine}_{mode}_p95_ms"] >= report[f"{engine}_{mode}_p50_ms"] > 0
    assert report["tantivy_build_s"] > 0
    assert report["top10_agreement"] >= 0.5  # both rank by BM25: most of their top 10s are the same chunks
