"""`docchat bench api` runs end to end and reports what it measured (no timing is asserted)."""

from __future__ import annotations

from docchat_bench.api import run_api_bench


def test_the_api_bench_answers_every_request_of_every_client_and_reports_its_figures(capsys):
    report = run_api_bench(questions=3, clients=2, as_json=True)

    assert (report["requests"], report["errors"]) == (6, 0)
    assert report["requests_per_s"] > 0 and 0 < report["p50_ms"] <= report["p95_ms"]
    assert '"added_p50_ms"' in capsys.readouterr().out
