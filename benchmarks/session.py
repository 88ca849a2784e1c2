"""Session store: append cost must not grow with the file; loading 10 000 messages stays fast.

Prints the ratio of the time taken by the last 1 000 of 10 000 appends to the first 1 000
(target <= 1.5) and the time to load the 10 000-message session and build its model view
(target <= 0.5 s on the project's 2-core machine).

The figure is taken with the cyclic garbage collector running, as in a notebook: a full
collection scans every live object of the process, so the collections an append triggers are
part of its cost. The ratio with the collector paused (as ``timeit`` times) is printed beside it,
with the median append of each window, which single pauses do not move. Rounds alternate (≥ 5);
every figure is min–median–max over them, wall and CPU; the targets are judged on the worst round.

    python benchmarks/session.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stats import spread, verdict  # noqa: E402

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.session import SessionStore

MESSAGES = 10_000
WINDOW = 1_000
RATIO_TARGET = 1.5
LOAD_TARGET_S = 0.5


def conversation(count: int, model: str = "bench") -> list:
    """A realistic mix: a prompt, an assistant tool call, its result, repeated (the calls by ``model``)."""
    messages = []
    for index in range(count):
        kind = index % 3
        if kind == 0:
            messages.append(UserMessage(content=f"Plot column {index} of df against time and describe the trend."))
        elif kind == 1:
            code = f"ax = df.plot(x='time', y='c{index}')\nax.set_title('column {index}')\n"
            call = ToolCall(id=f"call_{index}", name="python", arguments={"code": code})
            messages.append(AssistantMessage(content=[TextContent(text="Let me plot that."), call], model=model))
        else:
            result = f"<Axes: title={{'center': 'column {index}'}}>\nmean={index * 0.5:.2f}"
            content = [TextContent(text=result)]
            messages.append(ToolResultMessage(tool_call_id=f"call_{index - 1}", tool_name="python", content=content))
    return messages


def measure_appends(path: Path, messages: list, *, collect_garbage: bool) -> tuple[list[float], float, tuple[float, float]]:
    """Each append's wall time, the CPU time of all of them, and that of the first and last ``WINDOW``."""
    durations = []
    store = SessionStore(path)
    if not collect_garbage:
        gc.disable()
    marks = {0, WINDOW, len(messages) - WINDOW}  # CPU read at the windows' edges only: a read is a system call
    cpu_at: dict[int, float] = {}
    cpu = time.process_time()
    try:
        for index, message in enumerate(messages):
            if index in marks:
                cpu_at[index] = time.process_time()
            started = time.perf_counter()
            store.append(message)
            durations.append(time.perf_counter() - started)
    finally:
        cpu_at[len(messages)] = time.process_time()
        cpu = cpu_at[len(messages)] - cpu
        gc.enable()
    store.sync()
    store.close()
    if len(messages) < 2 * WINDOW:  # a warm-up: no windows to compare
        return durations, cpu, (0.0, 0.0)
    first = cpu_at[WINDOW] - cpu_at[0]
    last = cpu_at[len(messages)] - cpu_at[len(messages) - WINDOW]
    return durations, cpu, (first, last)


def windows(durations: list[float]) -> tuple[float, float]:
    return sum(durations[:WINDOW]), sum(durations[-WINDOW:])


def measure_load(path: Path) -> tuple[float, float]:
    """(wall, CPU) of loading the session and building its model view."""
    wall, cpu = time.perf_counter(), time.process_time()
    store = SessionStore(path, read_only=True)
    store.messages()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert len(store.history()) == MESSAGES
    return wall, cpu


def main(rounds: int) -> None:
    messages = conversation(MESSAGES)
    with_gc, paused, loads = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        # Warm up (first serializations, imports) so the first window measures appends only.
        measure_appends(Path(folder) / "warmup.jsonl", messages[:500], collect_garbage=True)
        for index in range(rounds):
            path = Path(folder) / f"round{index}.agent" / "main.jsonl"
            with_gc.append(measure_appends(path, messages, collect_garbage=True))
            paused.append(measure_appends(Path(folder) / f"paused{index}.jsonl", messages, collect_garbage=False))
            loads.append(measure_load(path))
        size_mb = path.stat().st_size / 1e6
    ratio = [last / first for first, last in (windows(d) for d, _, _ in with_gc)]
    cpu_ratio = [last / first for _, _, (first, last) in with_gc if first > 0]
    paused_ratio = [last / first for first, last in (windows(d) for d, _, _ in paused)]
    paused_cpu_ratio = [last / first for _, _, (first, last) in paused if first > 0]
    medians = [statistics.median(d[-WINDOW:]) / statistics.median(d[:WINDOW]) for d, _, _ in with_gc]
    per_append = [sum(d) / MESSAGES for d, _, _ in with_gc]
    print(f"== session store: {MESSAGES} appends, {rounds} interleaved rounds (min–median–max) ==")
    print(
        f"append, collector on: {spread(per_append, 1e6, 0)} us/append, CPU {spread([c for _, c, _ in with_gc], 1.0, 2)} s "
        f"per {MESSAGES} (collector paused: CPU {spread([c for _, c, _ in paused], 1.0, 2)} s)"
    )
    print(f"append ratio last/first {WINDOW}, collector on: wall {spread(ratio, digits=2)}, CPU {spread(cpu_ratio, digits=2)}")
    print("  " + verdict(f"append ratio last/first {WINDOW}, collector on, wall", ratio, RATIO_TARGET))
    print("  " + verdict(f"append ratio last/first {WINDOW}, collector on, CPU", cpu_ratio, RATIO_TARGET))
    print(
        f"  collector paused: wall {spread(paused_ratio, digits=2)}, CPU {spread(paused_cpu_ratio, digits=2)}; "
        f"median append ratio (collector on): {spread(medians, digits=2)}"
    )
    load = [w for w, _ in loads]
    print(
        f"load {MESSAGES} messages ({size_mb:.1f} MB): wall {spread(load, 1.0, 3)} s, CPU {spread([c for _, c in loads], 1.0, 3)} s"
    )
    print("  " + verdict("load wall", load, LOAD_TARGET_S, unit=" s", digits=3))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    main(parser.parse_args().rounds)
