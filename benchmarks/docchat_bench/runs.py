"""A benchmark run as kept for the plots: its figures, the machine it ran on, and when.

A kept run is `{"bench", "machine", "date", "result"}`, where `result` is what the bench's
`--json` prints. A bare `--json` output is read too: it was written on the machine reading it
(the usual `docchat bench X --json > docs/perf/data/X.json`), on the day the file was last
changed. A figure measured on two shared cores means little without the machine, so each plot
names it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    bench: str
    machine: str
    date: str
    result: dict | list
    path: Path


def machine() -> str:
    """CPU model, cores and memory of this machine, e.g. "AMD EPYC, 2 cores, 23.5 GiB RAM"."""
    model = _cpu_model() or platform.processor() or platform.machine() or "unknown CPU"
    try:
        memory = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB RAM"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return f"{model}, {os.cpu_count()} cores{memory}"


def kept(bench: str, result: dict | list) -> dict:
    """A run as written to the data folder."""
    return {"bench": bench, "machine": machine(), "date": dt.date.today().isoformat(), "result": result}


def write(folder: Path, name: str, bench: str, result: dict | list) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(kept(bench, result), indent=1) + "\n")
    return path


def read(path: Path) -> Run:
    """A kept run, or a bare `--json` output taken as made here on the file's date."""
    data = json.loads(path.read_text())
    if isinstance(data, dict) and {"bench", "result"} <= set(data):
        return Run(data["bench"], data.get("machine") or "unknown machine", data.get("date") or _file_date(path),
                   data["result"], path)
    return Run(path.stem, machine(), _file_date(path), data, path)


def _file_date(path: Path) -> str:
    return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None
