"""What a run resolves to: ``RunResult`` and the stop reasons."""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.messages import Message
from jupyter_agent.runtime.limits import MAX_SPEND, MAX_STEPS, STOPPED_BY_CALLER
from jupyter_agent.runtime.spend import RunUsage

COMPLETED = "completed"
MAX_OUTPUT = "max_output"
MAX_CONTEXT = "max_context"
ABORTED = "aborted"
ERROR = "error"
STOP_REASONS = (COMPLETED, MAX_STEPS, MAX_SPEND, MAX_OUTPUT, MAX_CONTEXT, STOPPED_BY_CALLER, ABORTED, ERROR)


@dataclass
class RunResult:
    text: str  # the last answer's text (what had streamed, when interrupted)
    reason: str  # one of STOP_REASONS
    usage: RunUsage  # cumulative
    messages: list[Message]  # the full transcript, prior messages included; never compacted
    steps: int
    compactions: int
    error: str | None = None  # what went wrong, when reason is "error"
