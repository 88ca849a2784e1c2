"""Benchmarks for the tools, printed as ratios against baselines measured in the same run.

1. grep over a generated 50 000-file tree against ``grep -rn`` on the same tree (warm cache),
   for a literal pattern and for a regular expression.
2. inspect (and variables) on a 1e6-row DataFrame: seconds and bytes returned per data policy.

Run: python benchmarks/tools.py [--files 50000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from jupyter_agent import AbortController
from jupyter_agent.tools import coding_tools, kernel_tools

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


def best_of(runs: int, action) -> float:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return min(timings)


def grep_benchmark(files: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        size = make_tree(root, files)
        grep_tool = {tool.name: tool for tool in coding_tools(root)}["grep"]
        print(f"grep: {files} files, {size / 1e6:.1f} MB")
        for label, pattern, grep_flags in (("literal", "find_needle_here", ["-F"]), ("regex", r"def \w+_needle_\w+\(", ["-E"])):
            command = ["grep", "-rn", *grep_flags, pattern.replace(r"\w", "[[:alnum:]_]"), "."]
            subprocess.run(command, cwd=root, capture_output=True)  # warm the page cache
            baseline = best_of(3, lambda: subprocess.run(command, cwd=root, capture_output=True, check=True))
            args = grep_tool.parameters(pattern=pattern)
            hits = []

            def run_tool():
                content = asyncio.run(grep_tool.execute(args, AbortController().signal))
                hits.append(content[0].text.count("\n") + 1)

            ours = best_of(3, run_tool)
            expected = (files + 999) // 1000
            assert hits[-1] == expected, (hits[-1], expected)
            print(f"  {label:8s} grep -rn {baseline:6.3f} s | tool {ours:6.3f} s | ratio {ours / baseline:5.2f}x")


def inspect_benchmark() -> None:
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
    baseline = best_of(3, lambda: (frame.dtypes, frame.isna().sum(), frame.describe(), frame.head(5).to_string()))
    print(f"inspect: DataFrame {rows} rows × {frame.shape[1]} columns; baseline dtypes+isna+describe+head {baseline:.3f} s")
    for policy in ("schema", "sample", "full"):
        tools = {tool.name: tool for tool in kernel_tools(shell, data_policy=policy)}
        for name, args in (("inspect", {"name": "df"}), ("variables", {})):
            tool = tools[name]
            parsed = tool.parameters(**args)
            result = []
            seconds = best_of(3, lambda: result.append(asyncio.run(tool.execute(parsed, AbortController().signal))))
            size = len(result[-1][0].text.encode())
            print(f"  {policy:6s} {name:9s} {seconds:6.3f} s  {size:6d} bytes  ratio to baseline {seconds / baseline:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    options = parser.parse_args()
    if shutil.which("grep") is None:
        raise SystemExit("grep is not installed")
    grep_benchmark(options.files)
    inspect_benchmark()


if __name__ == "__main__":
    main()
