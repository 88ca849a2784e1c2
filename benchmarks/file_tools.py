"""Benchmarks for read and edit on large files, as ratios against baselines of the same run.

1. read of a one-line file (default 200 MB) against ``wc -l`` on the same file, and the peak RSS
   the read adds to a process that only imported the tools, against the file size.
2. edit of one line in a source-like file (default 20 MB) against ``cp`` of the file, and the peak
   RSS the edit adds, against the file size.

Each measurement runs in a fresh process (peak RSS is per process), baseline and tool interleaved,
5 rounds by default. Printed per operation, each min–median–max over the rounds: wall and CPU time
of the tool and of the baseline with their round-by-round ratio, and added RSS / file size. The
tool's times are taken inside its process around the call (interpreter start and imports apart);
the baseline's are the whole ``wc``/``cp`` process, its CPU that child's own.

Run: python benchmarks/file_tools.py [--read-mb 200] [--edit-mb 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stats import Clock, row, spread  # noqa: E402

CHILD = """
import asyncio, json, resource, sys, time
from jupyter_agent import AbortController, ToolCall
from jupyter_agent.loop.execute_tool import execute_tool
from jupyter_agent.tools import coding_tools

workspace, action = sys.argv[1], sys.argv[2]
tools = {tool.name: tool for tool in coding_tools(workspace)}
signal = AbortController().signal

def call(name, **arguments):
    result = asyncio.run(execute_tool(ToolCall(id="c", name=name, arguments=arguments), tools, signal))
    assert not result.is_error, result.content[0].text[:300]

if action == "edit":
    call("read", path="file.txt", limit=1)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
# process_time: this whole process's CPU, the threads the tool reads with included.
started, cpu = time.perf_counter(), time.process_time()
if action == "read":
    call("read", path="file.txt")
else:
    call("edit", path="file.txt", old_text="TARGET = 1", new_text="TARGET = 2")
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "added_rss": max(after - before, 0)}))
"""


def run_child(folder: Path, action: str) -> dict:
    output = subprocess.run([sys.executable, "-c", CHILD, str(folder), action], capture_output=True, text=True, check=True)
    return json.loads(output.stdout)


def timed(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) of the baseline command. Its CPU is the child's own: subprocess.run reaps it
    before returning, so it is in this process's RUSAGE_CHILDREN, which Clock(children=True) reads;
    time.process_time would see none of it."""
    clock = Clock(children=True)
    subprocess.run(command, capture_output=True, check=True)
    return clock.elapsed()


def measure(label: str, folder: Path, action: str, baseline: list[str], rounds: int) -> None:
    size = (folder / "file.txt").stat().st_size
    base, ours, memory = [], [], []
    for _ in range(rounds):
        base.append(timed(baseline))
        result = run_child(folder, action)
        if action == "edit":  # put the target back for the next round (it is in the last 50 KB)
            with open(folder / "file.txt", "r+b") as handle:
                handle.seek(-60_000, 2)
                tail = handle.read()
                handle.seek(-60_000, 2)
                handle.write(tail.replace(b"TARGET = 2", b"TARGET = 1"))
        ours.append((result["seconds"], result["cpu"]))
        memory.append(result["added_rss"] / size)
    print(f"{label} ({size / 1e6:.0f} MB), {rounds} interleaved rounds, min–median–max; baseline {baseline[0]}")
    print(row("  wall", [wall for wall, _ in ours], [wall for wall, _ in base]))
    print(row("  CPU ", [cpu for _, cpu in ours], [cpu for _, cpu in base]))
    print(f"  added RSS / file size: {spread(memory, digits=2)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--read-mb", type=int, default=200)
    parser.add_argument("--edit-mb", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        # Written in pieces: a child's peak RSS starts at its parent's at fork time.
        with open(folder / "file.txt", "wb") as handle:
            for _ in range(options.read_mb):
                handle.write(b"x" * 1_000_000)
            handle.write(b"\n")
        measure("read, one line", folder, "read", ["wc", "-l", str(folder / "file.txt")], options.rounds)
        line = "value = compute(alpha, beta)  # a line of source\n"
        with open(folder / "file.txt", "w") as handle:
            for _ in range(options.edit_mb):
                handle.write(line * (1_000_000 // len(line)))
            handle.write("TARGET = 1\n" + line * 1000)
        measure("edit, one line", folder, "edit", ["cp", str(folder / "file.txt"), str(folder / "copy.txt")], options.rounds)


if __name__ == "__main__":
    main()
