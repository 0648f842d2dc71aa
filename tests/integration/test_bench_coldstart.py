"""`docchat bench coldstart` on a library of three notes: every command reaches the stand-in
model, and the answer cites the note that says who lit the lighthouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from docchat_bench.coldstart import run_coldstart_bench

pytestmark = pytest.mark.timeout(600)


def test_the_coldstart_bench_times_each_command_and_the_answer_cites_the_lighthouse_note(tmp_path, capsys):
    report = run_coldstart_bench(documents=3, runs=1, cache_dir=tmp_path, say=lambda line: None)

    assert (report["documents"], report["runs"]) == (3, 1)
    for command in ("ask", "ask_empty", "ask_follow_up", "chat"):
        assert 0 < report[command]["seconds"] <= report[command]["answer_seconds"]
    assert [run["cited"] for run in report["ask"]["runs"]] == ["lighthouse.md"]
    assert "docchat ask, the library" in capsys.readouterr().out
    # Kept for the next run, which copies it instead of building it again.
    assert (Path(report["library"]).parent / "built.json").exists()
