"""`docchat bench report` over small kept runs: a PNG for each input found, each missing input
named with the command that makes it."""

from __future__ import annotations

import json
from pathlib import Path

from docchat.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MACHINE = "Test Rig 9000, 2 cores, 24.0 GB RAM"


def _keep(folder: Path, name: str, bench: str, result) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(
        {"bench": bench, "machine": MACHINE, "date": "2026-11-23", "result": result}))


def _memory() -> dict:
    rows = []
    for tokens, cost in ((10_000, 3.0), (125_000, 35.0), (250_000, 70.0)):
        row = {"history_tokens": tokens, "history_messages": tokens // 125}
        for key, ms in (("docchat", 1.1), ("chat_memory_buffer", cost), ("memory", cost * 1.4)):
            row |= {f"{key}_ms_p50": ms, f"{key}_ms_p95": ms * 1.3}
        rows.append(row)
    return {"budget": 260_000, "turns": 40, "lengths": rows}


def _retrieval(chunks: int, worst: float) -> dict:
    return {"chunks": chunks, "ingest_chunks_per_s": 85.2, "query_embedding_ms": 4.1,
            **{f"{mode}_p50_ms": worst / 2 for mode in ("all", "scoped_5", "scoped_25")},
            **{f"{mode}_p95_ms": worst for mode in ("all", "scoped_5", "scoped_25")}}


def _scale() -> dict:
    return {"sizes": {"conversations": 1000, "messages": 20, "long": 2000, "longest": 10000, "listed": 1002},
            "figures": {"list": {"p50": 8.1, "p95": 9.9, "unit": "ms", "target": 20, "met": True},
                        "import_long": {"value": 1.7, "unit": "s", "target": None, "met": None},
                        "a_row_from_a_newer_bench": {"value": 2.0, "unit": "s", "target": 1.0, "met": False}}}


def test_a_png_is_written_for_each_plot_whose_runs_are_kept(tmp_path, capsys):
    data, out = tmp_path / "data", tmp_path / "perf"
    _keep(data, "memory", "memory", _memory())
    _keep(data, "prefix", "prefix", {"model": "SmolLM2-135M-Instruct", "docchat_hit_ratio": 0.81,
                                     "baseline_hit_ratio": 0.12, "turns": [
                                         {"turn": n, "docchat_hit_ratio": 0.9, "baseline_hit_ratio": 0.1}
                                         for n in range(1, 6)]})
    _keep(data, "retrieval-10000", "retrieval", _retrieval(10_000, 18.0))
    _keep(data, "retrieval-100000", "retrieval", _retrieval(100_000, 95.0))
    _keep(data, "scale", "scale", _scale())

    assert main(["bench", "report", "--data", str(data), "--out", str(out)]) == 0

    for name in ("memory", "prefix", "retrieval", "ingestion", "scale"):
        png = (out / f"{name}.png").read_bytes()
        assert png.startswith(PNG_SIGNATURE) and len(png) > 10_000, name
    assert "not drawn" not in capsys.readouterr().out


def test_each_missing_input_is_named_with_the_command_that_makes_it(tmp_path, capsys):
    data, out = tmp_path / "data", tmp_path / "perf"
    _keep(data, "retrieval-10000", "retrieval", _retrieval(10_000, 18.0))

    assert main(["bench", "report", "--data", str(data), "--out", str(out)]) == 0

    printed = capsys.readouterr().out
    assert sorted(path.name for path in out.glob("*.png")) == ["ingestion.png", "retrieval.png"]
    for name in ("memory", "prefix", "scale"):
        assert f"not drawn: {name}.png: no {name}.json in {data}" in printed
        assert f"docchat bench report --run {name}" in printed


def test_a_bare_json_output_of_a_bench_is_plotted_as_made_on_this_machine(tmp_path, capsys):
    data, out = tmp_path / "data", tmp_path / "perf"
    data.mkdir()
    (data / "retrieval-2000.json").write_text(json.dumps(_retrieval(2_000, 9.0)))

    assert main(["bench", "report", "--data", str(data), "--out", str(out)]) == 0

    assert (out / "retrieval.png").read_bytes().startswith(PNG_SIGNATURE)


def test_a_memory_run_without_per_length_figures_is_named_not_drawn(tmp_path, capsys):
    data, out = tmp_path / "data", tmp_path / "perf"
    _keep(data, "memory", "memory", {"docchat_p50_ms": 1.0, "baseline_p50_ms": 70.0})

    assert main(["bench", "report", "--data", str(data), "--out", str(out)]) == 0

    assert "not drawn: memory.png: memory.json has no per-length figures" in capsys.readouterr().out
    assert not (out / "memory.png").exists()
