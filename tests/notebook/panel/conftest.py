"""Shared fixtures for the panel tests: stand-in run events, a byte-counting comm, a manual clock."""

from __future__ import annotations

import base64
import random
from types import SimpleNamespace

import pytest

from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.notebook.panel.coalescer import ManualClock
from jupyter_agent.notebook.panel.comm_meter import CommMeter

# The smallest valid PNG (1×1, transparent).
PNG_1x1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def event(type_: str, **fields) -> SimpleNamespace:
    return SimpleNamespace(type=type_, **fields)


def usage(input_tokens=0, output_tokens=0, spend_usd=0.0, last=0, cache_read=0) -> SimpleNamespace:
    return SimpleNamespace(input_tokens=input_tokens, output_tokens=output_tokens,
                           cache_read_tokens=cache_read, cache_write_tokens=0, spend_usd=spend_usd,
                           last_request_input_tokens=last)


def text_block(text: str) -> TextContent:
    return TextContent(text=text)


def image_block(data: bytes = PNG_1x1) -> ImageContent:
    return ImageContent(data=base64.b64encode(data).decode(), mime_type="image/png")


def sample_answer(chars: int = 20_000, seed: int = 7) -> str:
    """Markdown shaped like a model's long answer: headings, paragraphs, lists, code, tables."""
    rnd = random.Random(seed)
    words = ("the revenue of each region dropped in the last quarter while costs rose so we "
             "group by month and compare the mean with the median to see a clear trend").split()

    def sentence() -> str:
        return " ".join(rnd.choice(words) for _ in range(rnd.randint(8, 20))).capitalize() + "."

    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < chars:
        section += 1
        parts.append(f"## Finding {section}\n\n")
        parts.append(" ".join(sentence() for _ in range(rnd.randint(3, 7)))
                     + " Use `df.groupby('region')` for **this** step.\n\n")
        parts.append("".join(f"- point {i}: {sentence()}\n" for i in range(rnd.randint(3, 6))) + "\n")
        parts.append("```python\n" + "".join(
            f"m{i} = df['c{i}'].mean()  # {sentence()[:30]}\n" for i in range(rnd.randint(5, 15)))
            + "```\n\n")
        if section % 3 == 0:
            parts.append("| region | q3 | q4 |\n|---|---:|---:|\n"
                         + "".join(f"| r{i} | {i * 3} | {i * 2} |\n" for i in range(6)) + "\n")
    return "".join(parts)[:chars]


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
    return SimpleNamespace(event=event, usage=usage, text=text_block, image=image_block,
                           answer=sample_answer, png=PNG_1x1)
