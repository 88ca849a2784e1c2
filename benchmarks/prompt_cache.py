"""Prompt caching over a 20-turn notebook session: the share of input tokens the provider's cache serves.

The session (``jupyter_agent.testing.cached_session``) sends what ``%%agent`` cells send (the
notebook's system prompt and tools, the history, a prompt led by the turn's context), with memory
on and the task plan updated three times a turn, so every request ends with its step context
(the current plan, the memory index); the memory extraction request follows each turn. It goes
with cache breakpoints through litellm over HTTP to the fake provider, which simulates a provider
cache and reports it in each response's usage. Two baselines run in the same process: the step
context at the end of the system prompt of every step (the layout before it moved after the
cached prefix), and the turn's context (date, notebook outline) there too. Rounds alternate
(≥ 5). Printed, min–median–max over the rounds: the cached share (target ≥ 80 %, judged on the worst round), the input cost in full-price token equivalents
(cache reads at Anthropic's 0.1×), and wall and CPU time per session.

    python benchmarks/prompt_cache.py [--turns 20] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import Clock, ratios, row, spread, verdict  # noqa: E402

from jupyter_agent.testing.cached_session import SessionCache, cached_session  # noqa: E402

TARGET = 0.80
READ_FACTOR = 0.1


def cost_equivalent(session: SessionCache) -> float:
    """Input tokens at full price that cost what the session's input cost."""
    cached = session.input_tokens * session.provider_fraction
    return (session.input_tokens - cached) + cached * READ_FACTOR


async def main(turns: int, rounds: int) -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    await cached_session(2)  # warm up litellm and the schema caches
    stable: list[SessionCache] = []
    in_system: list[SessionCache] = []
    all_in_system: list[SessionCache] = []
    stable_times, baseline_times = [], []
    for _ in range(rounds):
        clock = Clock()
        in_system.append(await cached_session(turns, step_context_in_system=True))
        baseline_times.append(clock.elapsed())
        clock = Clock()
        stable.append(await cached_session(turns))
        stable_times.append(clock.elapsed())
        all_in_system.append(await cached_session(turns, turn_context_in_system=True))
    shares = [s.provider_fraction for s in stable]
    print(f"== prompt cache over a {turns}-turn session ({stable[0].requests} requests), {rounds} interleaved rounds ==")
    print(
        f"input tokens served from the cache, per round: {spread(shares, 100)} % (plan and memory index after the "
        f"cached prefix) vs {spread([s.provider_fraction for s in in_system], 100)} % (in the system prompt) vs "
        f"{spread([s.provider_fraction for s in all_in_system], 100)} % (the turn's context there too)"
    )
    print("  " + verdict("cached share", shares, TARGET, op=">=", unit=" %", scale=100, digits=1))
    print(
        f"distinct system prompts per session: {spread([s.system_prompts for s in stable], digits=0)} vs "
        f"{spread([s.system_prompts for s in in_system], digits=0)}"
    )
    print(
        f"input tokens sent per session: {spread([s.input_tokens for s in stable], digits=0)} vs "
        f"{spread([s.input_tokens for s in in_system], digits=0)}; cost in full-price tokens (reads {READ_FACTOR}×), "
        f"ratio per round: {spread(ratios([cost_equivalent(s) for s in stable], [cost_equivalent(s) for s in in_system]), digits=2)}×"
    )
    print(
        "usage agrees with the provider's count in every round: "
        f"{all(abs(s.usage_fraction - s.provider_fraction) < 1e-9 for s in stable + in_system)}"
    )
    print(row("session wall", [t[0] for t in stable_times], [t[0] for t in baseline_times], unit="s", scale=1.0))
    print(row("session CPU", [t[1] for t in stable_times], [t[1] for t in baseline_times], unit="s", scale=1.0))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.turns, options.rounds))
