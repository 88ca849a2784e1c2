"""Loop overhead: 200 turns (one tool call each, 2 KB streamed in small deltas) through
``run_agent_loop`` versus a baseline that drains the same scripted streams and runs the same
tools without the loop, in the same process. Runs alternate (5 rounds by default). Printed, each
min–median–max over the rounds: wall and CPU time (this process) of the loop and of the baseline
with their round-by-round ratio, and the target (ratio <= 1.3) judged on the worst round, in wall
and in CPU time.

    python benchmarks/loop_overhead.py [--turns 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import sys

from pydantic import BaseModel

from jupyter_agent import AgentLoopOptions, AgentTool, Context, TextContent, ToolResultMessage, UserMessage, run_agent_loop
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_stats import Clock, row, verdict  # noqa: E402

TARGET = 1.3

TEXT = ("The quick brown fox jumps over the lazy dog. " * 50)[:2048]


class Args(BaseModel):
    n: int


async def execute(args: Args, signal) -> list:
    return [TextContent(text=f"result {args.n}")]


TOOL = AgentTool(name="step", description="one step", parameters=Args, execute=execute)


def script(turns: int) -> ScriptedModel:
    responses = [tool_calls(call("step", {"n": i}), text=TEXT) for i in range(turns - 1)]
    return ScriptedModel(responses + [reply(TEXT)], chunk_size=10)


async def through_loop(turns: int) -> tuple[tuple[float, float], int]:
    model = script(turns)
    count = 0

    def listener(event) -> None:
        nonlocal count
        count += 1

    clock = Clock()
    await run_agent_loop("go", [], AgentLoopOptions(model=model.model(), stream_fn=model, tools=[TOOL]), listener)
    return clock.elapsed(), count


async def baseline(turns: int) -> tuple[tuple[float, float], int]:
    model = script(turns)
    history: list = [UserMessage(content="go")]
    specs = [TOOL.spec()]
    count = 0
    clock = Clock()
    for _ in range(turns):
        stream = model(model.model(), Context(messages=list(history), tools=specs))
        async for _event in stream:
            count += 1
        message = await stream.result()
        history.append(message)
        for tool_call in message.tool_calls:
            content = await execute(Args.model_validate(tool_call.arguments), None)
            history.append(ToolResultMessage(tool_call_id=tool_call.id, tool_name=tool_call.name, content=content))
    return clock.elapsed(), count


async def main(turns: int, rounds: int) -> None:
    await through_loop(10)  # warm up imports and schema caches
    await baseline(10)
    loop_times, base_times = [], []
    for _ in range(rounds):
        base, base_events = await baseline(turns)
        loop, loop_events = await through_loop(turns)
        loop_times.append(loop)
        base_times.append(base)
    print(f"turns={turns} rounds={rounds} (interleaved) stream events/run={base_events} loop events/run={loop_events}")
    for index, kind in enumerate(("wall", "CPU")):
        loop_kind, base_kind = [t[index] for t in loop_times], [t[index] for t in base_times]
        print(row(f"loop {kind:4}", loop_kind, base_kind, digits=0))
        print("  " + verdict(f"loop/baseline {kind} ratio", [a / b for a, b in zip(loop_kind, base_kind)], TARGET))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.turns, options.rounds))
