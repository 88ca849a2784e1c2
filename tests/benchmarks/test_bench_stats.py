"""The benchmarks' shared figures: min–median–max lines, round-by-round ratios, verdicts, clocks."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import pytest

_PATH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_stats.py"
_SPEC = importlib.util.spec_from_file_location("bench_stats", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
bench_stats = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_stats)

# Burns CPU until its own process has used SECONDS of it, then reports that figure.
BURN = """
import sys, time
seconds = float(sys.argv[1])
while time.process_time() < seconds:
    sum(range(1000))
print(time.process_time(), flush=True)
if len(sys.argv) > 2:
    sys.stdin.readline()  # stays alive until told to end
"""


def test_spread_is_min_median_max_scaled():
    assert bench_stats.spread([0.003, 0.001, 0.002, 0.010], 1000) == "1.0–2.5–10.0"
    assert bench_stats.spread([1.23456], digits=3) == "1.235–1.235–1.235"


def test_ratios_pair_rounds_and_skip_zero_baselines():
    assert bench_stats.ratios([2.0, 3.0, 4.0], [1.0, 0.0, 2.0]) == [2.0, 2.0]


def test_row_prints_figure_baseline_and_ratio():
    line = bench_stats.row("turn", [0.002, 0.004, 0.006], [0.001, 0.002, 0.002])
    assert line == "turn: 2.0–4.0–6.0 ms, baseline 1.0–2.0–2.0 ms, ratio 2.00–2.00–3.00"


def test_row_says_when_the_baseline_is_below_the_clock():
    assert bench_stats.row("cpu", [0.01], [0.0], unit="s", scale=1.0) == (
        "cpu: 0.0–0.0–0.0 s, baseline 0.0–0.0–0.0 s, ratio n/a (baseline below the clock's resolution)"
    )


def test_verdict_judges_the_worst_round_not_the_median():
    line = bench_stats.verdict("ratio", [1.0, 1.1, 1.5], 1.3)
    assert line == "ratio: worst round 1.50 (median 1.10); target <= 1.30 in every round: OVER"
    assert bench_stats.verdict("ratio", [1.0, 1.1, 1.2], 1.3).endswith(": ok")


def test_verdict_of_a_strict_and_of_an_at_least_target():
    assert bench_stats.verdict("max", [0.09, 0.1], 0.1, "<", " ms", 1000, 0).endswith("target < 100 ms in every round: OVER")
    share = bench_stats.verdict("cached", [0.9, 0.79, 0.95], 0.8, ">=")
    assert share == "cached: worst round 0.79 (median 0.90); target >= 0.80 in every round: UNDER"


def test_verdict_refuses_an_unknown_comparison():
    with pytest.raises(ValueError, match=r"^op must be one of <=, <, >=, not '=='$"):
        bench_stats.verdict("x", [1.0], 1.0, "==")


def test_clock_counts_a_finished_child_only_when_asked():
    own, with_children = bench_stats.Clock(), bench_stats.Clock(children=True)
    done = subprocess.run([sys.executable, "-c", BURN, "0.3"], capture_output=True, text=True, timeout=120, check=True)
    child = float(done.stdout)
    _, own_cpu = own.elapsed()
    _, total_cpu = with_children.elapsed()
    assert total_cpu >= child * 0.95, (total_cpu, child)
    assert own_cpu < child / 2, (own_cpu, child)


def test_clock_counts_a_child_that_is_still_running():
    clock = bench_stats.Clock(children=True)
    child = subprocess.Popen(
        [sys.executable, "-c", BURN, "0.3", "stay"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        burned = float(child.stdout.readline())
        _, cpu = clock.elapsed()
        assert child.poll() is None  # still alive: read from /proc, at its 10 ms resolution
        assert cpu >= burned - 0.05, (cpu, burned)
    finally:
        child.kill()
        child.wait(timeout=30)


def test_quantile_is_the_nearest_rank():
    quantile = bench_stats.quantile
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert (quantile(values, 0.0), quantile(values, 0.5), quantile(values, 0.95), quantile(values, 1.0)) == (1.0, 3.0, 5.0, 5.0)
