"""A multi-turn notebook session against the fake provider's prompt cache, for tests and benchmarks.

Each turn is what a ``%%agent`` cell sends: the notebook's system prompt and tools, the session's
history, and a prompt led by the turn's context (the date and an outline of the cells around the
agent cell, which changes every turn as the user runs cells). The model makes one ``python``
call, then answers. Requests go through litellm over HTTP with cache breakpoints, as they go to
a Claude model; the provider reports in each response's usage what its cache served.

``context_in_system=True`` puts the turn's context at the end of the system prompt instead, the
layout before the context moved out of the cached prefix: the baseline of the benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import Message, TextContent, with_turn_context
from jupyter_agent.model import Model, StreamOptions
from jupyter_agent.notebook.system_prompt import _TOOL_HELP, PromptContext, build_system_prompt, turn_context
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.fake_provider import FakeProvider, FakeResponse, call, text, tool_calls
from jupyter_agent.testing.prompt_cache import PromptCache


class Code(BaseModel):
    code: str = ""


async def _run_code(args: Code, signal: object) -> list[TextContent]:
    return [TextContent(text=f"Out: {len(args.code)} characters ran\nshape (1200, 8), mean 41.3, std 7.9")]


def notebook_tools() -> list[AgentTool]:
    """The notebook's tools as the model sees them (names and descriptions); each one answers a fixed result."""
    return [
        AgentTool(name=name, description=help_text, parameters=Code, execute=_run_code) for name, help_text in _TOOL_HELP.items()
    ]


def outline(turn: int, cells: int = 12) -> str:
    """The cells around the agent cell at turn ``turn``: the window moves as the user adds cells."""
    rows = [f"- {n} `c{n}` code [{n}]: df_{n} = df.groupby('region_{n % 5}').sales.sum()" for n in range(turn, turn + cells)]
    return f"## Notebook outline ({cells} cells around this agent cell)\n" + "\n".join(rows)


def _respond(body: dict) -> FakeResponse:
    messages = body.get("messages") or []
    if messages and messages[-1].get("role") == "user":
        return tool_calls(call("python", {"code": "df.describe()"}), text="Let me look at the data.")
    return text("The sales are highest in the north region, ", "about 41 on average with little spread.")


@dataclass
class SessionCache:
    provider_fraction: float  # of every input token, the share the provider's cache served
    usage_fraction: float  # the same, as read back from the runs' usage (through litellm)
    requests: int
    input_tokens: int


async def cached_session(turns: int = 20, *, context_in_system: bool = False) -> SessionCache:
    tools = notebook_tools()
    context = PromptContext(notebook_path=Path("/work/sales.ipynb"), workspace=Path("/work"), tool_names=[t.name for t in tools])
    history: list[Message] = []
    cache_read = total = 0
    with FakeProvider(fallback=_respond, prompt_cache=True) as provider:
        model = Model(id="fake-model", provider="openai", base_url=provider.api_base)
        options = StreamOptions(api_key="no-key", cache_breakpoints=True)
        for turn in range(turns):
            system, prompt = build_system_prompt(context), f"Question {turn}: how do the sales compare by region?"
            if context_in_system:
                system = f"{system}\n\n{turn_context(outline(turn))}"
            else:
                prompt = with_turn_context(prompt, turn_context(outline(turn)))
            run = run_agent(model, prompt, system=system, tools=tools, messages=history, stream_options=options)
            result = await run.result()
            if result.reason != "completed":
                raise RuntimeError(f"turn {turn} ended {result.reason}: {result.error}")
            history = result.messages
            cache_read += result.usage.cache_read_tokens
            total += result.usage.input_tokens + result.usage.cache_read_tokens + result.usage.cache_write_tokens
        cache: PromptCache = provider.cache  # type: ignore[assignment]
    return SessionCache(cache.cached_fraction, cache_read / total if total else 0.0, len(cache.uses), total)
