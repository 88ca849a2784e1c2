"""Runtime overhead: the same 200-step scripted workload (one tool call a step, 2 KB of text
streamed in small deltas) through ``run_agent`` versus bare ``run_agent_loop`` with no listener,
in the same process. Runs alternate (5 rounds by default); the ratio is printed (target <= 1.2,
judged on the worst round), in wall time and in CPU time of this process (steadier on a shared
machine: the workload never idles).

The runtime arm uses its defaults plus the features a notebook run turns on (a permission
policy, a step ceiling, a spend ceiling with rates, a listener, a ``prepare_step`` hook that
runs every step, as the notebook's plan/memory/MCP hook does), so the figure is what a user pays,
not a best case. Both arms start from the same prior history (``--prior``, 2 000 messages by
default: a long session), so a cost that grows with the session shows. Printed: min–median–max
over the rounds, wall and CPU.

    python benchmarks/runtime_overhead.py [--steps 200] [--rounds 5] [--prior 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import pathlib
import sys

from pydantic import BaseModel

from jupyter_agent import (
    AgentLoopOptions,
    AgentTool,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    run_agent_loop,
)
from jupyter_agent.runtime import PermissionPolicy, Rates, StepOverrides, run_agent
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, spread, verdict  # noqa: E402

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


def prior_history(count: int, model_id: str) -> list:
    """A long session's messages: a prompt, a tool call, its result, repeated; ends with an answer."""
    messages: list = []
    for index in range(count - 1):
        kind = index % 3
        if kind == 0:
            messages.append(UserMessage(content=f"Plot column {index} against time."))
        elif kind == 1:
            step = ToolCall(id=f"prior_{index}", name="step", arguments={"n": index})
            messages.append(AssistantMessage(content=[TextContent(text="Plotting."), step], provider="scripted", model=model_id))
        else:
            result = [TextContent(text=f"result {index}")]
            messages.append(ToolResultMessage(tool_call_id=f"prior_{index - 1}", tool_name="step", content=result))
    if messages and isinstance(messages[-1], AssistantMessage):
        messages.pop()
    messages.append(AssistantMessage(content=[TextContent(text="Done.")], provider="scripted", model=model_id))
    return messages


def every_step(context) -> StepOverrides | None:
    return None  # like the notebook's hook: runs every step, reads no message


async def through_runtime(steps: int, prior: list) -> tuple[tuple[float, float], int]:
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
        messages=prior,
        prepare_step=every_step,
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


async def bare_loop(steps: int, prior: list) -> tuple[tuple[float, float], int]:
    model = script(steps)
    history: list = list(prior)
    clock = Clock()
    await run_agent_loop("go", history, AgentLoopOptions(model=model.model(context_window=WINDOW), stream_fn=model, tools=[TOOL]))
    return clock.elapsed(), len(history)


async def main(steps: int, rounds: int, prior_count: int) -> None:
    prior = prior_history(prior_count, script(1).model().id) if prior_count else []
    await through_runtime(10, prior)  # warm up imports and schema caches
    await bare_loop(10, prior)
    wall, cpu, runtime_times, loop_times = [], [], [], []
    for _ in range(rounds):
        # Each run starts from the same collector state (the collector stays on during it), so a
        # full collection left over from the other arm's garbage is not charged to this one.
        gc.collect()
        (loop_wall, loop_cpu), messages = await bare_loop(steps, prior)
        gc.collect()
        (run_wall, run_cpu), events = await through_runtime(steps, prior)
        wall.append(run_wall / loop_wall)
        cpu.append(run_cpu / loop_cpu)
        runtime_times.append((run_wall, run_cpu))
        loop_times.append((loop_wall, loop_cpu))
    print(f"steps={steps} rounds={rounds} prior messages={len(prior)} messages/run={messages} run events/run={events}")
    print(
        f"bare loop wall {spread([t[0] for t in loop_times], 1000, 0)} ms, CPU {spread([t[1] for t in loop_times], 1000, 0)} ms"
    )
    print(
        f"run_agent wall {spread([t[0] for t in runtime_times], 1000, 0)} ms, CPU {spread([t[1] for t in runtime_times], 1000, 0)} ms"
    )
    print(f"run_agent/loop wall ratio: {spread(wall, digits=2)} (min–median–max)")
    print(f"run_agent/loop CPU ratio:  {spread(cpu, digits=2)}")
    print(verdict("run_agent/loop wall ratio", wall, 1.2))
    print(verdict("run_agent/loop CPU ratio", cpu, 1.2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--prior", type=int, default=2000)
    options = parser.parse_args()
    asyncio.run(main(options.steps, options.rounds, options.prior))
