"""``kernel_tools``: python, variables and inspect over a live IPython shell."""

from __future__ import annotations

from typing import Any

from jupyter_agent.loop import AgentTool
from jupyter_agent.tools.caps import DEFAULT_CAPS, OutputCaps
from jupyter_agent.tools.data_policy import DataPolicy, DataPolicyName
from jupyter_agent.tools.inspect_tool import inspect_tool
from jupyter_agent.tools.python_tool import BeforeBlocking, CodeWatch, LiveOutput, TimeLimit, python_tool
from jupyter_agent.tools.variables import variables_tool


def kernel_tools(
    shell: Any,
    *,
    data_policy: DataPolicyName = "sample",  # see DataPolicy for why these defaults
    sample_rows: int = 5,
    caps: OutputCaps | None = None,
    live: LiveOutput | None = None,
    watch: CodeWatch | None = None,
    policy: DataPolicy | None = None,
    time_limit: TimeLimit | None = None,
    python_timeout: float | None = None,
    before_blocking: BeforeBlocking | None = None,
) -> list[AgentTool]:
    """Tools over ``shell`` (an IPython ``InteractiveShell``; in the kernel, its ZMQ shell).

    ``data_policy`` bounds what every tool sends the model, python's printed output and results
    included: "schema" (structure, no values), "sample" (statistics, ``sample_rows`` rows, a few
    lines of any text) or "full" (as much as the caps allow); ``policy`` gives the whole
    ``DataPolicy`` instead. ``live``: where the python tool shows its output while the code runs
    (see ``python_tool.LiveOutput``); ``watch``: what sees each python call's effect on the
    namespace (see ``python_tool.CodeWatch``); ``time_limit`` interrupts a python call after
    ``python_timeout`` seconds (see ``python_tool.TimeLimit``).
    """
    policy = policy or DataPolicy(data_policy, sample_rows)
    caps = caps or DEFAULT_CAPS
    python = python_tool(
        shell, caps, live, watch, policy=policy, time_limit=time_limit, timeout=python_timeout, before_blocking=before_blocking
    )
    return [python, variables_tool(shell, policy, caps), inspect_tool(shell, policy, caps)]
