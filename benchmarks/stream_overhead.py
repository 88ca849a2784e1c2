"""Stream overhead: a 20 000-chunk answer from the fake provider (a) through ``litellm_stream``
into the loop's events (``run_agent_loop`` with a listener) versus (b) iterating
``litellm.acompletion`` directly with no conversion. Same server (a separate process, so its
work does not share this process's GIL), same process, same request, alternating runs.

(c) is (b) plus litellm_stream's cooperative yields (one ``sleep(0)`` every 2 ms): the yields
alone change litellm's own reading cost, so a/c isolates the conversion. Wall and CPU time (of
this process) are both reported; CPU time stays meaningful on a machine shared with other work.

Prints the median ratios a/b and a/c (target <= 1.10) and the time to the first event of (a)
versus the first raw chunk of (b), for the very first item and for the first content.

    python benchmarks/stream_overhead.py [--chunks 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from jupyter_agent import AgentLoopOptions, Context, Model, UserMessage, run_agent_loop
from jupyter_agent.model.litellm_convert import build_request
from jupyter_agent.model.litellm_loader import litellm_module_sync
from jupyter_agent.model.litellm_stream import YIELD_INTERVAL, litellm_stream


def start_server(chunks: int) -> tuple[subprocess.Popen, str]:
    pieces = [f"w{i} " for i in range(chunks)]
    script = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump([{"text": pieces}], script)
    script.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_agent.testing.fake_provider", "--script", script.name, "--repeat"],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = server.stdout.readline()  # "fake provider listening on http://127.0.0.1:PORT/v1"
    os.unlink(script.name)
    return server, line.rsplit(" ", 1)[-1].strip()


async def through_stream_fn(model: Model) -> dict[str, float]:
    times: dict[str, float] = {}
    count = 0

    def listener(event) -> None:
        nonlocal count
        count += 1
        now = time.perf_counter()
        if event.type == "message_start" and event.message.role == "assistant":
            times["first"] = now - start
        elif event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            times.setdefault("content", now - start)

    start, cpu_start = time.perf_counter(), time.process_time()
    await run_agent_loop("go", [], AgentLoopOptions(model=model, stream_fn=litellm_stream), listener)
    times["total"] = time.perf_counter() - start
    times["cpu"] = time.process_time() - cpu_start
    times["events"] = count
    return times


async def raw_acompletion(model: Model, yield_every: float | None = None) -> dict[str, float]:
    """(b); with ``yield_every`` (c): also yields to the event loop as often as litellm_stream does."""
    import litellm

    request = build_request(model, Context(messages=[UserMessage(content="go")]))
    times: dict[str, float] = {}
    count, last_yield = 0, 0.0
    start, cpu_start = time.perf_counter(), time.process_time()
    response = await litellm.acompletion(**request)
    try:
        async for chunk in response:
            count += 1
            if "first" not in times:
                times["first"] = time.perf_counter() - start
            if chunk.choices and chunk.choices[0].delta.content:
                times.setdefault("content", time.perf_counter() - start)
            if yield_every is not None and time.perf_counter() - last_yield >= yield_every:
                last_yield = time.perf_counter()
                await asyncio.sleep(0)
    finally:
        await response.aclose()
    times["total"] = time.perf_counter() - start
    times["cpu"] = time.process_time() - cpu_start
    times["events"] = count
    return times


async def settle() -> None:
    """Lets litellm's after-stream work (it assembles the whole response for its logging in
    background tasks, ~0.2 s for 20 000 chunks) finish before the next run is timed."""
    await asyncio.sleep(0.5)
    gc.collect()


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms"


async def main(chunks: int, rounds: int) -> None:
    litellm_module_sync()
    server, api_base = start_server(chunks)
    try:
        model = Model(id="fake-model", base_url=api_base)
        await raw_acompletion(model)  # warm up litellm's lazy first-call setup, both paths
        await through_stream_fn(model)
        runs: dict[str, list] = {"a": [], "b": [], "c": []}
        paths = {
            "a": through_stream_fn,
            "b": raw_acompletion,
            "c": lambda model: raw_acompletion(model, yield_every=YIELD_INTERVAL),
        }
        for round_number in range(rounds):
            # Rotate which path goes first, so drift on a shared machine hits all alike.
            order = ["a", "b", "c"][round_number % 3 :] + ["a", "b", "c"][: round_number % 3]
            for name in order:
                await settle()
                runs[name].append(await paths[name](model))
    finally:
        server.terminate()
        server.wait(timeout=10)
    a_runs, b_runs, c_runs = runs["a"], runs["b"], runs["c"]
    print(
        f"chunks={chunks} rounds={rounds}  (a) loop events/run={a_runs[0]['events']:.0f}  (b) raw chunks/run={b_runs[0]['events']:.0f}"
    )
    for label, path_runs in (
        ("(a) litellm_stream -> loop events", a_runs),
        ("(b) litellm.acompletion raw", b_runs),
        ("(c) raw + litellm_stream's yields", c_runs),
    ):
        print(f"{label:35} median {ms([r['total'] for r in path_runs])} wall, {ms([r['cpu'] for r in path_runs])} cpu")
    for base_name, base_runs in (("b", b_runs), ("c", c_runs)):
        # CPU time of this process only: steady when other processes share the cores.
        for kind in ("total", "cpu"):
            ratios = [a[kind] / b[kind] for a, b in zip(a_runs, base_runs)]
            print(
                f"ratio a/{base_name} ({'wall' if kind == 'total' else 'cpu'}): median {statistics.median(ratios):.3f}  "
                f"(min {min(ratios):.3f}, max {max(ratios):.3f}; target <= 1.10)"
            )
    print(f"time to first event (a) {ms([r['first'] for r in a_runs])} vs first raw chunk (b) {ms([r['first'] for r in b_runs])}")
    print(
        f"time to first text delta (a) {ms([r['content'] for r in a_runs])} vs first content chunk (b) {ms([r['content'] for r in b_runs])}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.chunks, arguments.rounds))
