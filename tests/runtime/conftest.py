from collections import Counter

import pytest
from pydantic import BaseModel

from jupyter_agent import AgentTool, Cost, TextContent, Usage
from jupyter_agent.runtime.summarize import SUMMARY_SYSTEM_PROMPT
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, reply


class ValueArgs(BaseModel):
    value: int = 0


def make_tool(name="echo", read_only=True, body=None, started=None, release=None):
    """A tool echoing ``name:value``; ``started``/``release`` (asyncio.Event) let a test hold it."""

    async def execute(args, signal):
        if started is not None:
            started.set()
        if release is not None:
            await release.wait()
        if body is not None:
            return body(args)
        return [TextContent(text=f"{name}:{args.value}")]

    return AgentTool(name=name, description=f"The {name} tool", parameters=ValueArgs, execute=execute, read_only=read_only)


def usage(input=100, output=10, cache_read=0, cache_write=0, cost=0.0):
    return Usage(
        input=input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        total_tokens=input + output + cache_read + cache_write,
        cost=Cost(total=cost),
    )


def is_summary_request(context) -> bool:
    return context.system_prompt == SUMMARY_SYSTEM_PROMPT


class Summaries:
    """Wraps a ScriptedModel: summary requests get ``summary`` (or a failure); the rest play the script."""

    def __init__(self, scripted: ScriptedModel, summary="- summary of earlier work", fail=False):
        self.scripted = scripted
        self.summary = summary
        self.fail = fail
        self.summary_requests = []

    def __call__(self, model, context, options=None, metadata=None):
        if is_summary_request(context):
            self.summary_requests.append(context)
            response = (
                ScriptedResponse(stop_reason="error", error_message="summary failed")
                if self.fail
                else reply(self.summary, usage=usage(50, 20))
            )
            return ScriptedModel([response])(model, context, options, metadata)
        return self.scripted(model, context, options, metadata)


class Events:
    """A sync run listener that records every event."""

    def __init__(self):
        self.events = []

    def __call__(self, event):
        self.events.append(event)

    @property
    def types(self):
        return [event.type for event in self.events]

    def of(self, kind):
        return [event for event in self.events if event.type == kind]


def assert_paired(events):
    calls = Counter(e.tool_call_id for e in events if e.type == "tool_call")
    results = Counter(e.tool_call_id for e in events if e.type == "tool_result")
    assert calls == results and all(n == 1 for n in calls.values()), (calls, results)


@pytest.fixture
def scripted():
    return ScriptedModel()


@pytest.fixture
def events():
    return Events()


class Kit:
    """Helpers for the runtime tests (a fixture: importlib mode cannot import conftest)."""

    make_tool = staticmethod(make_tool)
    usage = staticmethod(usage)
    Summaries = Summaries
    assert_paired = staticmethod(assert_paired)
    is_summary_request = staticmethod(is_summary_request)


@pytest.fixture
def kit():
    return Kit
