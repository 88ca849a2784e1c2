"""The ``variables`` tool: the user's variables with type, shape or length, and memory.

Never runs user code: every fact comes from ``objects`` (static lookups and library code).
IPython's own names (In, Out, _, _i1, exit, get_ipython, …), names the shell hides, modules and
the agent's own objects are left out; modules are listed on one line.
"""

from __future__ import annotations

import types
from typing import Any

from pydantic import BaseModel

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent
from jupyter_agent.tools.caps import OutputCaps, human_size, truncate_head
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.objects import is_a, is_agent_object, memory_bytes, scalar_text, shape_text, type_name

DESCRIPTION = (
    "List the variables in the notebook's namespace with type, shape or length and memory. "
    "Runs no code. Use inspect for details of one variable."
)

# IPython puts these in the namespace; they are not the user's data.
IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})
# A namespace with thousands of names is listed in part; the model can ask inspect about any.
MAX_VARIABLES = 300


class VariablesArgs(BaseModel):
    pass


def variables_tool(shell: Any, policy: DataPolicy, caps: OutputCaps) -> AgentTool:
    async def execute(args: VariablesArgs, signal) -> list:
        return [TextContent(text=list_variables(shell, policy, caps))]

    return AgentTool(
        name="variables",
        description=DESCRIPTION,
        parameters=VariablesArgs,
        execute=execute,
        label="Variables",
        read_only=True,
    )


def user_variables(shell: Any) -> tuple[list[tuple[str, Any]], list[str]]:
    """(name, value) pairs of user data in namespace order, and the names of imported modules."""
    hidden = getattr(shell, "user_ns_hidden", {}) or {}
    missing = object()
    found: list[tuple[str, Any]] = []
    modules: list[str] = []
    for name, value in list(shell.user_ns.items()):
        if name.startswith("_") or name in IPYTHON_NAMES or hidden.get(name, missing) is value:
            continue
        if is_a(value, types.ModuleType):
            modules.append(name)
        elif not is_agent_object(value):
            found.append((name, value))
    return found, modules


def describe_variable(name: str, value: Any, policy: DataPolicy) -> str:
    parts = [type_name(value)]
    shape = shape_text(value)
    if shape:
        parts.append(shape)
    size = memory_bytes(value)
    if size is not None:
        parts.append(human_size(size))
    line = f"{name}: " + ", ".join(parts)
    literal = scalar_text(value) if policy.shows_values else None
    return line + (f" = {literal}" if literal is not None else "")


def list_variables(shell: Any, policy: DataPolicy, caps: OutputCaps) -> str:
    found, modules = user_variables(shell)
    if not found and not modules:
        return "The namespace has no user variables yet."
    noun = "variable" if len(found) == 1 else "variables"
    lines = [f"{len(found)} {noun}:" if found else "No variables (only modules)."]
    lines += [describe_variable(name, value, policy) for name, value in found[:MAX_VARIABLES]]
    if len(found) > MAX_VARIABLES:
        lines.append(f"[… {len(found) - MAX_VARIABLES} more variables not listed; inspect them by name.]")
    if modules:
        lines.append("modules: " + ", ".join(modules))
    return truncate_head("\n".join(lines), caps, "Inspect variables by name.")
