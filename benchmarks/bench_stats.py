"""Shared by the benchmarks: wall and CPU clocks, a kernel process's CPU time, min–median–max lines.

Every figure is printed as min–median–max over interleaved rounds, in wall time and in CPU time,
beside the baseline measured in the same run and the ratio of the two.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Sequence

_TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (every thread), from /proc (10 ms resolution)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


class Clock:
    """Wall and CPU time of this process since it was made."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def spread(values: Sequence[float], scale: float = 1.0, digits: int = 1) -> str:
    """``min–median–max`` of ``values`` times ``scale``."""
    low, mid, high = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{low:.{digits}f}–{mid:.{digits}f}–{high:.{digits}f}"


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Round by round: each round's figure over the same round's baseline (0 baselines skipped)."""
    return [a / b for a, b in zip(numerators, denominators) if b > 0]


def row(label: str, values: Sequence[float], baseline: Sequence[float], unit: str = "ms", scale: float = 1000.0) -> str:
    """One printed line: the figure, its baseline and their ratio, each as min–median–max."""
    quotients = ratios(values, baseline)
    ratio = spread(quotients, digits=2) if quotients else "n/a (baseline below the clock's resolution)"
    return f"{label}: {spread(values, scale)} {unit}, baseline {spread(baseline, scale)} {unit}, ratio {ratio}"
