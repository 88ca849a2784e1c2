"""Shared by the benchmarks: wall and CPU clocks, a kernel process's CPU time, min–median–max lines.

Every figure is printed as min–median–max over interleaved rounds, in wall time and in CPU time,
beside the baseline measured in the same run and the ratio of the two; a target is judged over
every round (``verdict``: the worst round), not a typical one.
"""

from __future__ import annotations

import os
import resource
import statistics
import time
from collections.abc import Sequence

from jupyter_agent.tools.process_tree import descendants

_TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (every thread), from /proc (10 ms resolution)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def children_cpu() -> float:
    """CPU seconds of this process's descendants: those still running (from /proc) plus the children
    it has waited for (``RUSAGE_CHILDREN``, which a child joins when it is reaped, with its own
    reaped children). A child that ends and is reaped between two readings moves from the first sum
    to the second, so a difference of two readings counts its CPU once. An ended child not yet
    reaped (a zombie) counts only once it is reaped."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = usage.ru_utime + usage.ru_stime
    for pid in descendants(os.getpid()):
        try:
            total += process_cpu(pid)
        except (OSError, IndexError):  # it ended between the listing and the reading
            pass
    return total


class Clock:
    """Wall and CPU time since it was made: CPU of this process (every thread), and with
    ``children=True`` also of its child processes (a tool's worker process, a ``grep`` run as the
    baseline), whose work is otherwise invisible to ``time.process_time``."""

    def __init__(self, children: bool = False) -> None:
        self._children = children
        self._children_cpu = children_cpu() if children else 0.0  # read before the clocks start: not timed
        self.cpu = time.process_time()
        self.wall = time.perf_counter()

    def elapsed(self) -> tuple[float, float]:
        """(wall seconds, CPU seconds) since the clock was made."""
        wall = time.perf_counter() - self.wall
        cpu = time.process_time() - self.cpu
        if self._children:
            cpu += children_cpu() - self._children_cpu
        return wall, cpu


def spread(values: Sequence[float], scale: float = 1.0, digits: int = 1) -> str:
    """``min–median–max`` of ``values`` times ``scale``."""
    low, mid, high = min(values) * scale, statistics.median(values) * scale, max(values) * scale
    return f"{low:.{digits}f}–{mid:.{digits}f}–{high:.{digits}f}"


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    """Round by round: each round's figure over the same round's baseline (0 baselines skipped)."""
    return [a / b for a, b in zip(numerators, denominators) if b > 0]


def row(
    label: str, values: Sequence[float], baseline: Sequence[float], unit: str = "ms", scale: float = 1000.0, digits: int = 1
) -> str:
    """One printed line: the figure, its baseline and their ratio, each as min–median–max."""
    quotients = ratios(values, baseline)
    ratio = spread(quotients, digits=2) if quotients else "n/a (baseline below the clock's resolution)"
    return f"{label}: {spread(values, scale, digits)} {unit}, baseline {spread(baseline, scale, digits)} {unit}, ratio {ratio}"


_COMPARE = {"<=": (max, float.__le__), "<": (max, float.__lt__), ">=": (min, float.__ge__)}


def verdict(
    label: str, values: Sequence[float], target: float, op: str = "<=", unit: str = "", scale: float = 1.0, digits: int = 2
) -> str:
    """``label`` judged over every round: the worst round (the highest for a ``<=``/``<`` target, the
    lowest for a ``>=`` one) against ``target``, with the median beside it."""
    if op not in _COMPARE:
        raise ValueError(f"op must be one of {', '.join(_COMPARE)}, not {op!r}")
    pick, holds = _COMPARE[op]
    worst = float(pick(values))
    mark = "ok" if holds(worst, float(target)) else "OVER" if op != ">=" else "UNDER"
    return (
        f"{label}: worst round {worst * scale:.{digits}f}{unit} (median {statistics.median(values) * scale:.{digits}f}{unit}); "
        f"target {op} {target * scale:.{digits}f}{unit} in every round: {mark}"
    )
