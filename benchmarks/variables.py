"""A big namespace: the ``variables`` tool with 10 000 live names, in a real kernel.

The kernel's namespace holds 10 000 user names (numbers, strings, lists, dicts, numpy arrays, a
DataFrame every fiftieth, functions), the way a long notebook session and a few ``exec``-made
tables leave it. Each round runs, in the kernel, the ``variables`` tool as the agent calls it (its
``execute``, on the kernel's loop) and IPython's own listing of the same namespace, ``%whos``
(output discarded) as the baseline, alternating. Printed: min–median–max of wall and CPU time over
the rounds (≥ 5), the ratio round by round; target: the tool ≤ 50 ms, judged on the worst round.

    python benchmarks/variables.py [--names 10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import row, verdict  # noqa: E402
from kernel_harness import KernelHarness  # noqa: E402

TARGET = 0.050  # s

FILL = """
import numpy as np, pandas as pd
def _value(index):
    kind = index % 7
    if index % 50 == 0:
        return pd.DataFrame({{"a": range(100), "b": [str(i) for i in range(100)]}})
    return (index, index * 0.5, f"text {{index}}", list(range(20)), {{"k": index}}, np.arange(50), lambda: index)[kind]
for _index in range({names}):
    globals()[f"v{{_index}}"] = _value(_index)
del _index
"""

SETUP = """
import asyncio, contextlib, io, time
from jupyter_agent.loop import AbortController
from jupyter_agent.tools.caps import OutputCaps
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.variables import VariablesArgs, variables_tool
_tool = variables_tool(get_ipython(), DataPolicy("full", 5), OutputCaps())

def _timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu

async def _run_tool():
    wall, cpu = time.perf_counter(), time.process_time()
    blocks = await _tool.execute(VariablesArgs(), AbortController().signal)
    _last[:] = [time.perf_counter() - wall, time.process_time() - cpu, len(blocks[0].text)]
_last = []

def _whos():
    with contextlib.redirect_stdout(io.StringIO()):
        get_ipython().run_line_magic("whos", "")
"""


def main(names: int, rounds: int) -> None:
    tool, whos = [], []
    with tempfile.TemporaryDirectory() as tmp:
        h = KernelHarness(cwd=tmp).start()
        try:
            h.execute(FILL.format(names=names), timeout=300)
            h.execute(SETUP)
            count = int(h.evaluate("len(get_ipython().user_ns)"))
            for index in range(rounds + 1):  # the first round warms up and is not counted
                h.execute("await _run_tool()")
                timed = tuple(float(x) for x in h.evaluate("_last[:2]").strip("[]").split(","))
                baseline = tuple(float(x) for x in h.evaluate("_timed(_whos)").strip("()").split(","))
                if index:
                    tool.append(timed)
                    whos.append(baseline)
            listed = h.evaluate("_last[2]")
        finally:
            h.shutdown()
    print(f"== variables with {names} user names ({count} in the namespace), {rounds} interleaved rounds, real kernel ==")
    print(f"(the listing: {listed} characters)")
    for label, index in (("wall", 0), ("CPU", 1)):
        print(row(f"variables tool, {label} (baseline: %whos)", [t[index] for t in tool], [w[index] for w in whos]))
    print(verdict("variables tool, wall", [t[0] for t in tool], TARGET, unit=" ms", scale=1000, digits=1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--names", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    main(options.names, options.rounds)
