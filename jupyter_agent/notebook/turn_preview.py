"""``%agent preview [-s NAME] [PROMPT]``: what the next turn would send, and nothing is sent.

The next turn of a new cell at the bottom of the notebook: the system prompt, the tool list, the
session's history (what the active branch holds: a cell run again would continue from before its
own turn), the notebook outline and the attachments of ``PROMPT``'s mentions (``@df``), the prompt,
then the step context every request ends with (the task plan, the memory index when memory is on). Each part's tokens are estimated the way the runtime estimates a request (``model/tokens``)
and priced with the model's rates: in full, and with the fixed prefix and history read from a
provider's prompt cache. The answer's own tokens come on top.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jupyter_agent.notebook.report import Report
from jupyter_agent.notebook.subcommand_parser import arg

if TYPE_CHECKING:
    import argparse

    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.messages import JsonObject, Message
    from jupyter_agent.model import Model, ToolSpec
    from jupyter_agent.notebook.magics import AgentMagics
    from jupyter_agent.notebook.model_resolution import ModelChoice
    from jupyter_agent.notebook.session_manager import AgentSession
    from jupyter_agent.tools.data_policy import DataPolicy

PREVIEW_SUMMARY = "What the next turn would send (messages, tokens per part, estimated cost); sends nothing."
PREVIEW_ARGUMENTS = (
    arg("-s", "--session", metavar="NAME", help="the session (default: the latest turn's, else the current one)"),
    arg("prompt", nargs="*", metavar="PROMPT", help="the prompt of the turn, @mentions included (default: none)"),
)
SHOWN_MESSAGES = 12  # of the history, the newest: enough to see where the turn continues
PREVIEW_CHARS = 80


@dataclass(frozen=True)
class Part:
    name: str
    tokens: int
    detail: str = ""
    cached: bool = False  # the same as the previous request's beginning: a prompt cache can serve it


def preview_command(magics: AgentMagics, args: argparse.Namespace) -> Report:
    from IPython.core.error import UsageError

    from jupyter_agent.messages import UserMessage
    from jupyter_agent.model.tokens import estimate_overhead, estimate_tokens
    from jupyter_agent.notebook.mentions import expand_mentions
    from jupyter_agent.notebook.request_ahead import next_turn_settings
    from jupyter_agent.notebook.subcommand_parser import session_named
    from jupyter_agent.notebook.system_prompt import notebook_system_prompt, turn_context
    from jupyter_agent.notebook.toolset import build_tools, data_policy, with_feature_tools

    session = session_named(magics, args.session)
    try:
        # What a turn would send: a cell without options, within the site policy, as a turn's settings are.
        settings, choice = next_turn_settings(magics, session.model_name)
    except ValueError as error:  # an invalid environment variable the turn would fall back on
        raise UsageError(str(error)) from None
    policy = data_policy(settings.data_policy, settings.sample_rows, settings.data_ceiling)
    shell = magics.shell
    assert shell is not None  # a magic only runs inside a shell
    base = build_tools(shell, session, selected=settings.tools, policy=policy)
    tools = with_feature_tools(base, shell, session, settings)  # the plan, the notebook tools…
    system = notebook_system_prompt(session.notebook, session.workspace, [tool.name for tool in tools], choice.name)
    history = session.store.messages()
    prompt = " ".join(args.prompt).strip()
    expanded = expand_mentions(prompt, shell.user_ns, session.notebook, policy, session.workspace)
    attachments = expanded[len(prompt) :] if expanded.startswith(prompt) else ""
    outline = turn_context(_outline(shell, session, settings.recent_cells, policy))
    turns = len(session.store.turns())
    name, specs = _counted_name(choice.name), [tool.spec() for tool in tools]
    history_text = "\n".join(_text(message) for message in history)
    parts = [
        Part("system prompt", _count(name, system, lambda: estimate_overhead(system, [])), f"{len(system):,} characters", True),
        Part("tools", _text_tokens(json.dumps(_as_sent(specs))), f"{len(tools)} tools", True),
        Part(
            "history",
            _count(name, history_text, lambda: estimate_tokens(history), per=len(history)),
            f"{len(history)} messages, {turns} turns",
            True,
        ),
        Part(
            "notebook outline",
            _count(name, outline, lambda: _text_tokens(outline)),
            "the date and the cells around the agent cell",
        ),
        Part(
            "attachments",
            _count(name, attachments, lambda: _text_tokens(attachments)),
            "the @mentions" if attachments else "none",
        ),
        Part(
            "prompt",
            _count(name, prompt, lambda: estimate_tokens([UserMessage(content=prompt)])),
            repr(_short(prompt)) if prompt else "none",
        ),
    ]
    step_context, holds = _step_context(session, settings.memory)
    parts.append(Part("step context", _count(name, step_context, lambda: _text_tokens(step_context)), holds))
    model = _model(choice)
    return _report(session.name, choice.name, parts, history, model)


def _step_context(session: AgentSession, memory_on: bool) -> tuple[str, str]:
    """What ends every request of the turn (``features.turn_features``), and what it holds."""
    from jupyter_agent.features.memory.notebook_memory import NotebookMemory
    from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryStore
    from jupyter_agent.features.plan.file import PlanFile
    from jupyter_agent.features.plan.prompt import plan_step_section
    from jupyter_agent.tools.step_context import compose_sections

    plan = plan_step_section(PlanFile(session.path).load(session.store.tool_results_newest_first("plan")))  # the branch's plan
    memory = NotebookMemory(MemoryStore(session.path.parent / MEMORY_FOLDER), enabled=memory_on).step_section()
    holds = [what for what, text in (("the task plan", plan), ("the memory index", memory)) if text]
    return compose_sections([lambda: plan, lambda: memory]) or "", " and ".join(holds) or "none"


# A message's role and separators, as the chat formats count them.
_PER_MESSAGE = 3


def _count(model: str, text: str, estimate: Callable[[], int], per: int = 1) -> int:
    """The model's tokenizer's count (litellm, once loaded), else the runtime's estimate."""
    if not text:
        return 0
    from jupyter_agent.model.litellm_tokens import count_tokens

    counted = count_tokens(model, text)
    return estimate() if counted is None else counted + (per - 1) * _PER_MESSAGE


def _as_sent(specs: list[ToolSpec]) -> list[JsonObject]:
    """The tool definitions as an OpenAI-shaped request carries them (a provider's own rendering differs a little)."""
    return [
        {"type": "function", "function": {"name": s.name, "description": s.description, "parameters": s.parameters}}
        for s in specs
    ]


def _counted_name(name: str) -> str:
    return name.split("/", 1)[1] if name.startswith("openai/") else name


def _outline(shell: InteractiveShell, session: AgentSession, around: int, policy: DataPolicy) -> str:
    if around <= 0:
        return ""
    from jupyter_agent.features.notebook_tools import outline_section, read_disk_cells

    cells, source = read_disk_cells(session.notebook, shell.user_ns)
    return outline_section(cells, source, agent_cell_id=None, around=around, policy=policy)


def _text_tokens(text: str) -> int:
    from jupyter_agent.model.tokens import estimate_overhead

    return estimate_overhead(text, []) if text else 0


def _model(choice: ModelChoice) -> Model | None:
    """The model with its prices, when that needs no import the kernel has not done (litellm's price map)."""
    from jupyter_agent.model.litellm_loader import is_litellm_loaded
    from jupyter_agent.notebook.model_resolution import needs_litellm, resolve

    if needs_litellm(choice) and not is_litellm_loaded():
        return None
    try:
        return resolve(choice).model
    except Exception:  # noqa: BLE001 - an unknown model has no prices; the preview says so
        return None


def _report(session: str, model_name: str, parts: list[Part], history: list[Message], model: Model | None) -> Report:
    total = sum(part.tokens for part in parts)
    cached = sum(part.tokens for part in parts if part.cached)
    rows = ["| part | tokens | |", "|---|---:|---|"] + [f"| {p.name} | {p.tokens:,} | {p.detail} |" for p in parts]
    rows.append(f"| **total** | **{total:,}** | sent as the first request's input |")
    lines = [f"{p.name}: {p.tokens:,} tokens ({p.detail})" for p in parts] + [f"total: {total:,} tokens"]
    cost = _cost_line(model, total, cached)
    head = f"Next turn of session {session} with {model_name} (nothing was sent)"
    shown = history[-SHOWN_MESSAGES:]
    messages = [f"{m.role}: {_short(_text(m))}" for m in shown]
    more = f"(and {len(history) - len(shown)} earlier)" if len(history) > len(shown) else ""
    markdown = "\n\n".join(
        [f"**{head}**", "\n".join(rows), cost, "History sent " + more + ":\n\n" + "\n".join(f"- {line}" for line in messages)]
        if messages
        else [f"**{head}**", "\n".join(rows), cost, "No history: the turn starts the session."]
    )
    text = "\n".join([head, *lines, cost, *messages])
    return Report(markdown, text)


def _cost_line(model: Model | None, total: int, cached: int) -> str:
    if model is None or not model.cost.input:
        return "Estimated cost: unknown (no prices for this model, or litellm has not loaded yet)."
    from jupyter_agent.runtime.spend import CACHE_READ_FACTOR

    read = model.cost.cache_read or model.cost.input * CACHE_READ_FACTOR
    full = total * model.cost.input / 1_000_000
    warm = (cached * read + (total - cached) * model.cost.input) / 1_000_000
    return f"Estimated cost of its input: ${full:.4f} (${warm:.4f} with the prefix and history cached), plus the answer."


def _text(message: Message) -> str:
    from jupyter_agent.messages import without_turn_context

    content = message.content
    text = content if isinstance(content, str) else " ".join(getattr(block, "text", "") or "" for block in content)
    return without_turn_context(text) if message.role == "user" else text


def _short(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= PREVIEW_CHARS else words[: PREVIEW_CHARS - 1] + "…"


__all__ = ["PREVIEW_ARGUMENTS", "PREVIEW_SUMMARY", "preview_command"]
