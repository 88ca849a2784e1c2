"""The one exception a tool raises on purpose: a refusal or failure the model should read.

The loop turns any exception from a tool into an error result whose text is ``str(exception)``,
so the message is written for the model: what went wrong and what to do instead.
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.errors import JupyterAgentError


class ToolError(JupyterAgentError):
    """An error result with exactly this message (``is_error`` set by the loop) and ``details``."""

    def __init__(self, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return self.message
