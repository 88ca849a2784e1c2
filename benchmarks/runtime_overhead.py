"""Runtime overhead: the same 200-step scripted workload (one tool call a step, 2 KB of text
streamed in small deltas) through ``run_agent`` versus bare ``run_agent_loop`` with no listener,
in the same process. Runs alternate; the median ratio is printed (target <= 1.2), in wall time
and in CPU time of this process (steadier on a shared machine: the workload never idles).

The runtime arm uses its defaults plus the features a notebook run turns on (a permission
policy, a step ceiling, a spend ceiling with rates, a listener), so the figure is what a user
pays, not a best case.

    python benchmarks/runtime_overhead.py [--steps 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from pydantic import BaseModel

from jupyter_agent import AgentLoopOptions, AgentTool, TextContent, run_agent_loop
from jupyter_agent.runtime import PermissionPolicy, Rates, run_agent
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

TEXT = ("The quick brown fox jumps over the lazy dog. " * 50)[:2048]


class Args(BaseModel):
    n: int


async def execute(args: Args, signal) -> list:
    return [TextContent(text=f"result {args.n}")]


# Mutating, so the permission gate wraps it (yolo: allowed without a prompt).
TOOL = AgentTool(name="step", description="one step", parameters=Args, execute=execute, read_only=False)


# The transcript grows to ~500k estimated tokens: a window that holds it keeps compaction (a
# different workload, with extra model requests) out of the comparison.
WINDOW = 10_000_000


def script(steps: int) -> ScriptedModel:
    responses = [tool_calls(call("step", {"n": i}), text=TEXT) for i in range(steps - 1)]
    return ScriptedModel(responses + [reply(TEXT)], chunk_size=10)


class Clock:
    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


async def through_runtime(steps: int) -> tuple[tuple[float, float], int]:
    model = script(steps)
    count = 0

    def listener(event) -> None:
        nonlocal count
        count += 1

    clock = Clock()
    run = run_agent(
        model.model(context_window=WINDOW),
        "go",
        tools=[TOOL],
        stream_fn=model,
        max_steps=steps + 1,
        max_spend_usd=1_000.0,
        rates=Rates(input=3, output=15),
        permissions=PermissionPolicy("yolo"),
    )
    run.add_listener(listener)
    result = await run.result()
    elapsed = clock.elapsed()
    assert result.reason == "completed" and result.steps == steps, (result.reason, result.steps)
    return elapsed, count


async def bare_loop(steps: int) -> tuple[tuple[float, float], int]:
    model = script(steps)
    history: list = []
    clock = Clock()
    await run_agent_loop("go", history, AgentLoopOptions(model=model.model(context_window=WINDOW), stream_fn=model, tools=[TOOL]))
    return clock.elapsed(), len(history)


async def main(steps: int, rounds: int) -> None:
    await through_runtime(10)  # warm up imports and schema caches
    await bare_loop(10)
    wall, cpu, runtime_walls, loop_walls = [], [], [], []
    for _ in range(rounds):
        (loop_wall, loop_cpu), messages = await bare_loop(steps)
        (run_wall, run_cpu), events = await through_runtime(steps)
        wall.append(run_wall / loop_wall)
        cpu.append(run_cpu / loop_cpu)
        runtime_walls.append(run_wall)
        loop_walls.append(loop_wall)
    print(f"steps={steps} rounds={rounds} messages/run={messages} run events/run={events}")
    print(
        f"bare loop median {statistics.median(loop_walls) * 1000:.0f} ms, run_agent median {statistics.median(runtime_walls) * 1000:.0f} ms"
    )
    print(f"run_agent/loop wall ratio: median {statistics.median(wall):.2f} (min {min(wall):.2f}, max {max(wall):.2f})")
    print(
        f"run_agent/loop CPU ratio:  median {statistics.median(cpu):.2f} (min {min(cpu):.2f}, max {max(cpu):.2f}); target <= 1.20"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.steps, options.rounds))
