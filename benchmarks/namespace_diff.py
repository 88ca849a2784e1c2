"""What the namespace diff adds to a ``python`` tool call, against the bare call in the same run.

A shell holds 200 user variables: a 1e6-row DataFrame (8 columns: ints, floats, strings,
categories), 1000-element arrays, small frames, lists, dicts, strings, numbers, functions and
modules. Each round times ``CALLS`` bare calls and ``CALLS`` watched calls (the notebook's
``NamespaceWatch``: fingerprints before and after, copies of named values, the undo history),
alternating one by one, and keeps the median of each; the added time is watched − bare. Rounds
are interleaved (7 by default). Printed per call, each min–median–max over the rounds, in wall
and in CPU time: the bare call (the baseline), the watched call with its round-by-round ratio to
the bare one, and the added time.

Two calls: one that rebinds a small variable (``x_new = …``, the common case), and one that
changes the big DataFrame in place (``df['z'] = …``: the frame is fingerprinted and, being named,
copied for undo — a copy-on-write copy with pandas 3). Then the namespace grows to 10 000 live
names (numbers, strings, lists, dicts, small arrays and frames, functions) and the rebind is
measured again the same way.

Targets: ≤ 5 ms added at p50 for the rebind with 200 variables and with 10 000 names, each judged
on the worst round.

Run: python benchmarks/namespace_diff.py [--rounds 7] [--calls 30] [--names 10000]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
from typing import Any, Callable

from jupyter_agent import AbortController
from jupyter_agent.features.kernel_state import NamespaceHistory, NamespaceWatch
from jupyter_agent.tools.caps import DEFAULT_CAPS
from jupyter_agent.tools.python_tool import run_python

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, row, spread, verdict  # noqa: E402

VARIABLES = 200
TARGET = 0.005


def makers() -> list[Callable[[int], Any]]:
    import numpy as np
    import pandas as pd

    return [
        lambda n: n,
        lambda n: n * 0.5,
        lambda n: f"text {n}",
        lambda n: list(range(n % 50)),
        lambda n: {"key": n, "values": [n, n + 1]},
        lambda n: np.arange(1000) * n,
        lambda n: pd.DataFrame({"v": range(20), "w": n}),
        lambda n: lambda x: x + n,
    ]


def grow(shell: Any, names: int) -> None:
    """More user variables of the same kinds, up to ``names`` in the namespace."""
    kinds = makers()
    namespace = shell.user_ns
    n = len(namespace)
    while len(namespace) < names:
        namespace[f"more{n}"] = kinds[n % len(kinds)](n)
        n += 1


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
    kinds = makers()
    while len(namespace) < VARIABLES:
        n = len(namespace)
        namespace[f"var{n}"] = kinds[n % len(kinds)](n)
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
    clock = Clock()
    action()
    return clock.elapsed()


def round_of(shell: Any, watch: NamespaceWatch, code: Callable[[int], str], calls: int) -> dict[str, float]:
    """One round's medians, in seconds: the bare and the watched call, wall and CPU."""
    signal = AbortController().signal
    bare: list[tuple[float, float]] = []
    watched: list[tuple[float, float]] = []
    for n in range(calls):
        bare.append(timed(lambda: run_python(shell, code(n), signal, DEFAULT_CAPS)))
        watched.append(timed(lambda: run_python(shell, code(n), signal, DEFAULT_CAPS, watch=watch)))
    return {
        "bare wall": statistics.median(w for w, _ in bare),
        "bare CPU": statistics.median(c for _, c in bare),
        "watched wall": statistics.median(w for w, _ in watched),
        "watched CPU": statistics.median(c for _, c in watched),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--names", type=int, default=10_000)
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
    print(
        f"per call at p50, min–median–max over {options.rounds} interleaved rounds of {options.calls} calls; baseline the bare call"
    )
    results: dict[str, list[dict[str, float]]] = {label: [] for label in calls}
    for _ in range(options.rounds):
        for label, code in calls.items():  # interleaved: every round measures both calls
            results[label].append(round_of(shell, watch, code, options.calls))
    for label, figures in results.items():
        print(f"  {label}:")
        for kind in ("wall", "CPU"):
            watched, bare = [f[f"watched {kind}"] for f in figures], [f[f"bare {kind}"] for f in figures]
            added = [w - b for w, b in zip(watched, bare)]
            print(f"    {row(f'watched {kind}', watched, bare, digits=2)}; added {spread(added, 1000, 2)} ms")
    first = results["rebind a small variable"]
    print(
        verdict(
            "added at p50, rebind (wall)", [f["watched wall"] - f["bare wall"] for f in first], TARGET, unit=" ms", scale=1000
        )
    )
    grow(shell, options.names)
    user_names = sum(1 for name in shell.user_ns if not name.startswith("_"))
    print(f"  rebind a small variable with {len(shell.user_ns)} names in the namespace ({user_names} not starting with _):")
    many = [round_of(shell, watch, calls["rebind a small variable"], options.calls) for _ in range(options.rounds)]
    for kind in ("wall", "CPU"):
        watched, bare = [f[f"watched {kind}"] for f in many], [f[f"bare {kind}"] for f in many]
        added = [w - b for w, b in zip(watched, bare)]
        print(f"    {row(f'watched {kind}', watched, bare, digits=2)}; added {spread(added, 1000, 2)} ms")
    print(
        verdict(
            f"added at p50, rebind with {options.names} names (wall)",
            [f["watched wall"] - f["bare wall"] for f in many],
            TARGET,
            unit=" ms",
            scale=1000,
        )
    )


if __name__ == "__main__":
    main()
