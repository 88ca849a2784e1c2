import asyncio

import pytest
from pydantic import BaseModel

from jupyter_agent import AgentLoopOptions, AgentTool, TextContent
from jupyter_agent.testing.scripted import ScriptedModel
from jupyter_agent.testing.waiting import assert_quiet_for


class Recorder:
    """Collects loop events (as a sync listener)."""

    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    @property
    def types(self):
        return [event.type for event in self.events]


class NumberArgs(BaseModel):
    value: int


class Log:
    def __init__(self):
        self.entries = []


def make_tool(name="echo", log=None, body=None, read_only=True, delay=0.0):
    """A tool that records start/end in ``log`` and echoes its argument; with ``delay`` it works that
    long, and no other tool may start in ``log`` meanwhile."""

    async def execute(args, signal):
        if log is not None:
            log.entries.append(("start", name, args.value))
        if delay:
            started = log.entries[-1] if log is not None else None
            await assert_quiet_for(
                delay, lambda: log is not None and log.entries[-1] != started, f"another tool starting while {name} runs"
            )
        if body is not None:
            result = body(args)
            if asyncio.iscoroutine(result):
                result = await result
        else:
            result = [TextContent(text=f"{name}:{args.value}")]
        if log is not None:
            log.entries.append(("end", name, args.value))
        return result

    return AgentTool(name=name, description=f"The {name} tool", parameters=NumberArgs, execute=execute, read_only=read_only)


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def scripted():
    return ScriptedModel()


def _options_for(scripted, **kwargs):
    return AgentLoopOptions(model=kwargs.pop("model", scripted.model()), stream_fn=scripted, **kwargs)


@pytest.fixture
def options_for():
    return _options_for


@pytest.fixture(name="make_tool")
def make_tool_fixture():
    return make_tool


@pytest.fixture
def log():
    return Log()
