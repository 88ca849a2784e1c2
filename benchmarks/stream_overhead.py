"""Stream overhead: a 20 000-chunk answer from the fake provider (a) through ``litellm_stream``
into the loop's events (``run_agent_loop`` with a listener) versus (b) iterating
``litellm.acompletion`` directly with no conversion. Same server (a separate process, so its
work does not share this process's GIL), same process, same request, alternating runs.

(c) is (b) plus litellm_stream's cooperative yields (one ``sleep(0)`` every 2 ms): the yields
alone change litellm's own reading cost, so a/c isolates the conversion. Wall and CPU time (of
this process: the server's work is the same for every path) are both reported; CPU time stays
meaningful on a machine shared with other work.

Rounds interleave the three paths (5 by default). Printed, each min–median–max over the rounds,
in wall and in CPU time: each path's total, (a) against (b) and against (c) with the
round-by-round ratio (target <= 1.10, judged on the worst round), and the time to the first event
of (a) versus the first raw chunk of (b), for the very first item and for the first content.

The default (20 000 chunks, the size the target is set for) takes ~4 min for 5 rounds on a
2-core machine, most of it litellm's own reading; ``--chunks 5000`` gives a quicker look.

    python benchmarks/stream_overhead.py [--chunks 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from jupyter_agent import AgentLoopOptions, Context, Model, UserMessage, run_agent_loop
from jupyter_agent.model.litellm_convert import build_request
from jupyter_agent.model.litellm_loader import litellm_module_sync
from jupyter_agent.model.litellm_stream import YIELD_INTERVAL, litellm_stream

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, row, verdict  # noqa: E402

TARGET = 1.10


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
        if event.type == "message_start" and event.message.role == "assistant":
            times["first"], times["first_cpu"] = clock.elapsed()
        elif event.type == "message_update" and event.assistant_message_event.type == "text_delta" and "content" not in times:
            times["content"], times["content_cpu"] = clock.elapsed()

    clock = Clock()
    await run_agent_loop("go", [], AgentLoopOptions(model=model, stream_fn=litellm_stream), listener)
    times["total"], times["cpu"] = clock.elapsed()
    times["events"] = count
    return times


async def raw_acompletion(model: Model, yield_every: float | None = None) -> dict[str, float]:
    """(b); with ``yield_every`` (c): also yields to the event loop as often as litellm_stream does."""
    import litellm

    request = build_request(model, Context(messages=[UserMessage(content="go")]))
    times: dict[str, float] = {}
    count, last_yield = 0, 0.0
    clock = Clock()
    response = await litellm.acompletion(**request)
    try:
        async for chunk in response:
            count += 1
            if "first" not in times:
                times["first"], times["first_cpu"] = clock.elapsed()
            if chunk.choices and chunk.choices[0].delta.content and "content" not in times:
                times["content"], times["content_cpu"] = clock.elapsed()
            if yield_every is not None and clock.elapsed()[0] - last_yield >= yield_every:
                last_yield = clock.elapsed()[0]
                await asyncio.sleep(0)
    finally:
        await response.aclose()
    times["total"], times["cpu"] = clock.elapsed()
    times["events"] = count
    return times


async def settle() -> None:
    """Lets litellm's after-stream work (it assembles the whole response for its logging in
    background tasks, ~0.2 s for 20 000 chunks) finish before the next run is timed."""
    await asyncio.sleep(0.5)
    gc.collect()


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
    print("(a) litellm_stream -> loop events, (b) litellm.acompletion raw, (c) raw + litellm_stream's yields; min–median–max")

    def column(path_runs: list, key: str) -> list[float]:
        return [r[key] for r in path_runs]

    # CPU time of this process only: steady when other processes share the cores.
    for base_name, base_runs in (("b", b_runs), ("c", c_runs)):
        for kind, key in (("wall", "total"), ("CPU", "cpu")):
            print(row(f"(a) {kind}, baseline ({base_name})", column(a_runs, key), column(base_runs, key)))
            ratios = [a[key] / b[key] for a, b in zip(a_runs, base_runs)]
            print("  " + verdict(f"a/{base_name} {kind} ratio", ratios, TARGET, digits=3))
    for what, key in (
        ("first event (a), baseline first raw chunk (b)", "first"),
        ("first text delta (a), baseline first content chunk (b)", "content"),
    ):
        print(row(f"time to {what}, wall", column(a_runs, key), column(b_runs, key)))
        print(row(f"time to {what}, CPU", column(a_runs, f"{key}_cpu"), column(b_runs, f"{key}_cpu")))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.chunks, arguments.rounds))
