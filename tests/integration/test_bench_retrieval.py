"""`docchat bench retrieval --chunks N` at tiny sizes: the library it builds holds N chunks, the
ones past the embedded share get stand-in vectors, and every figure comes out (no timing is
asserted)."""

from __future__ import annotations

import json

import pytest

from docchat.cli import main
from docchat_bench import retrieval

MODES = ("all", "scoped_1", "scoped_5", "scoped_25")


@pytest.fixture
def small(monkeypatch):
    # Few questions, and stand-ins past the first 2 documents, so the test stays quick.
    monkeypatch.setattr(retrieval, "QUERIES", 6)
    monkeypatch.setattr(retrieval, "EMBEDDED", 2 * retrieval.SECTIONS)


def test_the_library_holds_the_chunks_asked_for(capsys, small):
    assert main(["bench", "retrieval", "--chunks", "530", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["chunks"] == 530
    assert report["documents"] == 3
    assert report["embedded_chunks"] == 400
    for prefix in ("", "baseline_"):
        for mode in MODES:
            assert report[f"{prefix}{mode}_p95_ms"] >= report[f"{prefix}{mode}_p50_ms"] > 0
            assert report[f"{prefix}{mode}_cpu_p50_ms"] >= 0
    # A library this small is searched exactly: the index finds what exact search finds.
    assert report["recall_at_10_vs_exact"] == 1.0
    assert report["open_s"] > 0 and report["resident_mb"] > 0 and report["index_build_s"] >= 0


def test_without_the_baseline_only_docchats_figures_come_out(capsys, small):
    assert main(["bench", "retrieval", "--chunks", "450", "--no-baseline"]) == 0

    shown = capsys.readouterr().out
    assert "scoped to 1 of 3 documents" in shown
    rows = [line for line in shown.splitlines() if line.lstrip().startswith(("every document", "scoped to"))]
    assert len(rows) == 4 and all(line.rstrip().endswith("not run") for line in rows)
    assert "recall@10 against exact search 1.0" in shown


def test_stand_in_vectors_are_unit_length_and_stay_near_a_real_chunk_of_the_same_topic():
    lease_vector = [1.0] + [0.0] * 383
    recipe_vector = [0.0, 1.0] + [0.0] * 382
    stand_ins = retrieval._StandIns({"lease": [lease_vector], "recipe": [recipe_vector]})

    [vector] = stand_ins.vectors(["tenant rent deposit landlord repair notice period."])

    assert sum(x * x for x in vector) == pytest.approx(1.0, abs=1e-5)
    assert vector[0] > 0.9 and abs(vector[1]) < 0.2
    assert stand_ins.vectors(["tenant rent deposit landlord repair notice period."]) == [vector]


def test_fewer_chunks_than_one_document_holds_make_one_shorter_document():
    [(name, text)] = retrieval._library(7)

    assert name == "doc-0000.md"
    assert text.decode().count("## Section") == 7


def test_a_chunk_count_below_one_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "retrieval", "--chunks", "0"])
    assert "at least 1 chunk" in capsys.readouterr().err
