"""What the privacy gate adds to a ``python`` call printing 100 KB, against the ungated call in the same run.

The code prints 100 KB (2 000 lines of 50 characters, the last one holding a secret); a second
case also returns a 1000-row DataFrame (its structure, or its sample rows, are formatted too). The
baseline is the call as it was before the gate: ``data_policy`` ``full``
and no boundary gate. Each gated arm is the same call under a policy, then the boundary gate on its
result message (secret redaction and the policy check, as every request and every ``%agent serve``
result gets; a fresh message each call, so its cache never hides the work). Each round times
``CALLS`` calls of every arm, alternating one by one, and keeps each arm's median; rounds are
interleaved (7 by default). Printed per arm, min–median–max over the rounds, in wall and CPU time:
the arm, its baseline and their ratio, and the added time.

Target (issue 28): ≤ 5 ms added at p50 on a 100 KB output, judged on the worst round, for every
policy, in wall time and in CPU time (on a loaded machine the CPU figure is the one to trust: wall
time then includes waiting for a core).

Run: python benchmarks/privacy_gate.py [--rounds 7] [--calls 20]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
from typing import Any, Callable

from jupyter_agent import AbortController
from jupyter_agent.loop.execute_tool import normalize_output
from jupyter_agent.messages import ToolResultMessage
from jupyter_agent.runtime.privacy import PrivacyGate
from jupyter_agent.tools.caps import DEFAULT_CAPS
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.python_tool import run_python

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, row, spread, verdict  # noqa: E402

TARGET = 0.005
SECRET = "sk-bench-0123456789abcdefghij"
PRINTS = "for n in range(2000):\n    print(f'{n:>8} ' + 'x' * 41)\nprint(BENCH_KEY)"
CASES = {"100 KB printed": PRINTS, "100 KB printed and a 1000-row DataFrame as the value": PRINTS + "\nframe"}


def make_shell() -> Any:
    import pandas as pd
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    shell.user_ns.update(frame=pd.DataFrame({"name": ["alpha"] * 1000, "v": range(1000)}), BENCH_KEY=SECRET)
    return shell


def call(shell: Any, code: str, policy: DataPolicy | None, gate: PrivacyGate | None) -> None:
    """One call as a turn makes it: the tool's result, then (gated) the boundary's copy of it."""
    signal = AbortController().signal
    try:
        output = run_python(shell, code, signal, DEFAULT_CAPS, policy=policy or DataPolicy("full"))
        content, details = normalize_output(output)
    except ToolError as error:
        raise SystemExit(f"the benchmark's code failed: {error}") from None
    if gate is not None:
        message = ToolResultMessage(tool_call_id="c", tool_name="python", content=content, details=details)
        gated = gate.result(message)
        assert SECRET not in gated.content[0].text


def timed(action: Callable[[], Any]) -> tuple[float, float]:
    clock = Clock()
    action()
    return clock.elapsed()


def measure(shell: Any, code: str, rounds: int, calls: int) -> dict[str, list[tuple[float, float]]]:
    """Each arm's (wall, CPU) median per round, the arms alternating call by call."""
    arms: dict[str, Callable[[], None]] = {"baseline": lambda: call(shell, code, None, None)}
    for mode in ("schema", "sample", "full"):
        gate = PrivacyGate(mode, value_tools=("python",))
        arms[mode] = lambda mode=mode, gate=gate: call(shell, code, DataPolicy(mode), gate)
    for arm in arms.values():
        arm()  # warm-up: imports, formatter caches
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
    for _ in range(rounds):
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in arms}
        for _ in range(calls):
            for name, arm in arms.items():
                samples[name].append(timed(arm))
        for name, values in samples.items():
            figures[name].append((statistics.median(w for w, _ in values), statistics.median(c for _, c in values)))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    options = parser.parse_args()
    os.environ["BENCH_API_KEY"] = SECRET  # a secret the gate must find, as a provider key in the environment
    shell = make_shell()
    print("privacy gate: a python call printing 100 KB (2 000 lines of 50 characters), against the same call ungated")
    print(f"per call at p50, min–median–max over {options.rounds} interleaved rounds of {options.calls} calls of each arm")
    verdicts = []
    for case, code in CASES.items():
        figures = measure(shell, code, options.rounds, options.calls)
        base_wall = [wall for wall, _ in figures["baseline"]]
        base_cpu = [cpu for _, cpu in figures["baseline"]]
        print(
            f"{case}: baseline (data_policy full, no gate) wall {spread(base_wall, 1000, 2)} ms, CPU {spread(base_cpu, 1000, 2)} ms"
        )
        for name in ("schema", "sample", "full"):
            wall = [w for w, _ in figures[name]]
            cpu = [c for _, c in figures[name]]
            added_wall = [w - b for w, b in zip(wall, base_wall)]
            added_cpu = [c - b for c, b in zip(cpu, base_cpu)]
            print(f"  {name}:")
            print(f"    {row('wall', wall, base_wall, digits=2)}; added {spread(added_wall, 1000, 2)} ms")
            print(f"    {row('CPU', cpu, base_cpu, digits=2)}; added {spread(added_cpu, 1000, 2)} ms")
            if case == "100 KB printed":
                verdicts.append(verdict(f"added at p50, {name}, wall", added_wall, TARGET, unit=" ms", scale=1000))
                verdicts.append(verdict(f"added at p50, {name}, CPU", added_cpu, TARGET, unit=" ms", scale=1000))
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
