"""A multi-turn notebook session against the fake provider's prompt cache, for tests and benchmarks.

Each turn is what a ``%%agent`` cell sends: the notebook's system prompt and tools, the session's
history, and a prompt led by the turn's context (the date and an outline of the cells around the
agent cell, which changes every turn as the user runs cells). Memory is on and the task plan in
use, as in a notebook turn (the plan and memory features): every request ends with its step context
(the current plan, the memory index). In each turn the model sets a three-item plan, runs
``python``, ticks the plan off twice more with a ``python`` call between, then answers; after
the turn the memory extraction request runs, and every fourth turn it saves a note, so the
next turn's index differs. Requests go through litellm over HTTP with cache breakpoints, as they
go to a Claude model; the provider reports in each response's usage what its cache served.

Two baselines, the layouts before the context moved out of the cached prefix:
``step_context_in_system=True`` appends the step context to the system prompt of every step
(a plan change rewrites the start of the request); ``turn_context_in_system=True`` also moves the
turn's context there.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel

from jupyter_agent.features.memory.extraction import EXTRACTION_SYSTEM_PROMPT
from jupyter_agent.features.memory.notebook_memory import NotebookMemory
from jupyter_agent.features.memory.store import MemoryStore
from jupyter_agent.features.plan.prompt import plan_step_section
from jupyter_agent.features.plan.state import PlanState
from jupyter_agent.features.plan.tool import plan_tool
from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import Message, TextContent, Usage, with_turn_context
from jupyter_agent.model import Model, StreamOptions
from jupyter_agent.model.litellm_convert import STEP_CONTEXT_OPEN
from jupyter_agent.model.litellm_stream import litellm_stream
from jupyter_agent.notebook.system_prompt import TOOL_HELP, PromptContext, build_system_prompt, turn_context
from jupyter_agent.runtime import StepContext, StepOverrides, run_agent
from jupyter_agent.testing.fake_provider import FakeProvider, FakeResponse, call, text, tool_calls
from jupyter_agent.testing.prompt_cache import PromptCache
from jupyter_agent.tools.step_context import step_context_hook


def plan_of(turn: int) -> dict[str, Any]:
    """Each turn's own three-item checklist."""
    items = [f"Load the sales of question {turn}", f"Group question {turn}'s rows by region", "Compare the regions"]
    return {"items": [{"text": item, "status": "in_progress" if not n else "pending"} for n, item in enumerate(items)]}


# The turn's requests: what the model answers (for turn, after that many of its own answers in the turn).
SCRIPT: list[Callable[[int], FakeResponse]] = [
    lambda turn: tool_calls(call("plan", plan_of(turn)), text="A three-step task: planning it."),
    lambda turn: tool_calls(call("python", {"code": "df = load_sales(); df.describe()"})),
    lambda turn: tool_calls(call("plan", {"updates": [{"id": "1", "status": "done"}, {"id": "2", "status": "in_progress"}]})),
    lambda turn: tool_calls(call("python", {"code": "df.groupby('region').sales.agg(['mean', 'std'])"})),
    lambda turn: tool_calls(call("plan", {"updates": [{"id": "2", "status": "done"}, {"id": "3", "status": "done"}]})),
    lambda turn: text("The sales are highest in the north region, ", "about 41 on average with little spread."),
]
STEPS_PER_TURN = len(SCRIPT)
NOTE_EVERY = 4  # turns: the extraction after such a turn saves a note


class Code(BaseModel):
    code: str = ""


async def _run_code(args: Code, signal: object) -> list[TextContent]:
    return [TextContent(text=f"Out: {len(args.code)} characters ran\nshape (1200, 8), mean 41.3, std 7.9")]


def notebook_tools(plan: PlanState | None = None, memory: NotebookMemory | None = None) -> list[AgentTool]:
    """The notebook's tools as the model sees them (names and descriptions): the real ``plan`` and
    ``memory`` tools when given, each other one answering a fixed result."""
    real = {"plan": plan_tool(plan) if plan is not None else None}
    if memory is not None:
        real["memory"] = memory.tools()[0]
    return [
        real.get(name) or AgentTool(name=name, description=help_text, parameters=Code, execute=_run_code)
        for name, help_text in TOOL_HELP.items()
    ]


def outline(turn: int, cells: int = 12) -> str:
    """The cells around the agent cell at turn ``turn``: the window moves as the user adds cells."""
    rows = [f"- {n} `c{n}` code [{n}]: df_{n} = df.groupby('region_{n % 5}').sales.sum()" for n in range(turn, turn + cells)]
    return f"## Notebook outline ({cells} cells around this agent cell)\n" + "\n".join(rows)


def _respond(body: dict) -> FakeResponse:
    messages = [m for m in body.get("messages") or [] if not _is_step_context(m)]
    if messages and messages[0].get("role") == "system" and _text(messages[0]) == EXTRACTION_SYSTEM_PROMPT:
        return _extraction(_text(messages[-1]))
    last_prompt = max(i for i, m in enumerate(messages) if m.get("role") == "user")
    answered = sum(1 for m in messages[last_prompt:] if m.get("role") == "assistant")
    return SCRIPT[min(answered, STEPS_PER_TURN - 1)](_turn_of(_text(messages[last_prompt])))


def _turn_of(prompt: str) -> int:
    return int(re.findall(r"Question (\d+)", prompt)[-1])


def _extraction(prompt: str) -> FakeResponse:
    turn = _turn_of(prompt)
    if turn % NOTE_EVERY != NOTE_EVERY - 1:
        return text('{"memories": []}')
    note = {
        "name": f"region-{turn}",
        "summary": f"region {turn} reports late",
        "content": f"Region {turn} sends its sales a week late.",
    }
    return text(json.dumps({"memories": [note]}))


def _is_step_context(message: dict) -> bool:
    return message.get("role") == "user" and _text(message).startswith(STEP_CONTEXT_OPEN)


def _text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


def _in_system(system: str, hook: Callable[..., Any]) -> Callable[..., Any]:
    """``hook`` with its step context appended to the system prompt instead (the earlier layout)."""

    async def prepare_step(context: StepContext) -> StepOverrides:
        overrides = await hook(context)
        extra = overrides.step_context
        return replace(overrides, step_context=None, system=f"{system}\n\n{extra}" if extra else system)

    return prepare_step


@dataclass
class SessionCache:
    provider_fraction: float  # of every input token, the share the provider's cache served
    usage_fraction: float  # the same, as read back from the runs' usage (through litellm)
    requests: int
    input_tokens: int
    system_prompts: int = 0  # distinct system prompts of the conversation's requests


async def cached_session(
    turns: int = 20, *, step_context_in_system: bool = False, turn_context_in_system: bool = False
) -> SessionCache:
    history: list[Message] = []
    cache_read = total = 0
    systems: set[str] = set()
    with tempfile.TemporaryDirectory() as folder, FakeProvider(fallback=_respond, prompt_cache=True) as provider:
        plan = PlanState()
        memory = NotebookMemory(MemoryStore(Path(folder) / "memory"), enabled=True)
        memory.store.write("units", "Sales are in kEUR, net of returns.", summary="sales in kEUR")
        tools = notebook_tools(plan, memory)
        context = PromptContext(
            notebook_path=Path("/work/sales.ipynb"), workspace=Path("/work"), tool_names=[t.name for t in tools]
        )
        model = Model(id="fake-model", provider="openai", base_url=provider.api_base)
        options = StreamOptions(api_key="no-key", cache_breakpoints=True)

        def counted(usage: Usage) -> None:
            nonlocal cache_read, total
            cache_read += usage.cache_read
            total += usage.input + usage.cache_read + usage.cache_write

        for turn in range(turns):
            system, prompt = build_system_prompt(context), f"Question {turn}: how do the sales compare by region?"
            if turn_context_in_system:
                system = f"{system}\n\n{turn_context(outline(turn))}"
            else:
                prompt = with_turn_context(prompt, turn_context(outline(turn)))
            hook = step_context_hook([lambda: plan_step_section(plan), memory.step_section])
            run = run_agent(
                model,
                prompt,
                system=system,
                tools=tools,
                messages=history,
                stream_options=options,
                prepare_step=_in_system(system, hook) if step_context_in_system or turn_context_in_system else hook,
            )
            result = await run.result()
            if result.reason != "completed":
                raise RuntimeError(f"turn {turn} ended {result.reason}: {result.error}")
            cache_read += result.usage.cache_read_tokens
            total += result.usage.input_tokens + result.usage.cache_read_tokens + result.usage.cache_write_tokens
            await memory.after_turn(
                litellm_stream, model, result.messages[len(history) :], stream_options=options, on_usage=counted
            )
            history = result.messages
        cache: PromptCache = provider.cache  # type: ignore[assignment]
        for body in provider.requests:
            first = (body.get("messages") or [{}])[0]
            if first.get("role") == "system" and _text(first) != EXTRACTION_SYSTEM_PROMPT:
                systems.add(_text(first))
    return SessionCache(cache.cached_fraction, cache_read / total if total else 0.0, len(cache.uses), total, len(systems))
