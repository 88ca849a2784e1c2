"""Shared fixtures for the panel tests: run events with defaults, a byte-counting comm, a manual clock."""

from __future__ import annotations

import base64
import typing
from types import SimpleNamespace

import pytest

from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.notebook.panel.coalescer import ManualClock
from jupyter_agent.notebook.panel.comm_meter import CommMeter
from jupyter_agent.runtime import events
from jupyter_agent.testing.sample_answer import sample_answer

# The smallest valid PNG (1×1, transparent).
PNG_1x1 = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


# What a test leaves out of an event: the values a plain run would carry.
_DEFAULTS = {
    "step_budget": None,
    "step": 1,
    "delta": "",
    "tool_call_id": "",
    "name": "tool",
    "args": {},
    "content": [],
    "is_error": False,
    "details": None,
    "local_content": None,
    "time_limit": None,
    "withheld": "",
    "usage": None,
    "step_usage": None,
    "model": "m",
    "text": "",
    "delivery": "steer",
    "phase": "delivered",
    "dropped_messages": 0,
    "kept_messages": 0,
    "summary_chars": 0,
    "summary": "",
    "first_kept_index": 0,
    "reason": "completed",
    "decision": "once",
}
_EVENTS = {cls.__dataclass_fields__["type"].default: cls for cls in typing.get_args(events.RunEvent)}


def event(type_: str, **fields):
    """A real run event of that type with the fields not given defaulted; other shapes as given.

    Renderers match on the run events' fields; a request, a sub-agent's event or a deliberately
    malformed one stays a plain namespace holding just what the test wrote.
    """
    cls = _EVENTS.get(type_)
    names = [name for name, spec in cls.__dataclass_fields__.items() if spec.init] if cls else []
    if cls is None or not set(fields) <= set(names):
        return SimpleNamespace(type=type_, **fields)
    return cls(**{name: fields[name] if name in fields else _DEFAULTS[name] for name in names})


def malformed(type_: str) -> SimpleNamespace:
    """An event with its tag and none of its fields: a renderer must report it, not raise."""
    return SimpleNamespace(type=type_)


def usage(input_tokens=0, output_tokens=0, spend_usd=0.0, last=0, cache_read=0) -> SimpleNamespace:
    return SimpleNamespace(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=0,
        spend_usd=spend_usd,
        last_request_input_tokens=last,
    )


def text_block(text: str) -> TextContent:
    return TextContent(text=text)


def image_block(data: bytes = PNG_1x1) -> ImageContent:
    return ImageContent(data=base64.b64encode(data).decode(), mime_type="image/png")


@pytest.fixture
def meter():
    with CommMeter() as active:
        yield active


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def kit() -> SimpleNamespace:
    """Run events and stand-ins for their payloads."""
    return SimpleNamespace(
        event=event, malformed=malformed, usage=usage, text=text_block, image=image_block, answer=sample_answer, png=PNG_1x1
    )
