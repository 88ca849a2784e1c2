"""What the namespace diff adds to a ``python`` tool call, against the bare call in the same run.

A shell holds 200 user variables: a 1e6-row DataFrame (8 columns: ints, floats, strings,
categories), 1000-element arrays, small frames, lists, dicts, strings, numbers, functions and
modules. Each round times ``CALLS`` bare calls and ``CALLS`` watched calls (the notebook's
``NamespaceWatch``: fingerprints before and after, copies of named values, the undo history),
alternating one by one, and keeps the median of each; the added time is watched − bare. Rounds
are interleaved, and the figures are min–median–max over the rounds, wall clock and CPU.

Two calls: one that rebinds a small variable (``x_new = …``, the common case), and one that
changes the big DataFrame in place (``df['z'] = …``: the frame is fingerprinted and, being named,
copied for undo — a copy-on-write copy with pandas 3).

Target: ≤ 5 ms added at p50 for the first call.

Run: python benchmarks/namespace_diff.py [--rounds 7] [--calls 30]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Callable

from jupyter_agent import AbortController
from jupyter_agent.features.kernel_state import NamespaceHistory, NamespaceWatch
from jupyter_agent.tools.caps import DEFAULT_CAPS
from jupyter_agent.tools.python_tool import run_python

VARIABLES = 200


def make_shell() -> Any:
    import numpy as np
    import pandas as pd
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    rows = 1_000_000
    rng = np.random.default_rng(0)
    namespace: dict[str, Any] = {
        "df": pd.DataFrame(
            {
                "id": np.arange(rows),
                "a": rng.random(rows),
                "b": rng.random(rows),
                "c": rng.integers(0, 100, rows),
                "d": rng.random(rows),
                "name": np.array(["alpha", "beta", "gamma", "delta"] * (rows // 4)),
                "kind": pd.Categorical(["x", "y"] * (rows // 2)),
                "flag": rng.random(rows) > 0.5,
            }
        ),
        "np": np,
        "pd": pd,
    }
    makers: list[Callable[[int], Any]] = [
        lambda n: n,
        lambda n: n * 0.5,
        lambda n: f"text {n}",
        lambda n: list(range(n % 50)),
        lambda n: {"key": n, "values": [n, n + 1]},
        lambda n: np.arange(1000) * n,
        lambda n: pd.DataFrame({"v": range(20), "w": n}),
        lambda n: lambda x: x + n,
    ]
    while len(namespace) < VARIABLES:
        n = len(namespace)
        namespace[f"var{n}"] = makers[n % len(makers)](n)
    shell.user_ns.update(namespace)
    return shell


def make_watch(shell: Any) -> NamespaceWatch:
    steps = iter(range(1, 1 << 30))
    history = NamespaceHistory()

    def undo_entry() -> tuple[int, int]:
        seq = next(steps)
        return seq, seq

    return NamespaceWatch(shell.user_ns, history, undo_entry, hidden=shell.user_ns_hidden, transform=shell.transform_cell)


def timed(action: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def round_of(shell: Any, watch: NamespaceWatch, code: Callable[[int], str], calls: int) -> tuple[float, float]:
    """(added wall, added CPU) of one round: median watched − median bare, in seconds."""
    signal = AbortController().signal
    bare: list[tuple[float, float]] = []
    watched: list[tuple[float, float]] = []
    for n in range(calls):
        bare.append(timed(lambda: run_python(shell, code(n), signal, DEFAULT_CAPS)))
        watched.append(timed(lambda: run_python(shell, code(n), signal, DEFAULT_CAPS, watch=watch)))
    return (
        statistics.median(w for w, _ in watched) - statistics.median(w for w, _ in bare),
        statistics.median(c for _, c in watched) - statistics.median(c for _, c in bare),
    )


def spread(values: list[float]) -> str:
    ms = [value * 1000 for value in values]
    return f"{min(ms):6.2f} – {statistics.median(ms):6.2f} – {max(ms):6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=30)
    options = parser.parse_args()
    shell = make_shell()
    watch = make_watch(shell)
    calls = {
        "rebind a small variable": lambda n: f"x_new = {n}",
        "change the 1e6-row DataFrame in place": lambda n: f"df['z'] = {n}",
    }
    signal = AbortController().signal
    bare_wall = statistics.median(timed(lambda: run_python(shell, "x_new = 0", signal, DEFAULT_CAPS))[0] for _ in range(20))
    print(f"namespace diff: {VARIABLES} user variables incl. a 1e6-row × 8 DataFrame; bare call ≈ {bare_wall * 1000:.2f} ms")
    print(f"added per call at p50 (min – median – max over {options.rounds} interleaved rounds of {options.calls} calls)")
    results: dict[str, list[tuple[float, float]]] = {label: [] for label in calls}
    for _ in range(options.rounds):
        for label, code in calls.items():  # interleaved: every round measures both calls
            results[label].append(round_of(shell, watch, code, options.calls))
    for label, figures in results.items():
        print(f"  {label:40s} wall {spread([w for w, _ in figures])} | CPU {spread([c for _, c in figures])}")
    added = statistics.median(w for w, _ in results["rebind a small variable"]) * 1000
    print(f"target ≤ 5 ms added at p50: {'met' if added <= 5 else 'NOT met'} ({added:.2f} ms)")


if __name__ == "__main__":
    main()
