"""Recorded panel streams: what a panel widget sends a page over one turn, for the front end's tests.

A turn of run events goes through a real ``AgentPanel`` (virtual clock, counting comm); every
message its widget sends after the page's hello is kept with its buffers, with the state the
turn ended in (the ``Document`` snapshot, plain). The front end's tests
(``labextension/test/panel.test.mjs``) replay each stream into a page and check that it ends
showing what that snapshot alone builds; the Python tests check every message follows the
panel's schema. Re-record after changing what the panel sends::

    PYTHONPATH=. python tests/notebook/panel_streams.py
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.notebook.panel import AgentPanel
from jupyter_agent.notebook.panel.coalescer import ManualClock
from jupyter_agent.notebook.panel.comm_meter import CommMeter
from jupyter_agent.notebook.panel.turn_widget import VERSION
from jupyter_agent.runtime import events
from jupyter_agent.runtime.spend import RunUsage

STREAMS = Path(__file__).resolve().parents[2] / "labextension" / "test" / "panel_streams"
# The smallest valid PNG (1×1, transparent).
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
ANSWER = (
    "## Revenue by region 📈\n\nThe data has **1 204 rows** and five columns; `region` has four values. "
    "Here is what stands out:\n\n"
    "1. *North* leads with 41 % of revenue, 🙂 well ahead of the rest.\n"
    "2. South grew fastest: +18 % over the year, mostly in Q3.\n"
    "3. West is flat, and East fell slightly after March.\n\n"
    "| region | revenue | growth |\n|---|---|---|\n| North | 4.1 M | +6 % |\n| South | 2.2 M | +18 % |\n\n"
    "```python\ndf.groupby('region')['revenue'].sum().sort_values()\n```\n\n"
    "Next I would look at <the> margins per region, since revenue alone hides the cost of sales. "
) * 3


def turn() -> Iterator[events.RunEvent]:
    """One turn: thinking, streamed Markdown (emoji: UTF-16 splices), a tool card with an image, a finish."""
    usage = RunUsage()
    yield events.RunStartEvent(step_budget=5)
    yield events.StepStartEvent(step=1)
    thinking = "Let me *look* at the data first, then plot it. " * 2
    for start in range(0, len(thinking), 12):
        yield events.RunThinkingDeltaEvent(delta=thinking[start : start + 12])
    yield events.ToolCallEvent(tool_call_id="c1", name="python", args={"code": "df.plot()"})
    result = [TextContent(text="<Axes: xlabel='region'>"), ImageContent(data=PNG, mime_type="image/png")]
    yield events.ToolResultEvent(tool_call_id="c1", name="python", content=result, is_error=False)
    yield events.StepFinishEvent(step=1, usage=usage, step_usage=usage, model="recorded")
    yield events.StepStartEvent(step=2)
    for start in range(0, len(ANSWER), 10):
        yield events.RunTextDeltaEvent(delta=ANSWER[start : start + 10])
    yield events.FinishEvent(reason="completed", text=ANSWER, usage=usage)


def record(*, can_inflate: bool = True, second_hello_at: int | None = None) -> dict[str, Any]:
    """The messages a panel sends a page over ``turn()`` (events 30 ms apart), and the state it ended in.

    ``second_hello_at``: another page says hello after that many events (its snapshot restarts
    the stream for every page)."""
    messages: list[dict[str, Any]] = []
    with CommMeter() as meter:
        clock = ManualClock()
        panel = AgentPanel(model_label="recorded", session="main", context_window=128_000, clock=clock)
        hello = ["hello", VERSION, can_inflate]  # the page has the front end: the streams stay free of it
        panel.widget._on_message(panel.widget, hello, [])
        for count, event in enumerate(turn()):
            if count == second_hello_at:
                panel.widget._on_message(panel.widget, hello, [])
            panel.handle(event)
            clock.advance(0.03)
        panel.flush()
        for sent in meter.sent:
            if sent.msg_type == "comm_msg" and sent.data.get("method") == "custom":
                buffers = [base64.b64encode(buffer).decode("ascii") for buffer in sent.buffers]
                # As the page gets it: JSON (the widget's operations are tuples until serialized).
                messages.append({"content": json.loads(json.dumps(sent.data["content"])), "buffers": buffers})
        final = panel.widget.document.snapshot()
    return {"messages": messages, "final": json.loads(json.dumps(final))}


RECORDINGS: dict[str, Callable[[], dict[str, Any]]] = {
    "turn.json": lambda: record(),
    "turn-plain.json": lambda: record(can_inflate=False),
    "turn-second-page.json": lambda: record(second_hello_at=60),
}


def write_all() -> None:
    STREAMS.mkdir(parents=True, exist_ok=True)
    for name, recording in RECORDINGS.items():
        (STREAMS / name).write_text(json.dumps(recording(), ensure_ascii=False, indent=None) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_all()
