"""Session store: append cost must not grow with the file; loading 10 000 messages stays fast.

Prints the ratio of the time taken by the last 1 000 of 10 000 appends to the first 1 000
(target <= 1.5) and the time to load the 10 000-message session and build its model view
(target <= 0.5 s on the project's 2-core machine).

Appends are timed with the cyclic garbage collector paused, as ``timeit`` does: a full
collection scans every live object of the process, so one landing in a window adds a pause
proportional to the whole heap, not to the store's work. The ratio with the collector running
is printed too, with the median append of each window, which such pauses do not move.

    python benchmarks/session.py
"""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from pathlib import Path

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


def measure_appends(path: Path, messages: list, *, collect_garbage: bool) -> list[float]:
    durations = []
    store = SessionStore(path)
    if not collect_garbage:
        gc.disable()
    try:
        for message in messages:
            started = time.perf_counter()
            store.append(message)
            durations.append(time.perf_counter() - started)
    finally:
        gc.enable()
    store.sync()
    store.close()
    return durations


def windows(durations: list[float]) -> tuple[float, float]:
    return sum(durations[:WINDOW]), sum(durations[-WINDOW:])


def measure_load(path: Path) -> float:
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        store = SessionStore(path, read_only=True)
        store.messages()
        runs.append(time.perf_counter() - started)
    assert len(store.history()) == MESSAGES
    return statistics.median(runs)


def main() -> None:
    messages = conversation(MESSAGES)
    with tempfile.TemporaryDirectory() as folder:
        # Warm up (first serializations, imports) so the first window measures appends only.
        measure_appends(Path(folder) / "warmup.jsonl", messages[:500], collect_garbage=True)
        path = Path(folder) / "bench.agent" / "main.jsonl"
        durations = measure_appends(path, messages, collect_garbage=False)
        with_gc = measure_appends(Path(folder) / "with-gc.jsonl", messages, collect_garbage=True)
        load = measure_load(path)
        size_mb = path.stat().st_size / 1e6
    first, last = windows(durations)
    ratio = last / first
    gc_first, gc_last = windows(with_gc)
    medians = statistics.median(with_gc[-WINDOW:]) / statistics.median(with_gc[:WINDOW])
    print(
        f"append: first {WINDOW} {first * 1e3:.1f} ms, last {WINDOW} {last * 1e3:.1f} ms "
        f"({sum(durations) / MESSAGES * 1e6:.0f} us/append over {MESSAGES})"
    )
    print(
        f"append ratio last/first {WINDOW}: {ratio:.2f} (target <= {RATIO_TARGET}) "
        f"{'OK' if ratio <= RATIO_TARGET else 'OVER TARGET'}"
    )
    print(
        f"  with the garbage collector running: {gc_last / gc_first:.2f} "
        f"({gc_first * 1e3:.1f} ms -> {gc_last * 1e3:.1f} ms); median append ratio {medians:.2f}"
    )
    print(
        f"load {MESSAGES} messages ({size_mb:.1f} MB): {load:.3f} s (target <= {LOAD_TARGET_S} s) "
        f"{'OK' if load <= LOAD_TARGET_S else 'OVER TARGET'}"
    )


if __name__ == "__main__":
    main()
