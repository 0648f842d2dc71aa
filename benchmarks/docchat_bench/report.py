"""`docchat bench report`: the benchmarks' figures as PNG plots, from their JSON.

Reads a folder of kept runs (`docs/perf/data/` by default, see `runs.py`) and draws what is
there; a plot whose input is missing is named with the command that makes it, never drawn
from made-up figures. Each plot names the machine and the date of the runs it shows, since a
latency on two shared cores says little without them. `--run` runs the cheap benches first
and keeps their JSON beside the others, so that every plot can be drawn again from the files.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from docchat_bench import runs
from docchat_bench.runs import Run

DATA = Path("docs/perf/data")
OUT = Path("docs/perf")
RETRIEVAL_MODES = {"all": "every document", "scoped_5": "scoped to 5 documents", "scoped_25": "scoped to 25 documents"}
# The targets for retrieval: p95 <= 50 ms at 10K chunks, and <= 20 ms for the worst case.
RETRIEVAL_TARGETS = (50, 20)
MEMORIES = {"docchat": "docchat", "chat_memory_buffer": "LlamaIndex ChatMemoryBuffer", "memory": "LlamaIndex Memory"}


@dataclass(frozen=True)
class Plot:
    name: str
    inputs: tuple[str, ...]
    how: str
    draw: Callable


@dataclass
class Report:
    written: list[Path]
    missing: dict[str, str]


def run_report(*, data: Path = DATA, out: Path = OUT, run: tuple[str, ...] = ()) -> Report:
    """Runs the benches named in `run` (kept in `data`), then draws every plot it has input for."""
    for bench in run:
        _RUNNERS[bench](data)
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    written, missing = [], {}
    for plot in PLOTS:
        found = sorted({path for pattern in plot.inputs for path in data.glob(pattern)}) if data.is_dir() else []
        kept = [runs.read(path) for path in found]
        path = out / f"{plot.name}.png"
        reason = plot.draw(kept, path) if kept else f"no {' or '.join(plot.inputs)} in {data}"
        if reason:
            missing[plot.name] = f"{reason} (make it with: {plot.how})"
        else:
            written.append(path)
    return Report(written, missing)


def print_report(report: Report) -> None:
    for path in report.written:
        print(f"wrote {path}")
    for name, reason in report.missing.items():
        print(f"not drawn: {name}.png: {reason}")


# The plots. Each returns None once it has written its file, or why it could not.

def _memory(kept: list[Run], path: Path) -> str | None:
    run = kept[-1]
    rows = run.result.get("lengths") if isinstance(run.result, dict) else None
    if not rows:
        return f"{run.path.name} has no per-length figures (an older `bench memory`)"
    figure, axes = _figure()
    tokens = [row["history_tokens"] / 1000 for row in rows]
    for key, label in MEMORIES.items():
        if f"{key}_ms_p50" not in rows[0]:
            continue
        line, = axes.plot(tokens, [row[f"{key}_ms_p50"] for row in rows], marker="o", label=f"{label}, p50")
        axes.plot(tokens, [row[f"{key}_ms_p95"] for row in rows], linestyle="--", color=line.get_color(),
                  alpha=0.6, label=f"{label}, p95")
    axes.set_yscale("log")
    axes.set_xlabel("conversation history (thousand Qwen3 tokens)")
    axes.set_ylabel("ms per turn (append + build the prompt window)")
    axes.set_title("Memory cost of a turn against history length")
    axes.legend(fontsize=8)
    _save(figure, path, kept, f"{run.result.get('turns', '?')} turns at each length, "
                              f"window budget {run.result.get('budget', 0):,} tokens")
    return None


def _prefix(kept: list[Run], path: Path) -> str | None:
    run = kept[-1]
    turns = run.result.get("turns") if isinstance(run.result, dict) else None
    if not isinstance(turns, list) or not turns:
        return f"{run.path.name} has no per-turn figures (`bench prefix --json` keeps totals only)"
    figure, axes = _figure()
    numbers = [turn["turn"] for turn in turns]
    for layout, label in (("docchat", "docchat (context in the user turn)"),
                          ("baseline", "baseline (context in the system prompt)")):
        axes.plot(numbers, [turn[f"{layout}_hit_ratio"] for turn in turns], marker="o", markersize=3,
                  label=f"{label}: {run.result.get(f'{layout}_hit_ratio', 0):.0%} overall")
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("turn")
    axes.set_ylabel("prompt tokens served from vLLM's prefix cache")
    axes.yaxis.set_major_formatter(_percent())
    axes.set_title("Prefix-cache hit ratio per turn")
    axes.legend(fontsize=8, loc="lower right")
    _save(figure, path, kept, f"model {run.result.get('model', '?')}")
    return None


def _retrieval(kept: list[Run], path: Path) -> str | None:
    results = sorted((r for run in kept for r in _listed(run.result) if "chunks" in r), key=lambda r: r["chunks"])
    if not results:
        return "no run with a chunk count"
    import matplotlib.pyplot as plt

    figure, panes = plt.subplots(1, 2, figsize=(12, 5.6), sharey=True)
    sizes = [r["chunks"] for r in results]
    # Wall time carries whatever else the cores were doing; the process's CPU time much less.
    for axes, clock, shown in ((panes[0], "", "wall"), (panes[1], "cpu_", "CPU time of the process")):
        for mode, label in RETRIEVAL_MODES.items():
            if not all(f"{mode}_{clock}p50_ms" in r for r in results):
                continue
            line, = axes.plot(sizes, [r[f"{mode}_{clock}p50_ms"] for r in results], marker="o", label=f"{label}, p50")
            axes.plot(sizes, [r[f"{mode}_{clock}p95_ms"] for r in results], marker="^", linestyle="--",
                      color=line.get_color(), alpha=0.7, label=f"{label}, p95")
        for target in RETRIEVAL_TARGETS:
            axes.axhline(target, color="grey", linewidth=0.8, linestyle=":")
            axes.annotate(f"{target} ms", (sizes[0], target), fontsize=7, color="grey", va="bottom")
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xticks(sizes, [f"{n:,}" for n in sizes], fontsize=7)
        axes.minorticks_off()
        axes.grid(True, alpha=0.3)
        axes.set_xlabel("chunks in the index")
        axes.set_title(shown, fontsize=10)
        if axes.get_legend_handles_labels()[0]:
            axes.legend(fontsize=7)
        else:
            axes.text(0.5, 0.5, "not in these runs", transform=axes.transAxes, ha="center", color="grey")
    panes[0].set_ylabel("ms per question, top 10 passages (query embedding apart)")
    figure.suptitle("Hybrid retrieval latency against index size")
    loads = "; ".join(f"{r['chunks']:,}: {r['load_average'][0]} -> {r['load_average'][1]}"
                      for r in results if r.get("load_average"))
    _save(figure, path, kept, "Qdrant local mode + SQLite FTS5, fused by RRF; past 10,000 chunks, stand-in vectors"
          + (f"; load average during each run {loads}" if loads else ""))
    return None


def _ingestion(kept: list[Run], path: Path) -> str | None:
    bars = []  # (label, chunks per second, what the bar says, colour)
    results = [result for run in kept for result in _listed(run.result)]
    for result in results:
        for corpus, shown in (("long", "one long document"), ("small", "small files")):
            for way, colour in (("before", "tab:orange"), ("after", "tab:green")):
                figures = (result.get(way) or {}).get(corpus)
                if not figures:
                    continue
                said = f"{_rate(figures['chunks_per_s'])} chunks/s"
                if corpus == "small":
                    said += f", {_rate(figures['files_per_s'])} files/s"
                bars.append((f"bench ingest, {shown}, {way}\n{figures['files']:,} file(s), {figures['chunks']:,} "
                             f"chunks, load {figures.get('load', '?')}", figures["chunks_per_s"], said, colour))
    for result in sorted((r for r in results if "ingest_chunks_per_s" in r), key=lambda r: r.get("chunks", 0)):
        embedded = result.get("embedded_chunks", result.get("chunks", 0))
        loads = result.get("load_average")
        load = f", load {loads[0]} -> {loads[1]}" if loads else ""
        bars.append((f"bench retrieval, {embedded:,} Markdown chunks\nembedded{load}",
                     result["ingest_chunks_per_s"], f"{_rate(result['ingest_chunks_per_s'])} chunks/s", "tab:gray"))
    if not bars:
        return "no ingestion figures in the runs"
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(10, 0.55 * len(bars) + 1.8))
    axes = figure.add_subplot()
    axes.grid(True, axis="x", alpha=0.3)
    places = range(len(bars))[::-1]
    shown = axes.barh(places, [value for _, value, _, _ in bars], color=[c for _, _, _, c in bars])
    axes.bar_label(shown, labels=[said for _, _, said, _ in bars], fontsize=8, padding=3)
    axes.set_yticks(places, [label for label, _, _, _ in bars], fontsize=7)
    axes.set_xlabel("chunks per second (parse, chunk, embed, index)")
    axes.set_title("Ingestion throughput")
    axes.margins(x=0.2)
    _save(figure, path, kept, "MiniLM embeddings on ONNX Runtime, Qdrant local mode, SQLite; "
          "bench ingest: before = file by file, runs of 32 texts; after = shared batches, "
          "runs of <= 256 word pieces (the same float model)")
    return None


def _scale(kept: list[Run], path: Path) -> str | None:
    run = kept[-1]
    figures = run.result.get("figures") if isinstance(run.result, dict) else None
    if not figures:
        return f"{run.path.name} has no figures"
    sizes = run.result.get("sizes") or {}
    whats = _scale_rows()
    rows = []
    for key, figure in figures.items():
        unit = figure.get("unit", "")
        first = figure.get("p50", figure.get("value"))
        target = figure.get("target")
        rows.append([_described(whats.get(key, key), sizes, key),
                     f"{first:g} {unit}" if first is not None else "",
                     f"{figure['p95']:g} {unit}" if "p95" in figure else "",
                     f"<= {target:g} {unit}" if target is not None else "-",
                     {True: "met", False: "MISSED", None: ""}[figure.get("met")]])
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(11, 0.27 * len(rows) + 1.3))
    axes = figure.add_subplot()
    axes.axis("off")
    table = axes.table(cellText=rows, colLabels=["", "p50 / once", "p95", "target", ""], bbox=(0, 0, 1, 1),
                       cellLoc="left", colLoc="left", colWidths=[0.62, 0.1, 0.1, 0.1, 0.08])
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    for (row, column), cell in table.get_celld().items():
        cell.set_edgecolor("#dddddd")
        if row and column == 4:
            cell.set_text_props(color={"met": "tab:green", "MISSED": "tab:red"}.get(rows[row - 1][4], "black"))
    axes.set_title("The store at scale: what the page and the CLI meet")
    _save(figure, path, kept, "SQLite, through the services the page, the CLI and the API call")
    return None


PLOTS = (
    Plot("memory", ("memory.json",), "docchat bench report --run memory", _memory),
    Plot("prefix", ("prefix.json",), "docchat bench report --run prefix, with the LLM server up", _prefix),
    Plot("retrieval", ("retrieval*.json",),
         "docchat bench retrieval --chunks N --json > docs/perf/data/retrieval-N.json", _retrieval),
    Plot("ingestion", ("ingest*.json", "retrieval*.json"),
         "docchat bench report --run ingest", _ingestion),
    Plot("scale", ("scale.json",), "docchat bench report --run scale", _scale),
)


# Running the benches that `--run` names.

def _quietly(call):
    with contextlib.redirect_stdout(io.StringIO()):
        return call()


def _run_memory(data: Path) -> None:
    from docchat_bench.memory import run_memory_bench

    runs.write(data, "memory", "memory", _quietly(lambda: run_memory_bench(as_json=True)))


def _run_prefix(data: Path) -> None:
    from docchat_bench.prefix_turns import run_prefix_turns

    runs.write(data, "prefix", "prefix", run_prefix_turns())


def _run_retrieval(data: Path) -> None:
    from docchat_bench.retrieval import CHUNKS, run_retrieval_bench

    runs.write(data, f"retrieval-{CHUNKS}", "retrieval", _quietly(lambda: run_retrieval_bench(as_json=True)))


def _run_ingest(data: Path) -> None:
    from docchat_bench.ingest import run_ingest_bench

    runs.write(data, "ingest", "ingest", _quietly(lambda: run_ingest_bench(as_json=True)))


def _run_scale(data: Path) -> None:
    from docchat_bench.scale import run_scale_bench

    runs.write(data, "scale", "scale", _quietly(lambda: run_scale_bench(as_json=True)))


_RUNNERS = {"memory": _run_memory, "prefix": _run_prefix, "retrieval": _run_retrieval, "ingest": _run_ingest,
            "scale": _run_scale}


# Drawing.

def _figure():
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(9, 5.4))
    axes = figure.add_subplot()
    axes.grid(True, which="major", alpha=0.3)
    return figure, axes


def _save(figure, path: Path, kept: list[Run], note: str) -> None:
    import matplotlib.pyplot as plt

    machines = " | ".join(dict.fromkeys(run.machine for run in kept))
    dates = ", ".join(sorted(set(run.date for run in kept)))
    files = ", ".join(run.path.name for run in kept)
    figure.text(0.01, 0.01, f"{note}\n{machines}; run {dates}; from {files}", fontsize=7, color="#555555",
                va="bottom")
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _percent():
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0)


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def _listed(result) -> list[dict]:
    return [r for r in (result if isinstance(result, list) else [result]) if isinstance(r, dict)]


def _scale_rows() -> dict[str, str]:
    from docchat_bench.scale import ROWS

    return {row.key: row.what for row in ROWS}


def _described(what: str, sizes: dict, key: str) -> str:
    try:
        return what.format(**sizes).strip()
    except (KeyError, ValueError):
        # A row of a newer `bench scale` naming a size this run did not record.
        return key
