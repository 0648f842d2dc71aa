"""Shared arithmetic of the benchmarks."""

from __future__ import annotations

import statistics


def p50_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
