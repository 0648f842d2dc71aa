"""`docchat bench numbers`: both paths check the same answers, every figure a reader looks for
comes out, and the number check marks wrong numbers with the issue's precision (no timing is
asserted: the machine's two cores are shared)."""

from __future__ import annotations

import json

import pytest

from docchat.cli import main
from docchat_bench import numbers

PATHS = ("number check", "citation check (today)")


@pytest.fixture
def fast(monkeypatch):
    monkeypatch.setattr(numbers, "ROUNDS", 1)


def test_the_bench_reports_precision_recall_and_time_for_both_paths(capsys, fast):
    assert main(["bench", "numbers", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["answers"] == {name: len(answers) for name, answers in numbers.SETS.items()}
    assert report["planted_numbers"] == sum(len(answer.planted) for answer in numbers.PLANTED)
    assert report["passages"] == 8 and 1_200 <= report["passage_characters_mean"] <= 1_800
    for path in PATHS:
        row = report[path]
        assert 0 <= row["precision"] <= 1 and 0 <= row["recall"] <= 1
        assert row["marks"] == sum(row["marks_by_set"].values()) >= row["right_marks"]
        assert row["ms_p95"] >= row["ms_p50"] > 0 and row["cpu_ms_p95"] >= row["cpu_ms_p50"] >= 0


def test_the_number_check_marks_planted_numbers_with_a_precision_of_at_least_095(capsys, fast):
    assert main(["bench", "numbers", "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert report["number check"]["precision"] >= 0.95
    # The point of the new path: better than today's on both counts, on the same answers.
    assert report["number check"]["recall"] >= report["citation check (today)"]["recall"]
    assert report["number check"]["precision"] > report["citation check (today)"]["precision"]


def test_the_printed_report_names_both_paths_and_their_figures(capsys, fast):
    assert main(["bench", "numbers"]) == 0

    out = capsys.readouterr().out
    assert all(path in out for path in PATHS)
    assert "precision" in out and "recall" in out and "p95 ms" in out and "planted wrong numbers" in out
