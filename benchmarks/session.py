"""Session store: append cost must not grow with the file; loading 10 000 messages stays fast.

Prints the ratio of the time taken by the last 1 000 of 10 000 appends to the first 1 000
(target <= 1.5) and the time to load the 10 000-message session and build its model view
(target <= 0.5 s on the project's 2-core machine).

The figure is taken with the cyclic garbage collector running, as in a notebook: a full
collection scans every live object of the process, so the collections an append triggers are
part of its cost. The ratio with the collector paused (as ``timeit`` times) is printed beside it,
with the median append of each window, which single pauses do not move. Rounds alternate (≥ 5);
every figure is min–median–max over them, wall and CPU.

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
from bench_stats import spread  # noqa: E402

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.session import SessionStore

MESSAGES = 10_000
WINDOW = 1_000
RATIO_TARGET = 1.5
LOAD_TARGET_S = 0.5


def conversation(count: int) -> list:
    """A realistic mix: a prompt, an assistant tool call, its result, repeated."""
    messages = []
    for index in range(count):
        kind = index % 3
        if kind == 0:
            messages.append(UserMessage(content=f"Plot column {index} of df against time and describe the trend."))
        elif kind == 1:
            code = f"ax = df.plot(x='time', y='c{index}')\nax.set_title('column {index}')\n"
            call = ToolCall(id=f"call_{index}", name="python", arguments={"code": code})
            messages.append(AssistantMessage(content=[TextContent(text="Let me plot that."), call], model="bench"))
        else:
            result = f"<Axes: title={{'center': 'column {index}'}}>\nmean={index * 0.5:.2f}"
            content = [TextContent(text=result)]
            messages.append(ToolResultMessage(tool_call_id=f"call_{index - 1}", tool_name="python", content=content))
    return messages


def measure_appends(path: Path, messages: list, *, collect_garbage: bool) -> tuple[list[float], float]:
    """Each append's wall time, and the CPU time of all of them."""
    durations = []
    store = SessionStore(path)
    if not collect_garbage:
        gc.disable()
    cpu = time.process_time()
    try:
        for message in messages:
            started = time.perf_counter()
            store.append(message)
            durations.append(time.perf_counter() - started)
    finally:
        cpu = time.process_time() - cpu
        gc.enable()
    store.sync()
    store.close()
    return durations, cpu


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
    ratio = [last / first for first, last in (windows(d) for d, _ in with_gc)]
    paused_ratio = [last / first for first, last in (windows(d) for d, _ in paused)]
    medians = [statistics.median(d[-WINDOW:]) / statistics.median(d[:WINDOW]) for d, _ in with_gc]
    per_append = [sum(d) / MESSAGES for d, _ in with_gc]
    print(f"== session store: {MESSAGES} appends, {rounds} interleaved rounds (min–median–max) ==")
    print(
        f"append, collector on: {spread(per_append, 1e6, 0)} us/append, CPU {spread([c for _, c in with_gc], 1.0, 2)} s "
        f"per {MESSAGES} (collector paused: CPU {spread([c for _, c in paused], 1.0, 2)} s)"
    )
    verdict = "OK" if statistics.median(ratio) <= RATIO_TARGET else "OVER TARGET"
    print(f"append ratio last/first {WINDOW}, collector on: {spread(ratio, digits=2)} (target <= {RATIO_TARGET}) {verdict}")
    print(
        f"  collector paused: {spread(paused_ratio, digits=2)}; median append ratio (collector on): {spread(medians, digits=2)}"
    )
    load = [w for w, _ in loads]
    verdict = "OK" if statistics.median(load) <= LOAD_TARGET_S else "OVER TARGET"
    print(
        f"load {MESSAGES} messages ({size_mb:.1f} MB): wall {spread(load, 1.0, 3)} s, CPU {spread([c for _, c in loads], 1.0, 3)} s "
        f"(target <= {LOAD_TARGET_S} s) {verdict}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    main(parser.parse_args().rounds)
