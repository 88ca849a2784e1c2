"""Benchmarks for the tools, printed as ratios against baselines measured in the same run.

1. grep over a generated 50 000-file tree against ``grep -rn`` on the same tree (warm cache),
   for a literal pattern and for a regular expression.
2. inspect (and variables) on a 1e6-row DataFrame, per data policy, against what a user would type
   to see the same facts (dtypes, isna, describe, head); and the bytes each returns.

Baseline and tool interleaved, 5 rounds by default. Printed per case, each min–median–max over the
rounds: wall and CPU time of the tool and of the baseline, with their round-by-round ratio. CPU
includes child processes (the ``grep`` baseline, the grep tool's worker process).

Run: python benchmarks/tools.py [--files 50000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from jupyter_agent import AbortController
from jupyter_agent.tools import coding_tools, kernel_tools

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stats import Clock, row  # noqa: E402

WORDS = "alpha beta gamma delta value result index count total buffer record".split()


def make_tree(root: Path, files: int, per_folder: int = 100) -> int:
    """Python-like files of ~1 KB; one file in 1000 holds the needle. Returns total bytes."""
    rng = random.Random(7)
    total = 0
    for number in range(files):
        folder = root / f"pkg{number // per_folder:04d}"
        folder.mkdir(exist_ok=True)
        lines = [f"def {rng.choice(WORDS)}_{i}(x):\n    return x + {i}  # {rng.choice(WORDS)}\n" for i in range(12)]
        if number % 1000 == 0:
            lines.insert(5, "def find_needle_here(x):\n    return x\n")
        text = "".join(lines)
        (folder / f"mod{number % per_folder:03d}.py").write_text(text)
        total += len(text)
    return total


def measure(action: Callable[[], object]) -> tuple[float, float]:
    """(wall, CPU) of ``action``. The CPU includes child processes: the grep baseline is one (reaped
    by subprocess.run, so in RUSAGE_CHILDREN), and the grep tool searches in a worker process it
    keeps alive (read from /proc); time.process_time would count neither."""
    clock = Clock(children=True)
    action()
    return clock.elapsed()


def print_rows(label: str, ours: list[tuple[float, float]], base: list[tuple[float, float]], extra: str = "") -> None:
    print(f"  {row(label + ' wall', [w for w, _ in ours], [w for w, _ in base])}{extra}")
    print(f"  {row(label + ' CPU ', [c for _, c in ours], [c for _, c in base])}")


def grep_benchmark(files: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        size = make_tree(root, files)
        grep_tool = {tool.name: tool for tool in coding_tools(root)}["grep"]
        print(
            f"grep: {files} files, {size / 1e6:.1f} MB; {rounds} interleaved rounds, min–median–max, baseline grep -rn (warm cache)"
        )
        for label, pattern, grep_flags in (("literal", "find_needle_here", ["-F"]), ("regex", r"def \w+_needle_\w+\(", ["-E"])):
            command = ["grep", "-rn", *grep_flags, pattern.replace(r"\w", "[[:alnum:]_]"), "."]
            args = grep_tool.parameters(pattern=pattern)
            hits = []

            def run_tool():
                content = asyncio.run(grep_tool.execute(args, AbortController().signal))
                hits.append(content[0].text.count("\n") + 1)

            subprocess.run(command, cwd=root, capture_output=True)  # warm the page cache
            run_tool()  # and the tool's worker process
            base, ours = [], []
            for _ in range(rounds):
                base.append(measure(lambda: subprocess.run(command, cwd=root, capture_output=True, check=True)))
                ours.append(measure(run_tool))
            expected = (files + 999) // 1000
            assert hits[-1] == expected, (hits[-1], expected)
            print_rows(f"{label:8s}", ours, base)


def inspect_benchmark(rounds: int) -> None:
    import numpy as np
    import pandas as pd
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=config)
    rows = 1_000_000
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "id": np.arange(rows),
            "price": rng.random(rows) * 100,
            "quantity": rng.integers(0, 50, rows),
            "discount": np.where(rng.random(rows) < 0.1, np.nan, rng.random(rows)),
            "city": pd.Series(rng.choice(["Oslo", "Lima", "Pune", "Kyiv"], rows), dtype=object),
            "day": pd.date_range("2020-01-01", periods=rows, freq="min"),
        }
    )
    shell.user_ns["df"] = frame
    # Baseline: what a user would type to see the same facts.
    baseline = lambda: (frame.dtypes, frame.isna().sum(), frame.describe(), frame.head(5).to_string())  # noqa: E731
    cases = []
    for policy in ("schema", "sample", "full"):
        tools = {tool.name: tool for tool in kernel_tools(shell, data_policy=policy)}
        for name, args in (("inspect", {"name": "df"}), ("variables", {})):
            cases.append((f"{policy:6s} {name:9s}", tools[name], tools[name].parameters(**args), []))
    baseline()  # warm-up: first-call costs out of the timings
    for _, tool, parsed, _ in cases:
        asyncio.run(tool.execute(parsed, AbortController().signal))
    base: list[tuple[float, float]] = []
    timings: dict[str, list[tuple[float, float]]] = {label: [] for label, *_ in cases}
    for _ in range(rounds):
        base.append(measure(baseline))
        for label, tool, parsed, results in cases:
            timings[label].append(measure(lambda: results.append(asyncio.run(tool.execute(parsed, AbortController().signal)))))
    print(
        f"inspect: DataFrame {rows} rows × {frame.shape[1]} columns; {rounds} interleaved rounds, min–median–max, "
        "baseline dtypes+isna+describe+head"
    )
    for label, _, _, results in cases:
        size = len(results[-1][0].text.encode())
        print_rows(label, timings[label], base, f"; {size} bytes returned")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    if shutil.which("grep") is None:
        raise SystemExit("grep is not installed")
    grep_benchmark(options.files, options.rounds)
    inspect_benchmark(options.rounds)


if __name__ == "__main__":
    main()
