import asyncio
from types import SimpleNamespace

import pytest

from jupyter_agent.notebook.panel.approval_bar import ApprovalBar
from jupyter_agent.testing.waiting import wait_until


def request(name="bash", **args):
    return SimpleNamespace(tool_name=name, args=args or {"command": "rm -rf build"}, label=name)


@pytest.mark.anyio
@pytest.mark.parametrize("decision", ["once", "tool", "call", "deny"])
async def test_each_button_resolves_and_hides(decision):
    bar = ApprovalBar()
    assert not bar.visible
    task = asyncio.ensure_future(bar.ask(request()))
    await wait_until(lambda: bar.visible, what="the bar")
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
    await wait_until(lambda: bar.visible, what="the bar")
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
    await wait_until(lambda: bar.visible, what="the bar")
    assert bar.request.tool_name == "bash"
    bar.buttons["deny"].click()
    assert await first == "deny"
    await wait_until(lambda: bar.request is not None, what="the second request")
    assert bar.request.tool_name == "python" and bar.visible
    bar.buttons["call"].click()
    assert await second == "call"


@pytest.mark.anyio
async def test_click_from_another_thread_is_handed_to_the_loop():
    bar = ApprovalBar()
    task = asyncio.ensure_future(bar.ask(request()))
    await wait_until(lambda: bar.visible, what="the bar")
    await asyncio.to_thread(bar.decide, "tool")
    assert await asyncio.wait_for(task, 1) == "tool"


@pytest.mark.anyio
async def test_a_notebook_edit_is_shown_as_a_diff_of_the_cell_it_changes():
    from jupyter_agent.features.notebook_tools import Cell, NotebookReadState

    NotebookReadState().saw([Cell(index=0, id="c1", cell_type="code", source="x = 1\ny = 2")])
    bar = ApprovalBar()
    task = asyncio.ensure_future(bar.ask(request("notebook_edit", op="replace", cell_id="c1", source="x = 1\ny = <3>")))
    await wait_until(lambda: bar.visible, what="the bar")
    shown = bar._args.value
    assert '<pre class="ja-diff">' in shown and "cell c1 (before)" in shown
    assert ">-y = 2</span>" in shown and ">+y = &lt;3&gt;</span>" in shown
    bar.buttons["deny"].click()
    await asyncio.wait_for(task, 1)
