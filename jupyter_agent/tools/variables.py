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
from jupyter_agent.tools.disclosure import under_policy
from jupyter_agent.tools.objects import is_a, is_agent_object, memory_bytes, scalar_text, value_header

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
    async def execute(args: VariablesArgs, signal) -> Any:
        return under_policy([TextContent(text=list_variables(shell, policy, caps))], policy)

    return AgentTool(
        name="variables",
        description=DESCRIPTION,
        parameters=VariablesArgs,
        execute=execute,
        label="Variables",
        read_only=True,
    )


def user_variables(shell: Any, limit: int | None = None) -> tuple[list[tuple[str, Any]], int, list[str]]:
    """(name, value) pairs of user data in namespace order (the first ``limit``), how many there
    are, and the names of imported modules.

    A namespace of 10 000 names is walked making as few objects as it can (no pair per name): a
    burst of them sets off the garbage collector, whose full pass over a kernel's heap costs more
    than the listing."""
    namespace = shell.user_ns
    hidden = getattr(shell, "user_ns_hidden", {}) or {}
    missing = object()
    found: list[tuple[str, Any]] = []
    count = 0
    modules: list[str] = []
    for name in list(namespace):
        value = namespace.get(name, missing)
        if value is missing or name.startswith("_") or name in IPYTHON_NAMES or hidden.get(name, missing) is value:
            continue
        if is_a(value, types.ModuleType):
            modules.append(name)
        elif not is_agent_object(value):
            count += 1
            if limit is None or len(found) < limit:
                found.append((name, value))
    return found, count, modules


def describe_variable(name: str, value: Any, policy: DataPolicy) -> str:
    line = value_header(name, value)
    size = memory_bytes(value)
    if size is not None:
        line += f", {human_size(size)}"
    literal = scalar_text(value) if policy.shows_values else None
    return line + (f" = {literal}" if literal is not None else "")


def list_variables(shell: Any, policy: DataPolicy, caps: OutputCaps) -> str:
    found, count, modules = user_variables(shell, MAX_VARIABLES)
    if not found and not modules:
        return "The namespace has no user variables yet."
    noun = "variable" if count == 1 else "variables"
    lines = [f"{count} {noun}:" if found else "No variables (only modules)."]
    lines += [describe_variable(name, value, policy) for name, value in found]
    if count > MAX_VARIABLES:
        lines.append(f"[… {count - MAX_VARIABLES} more variables not listed; inspect them by name.]")
    if modules:
        lines.append("modules: " + ", ".join(modules))
    return truncate_head("\n".join(lines), caps, "Inspect variables by name.")
