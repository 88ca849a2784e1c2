"""Shared fixtures for the panel tests: stand-in run events, a byte-counting comm, a manual clock."""

from __future__ import annotations

import base64
from types import SimpleNamespace

import pytest

from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.notebook.panel.coalescer import ManualClock
from jupyter_agent.notebook.panel.comm_meter import CommMeter
from jupyter_agent.testing.sample_answer import sample_answer

# The smallest valid PNG (1×1, transparent).
PNG_1x1 = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


# Fields the real event classes default (runtime/events.py), so a fake needs only what it tests.
_DEFAULTS = {"tool_result": {"details": None}}


def event(type_: str, **fields) -> SimpleNamespace:
    return SimpleNamespace(type=type_, **{**_DEFAULTS.get(type_, {}), **fields})


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
    """Stand-ins for run events and their payloads."""
    return SimpleNamespace(event=event, usage=usage, text=text_block, image=image_block, answer=sample_answer, png=PNG_1x1)
