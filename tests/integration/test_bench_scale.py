"""`docchat bench scale` at a tiny size: every figure in its table and in its JSON, each with
the issue's target where there is one (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main
from docchat_bench.scale import ROWS

TINY = ["bench", "scale", "--conversations", "20", "--messages", "50", "--long", "120", "--longest", "300"]


def test_the_scale_bench_reports_every_figure_with_its_target_as_json(capsys):
    assert main([*TINY, "--json"]) == 0

    report = json.loads(capsys.readouterr().out)
    assert list(report["figures"]) == [row.key for row in ROWS]
    for row in ROWS:
        figure = report["figures"][row.key]
        assert figure["target"] == row.target and figure["unit"] == row.unit
        assert ({"p50", "p95"} <= set(figure)) or "value" in figure, row.key
        assert (figure["met"] is None) == (row.target is None)
    assert report["sizes"]["listed"] == 22
    assert report["sizes"]["total"] == 20 * 50 + 120 + 300
    assert report["figures"]["search_typical"]["all_found"]
    # The page draws the latest messages of the long conversation, not all 120.
    assert report["sizes"]["drawn"] == 50


def test_the_scale_bench_prints_a_line_for_every_figure(capsys):
    assert main(TINY) == 0

    lines = capsys.readouterr().out.splitlines()
    # The tiny store: its 20 conversations were all updated in the last 10 days, so none is old.
    sizes = {"conversations": 20, "messages": 50, "long": 120, "longest": 300, "listed": 22, "total": 1_420,
             "cleanup_days": 365, "cleaned": 0, "drawn": 50}
    for row in ROWS:
        [line] = [line for line in lines if line.startswith(row.what.format(**sizes))]
        assert ("<=" in line) == (row.target is not None), line
