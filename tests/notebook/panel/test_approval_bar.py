import asyncio
from types import SimpleNamespace

import pytest

from jupyter_agent.notebook.panel.approval_bar import ApprovalBar


def request(name="bash", **args):
    return SimpleNamespace(tool_name=name, args=args or {"command": "rm -rf build"}, label=name)


@pytest.mark.anyio
@pytest.mark.parametrize("decision", ["once", "tool", "call", "deny"])
async def test_each_button_resolves_and_hides(decision):
    bar = ApprovalBar()
    assert not bar.visible
    task = asyncio.ensure_future(bar.ask(request()))
    await asyncio.sleep(0)
    assert bar.visible
    assert "Allow <code>bash</code> to run?" in bar._title.value
    assert bar.buttons["tool"].description == "Allow bash for this session"
    assert "rm -rf build" in bar._args.value
    bar.buttons[decision].click()
    assert await asyncio.wait_for(task, 1) == decision
    assert not bar.visible and bar.request is None


@pytest.mark.anyio
async def test_cancelled_ask_hides_the_bar_and_late_clicks_do_nothing():
    bar = ApprovalBar()
    task = asyncio.ensure_future(bar.ask(request()))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not bar.visible
    bar.buttons["once"].click()  # no waiting request: ignored


@pytest.mark.anyio
async def test_requests_are_taken_one_at_a_time():
    bar = ApprovalBar()
    first = asyncio.ensure_future(bar.ask(request("bash")))
    second = asyncio.ensure_future(bar.ask(request("python", code="1/0")))
    await asyncio.sleep(0)
    assert bar.request.tool_name == "bash"
    bar.buttons["deny"].click()
    assert await first == "deny"
    await asyncio.sleep(0)
    assert bar.request.tool_name == "python" and bar.visible
    bar.buttons["call"].click()
    assert await second == "call"


@pytest.mark.anyio
async def test_click_from_another_thread_is_handed_to_the_loop():
    bar = ApprovalBar()
    task = asyncio.ensure_future(bar.ask(request()))
    await asyncio.sleep(0)
    await asyncio.to_thread(bar.decide, "tool")
    assert await asyncio.wait_for(task, 1) == "tool"
