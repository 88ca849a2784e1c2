import asyncio
from types import SimpleNamespace

import pytest

from jupyter_agent.notebook.panel.approval_bar import ApprovalBar
from jupyter_agent.testing.waiting import wait_until


def request(name="bash", preview=None, **args):
    return SimpleNamespace(tool_name=name, args=args or {"command": "rm -rf build"}, label=name, preview=preview)


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
    from jupyter_agent.features.notebook_tools.state import edit_preview

    NotebookReadState().saw([Cell(index=0, id="c1", cell_type="code", source="x = 1\ny = 2")])
    bar = ApprovalBar()
    args = {"op": "replace", "cell_id": "c1", "source": "x = 1\ny = <3>"}
    # The preview is the tool's own (notebook_edit's approval_preview); the bar only draws it.
    task = asyncio.ensure_future(bar.ask(request("notebook_edit", preview=edit_preview(args), **args)))
    await wait_until(lambda: bar.visible, what="the bar")
    shown = bar._args.value
    assert '<pre class="ja-diff">' in shown and "--- cell 1 [ ] · id c1 (before)" in shown  # the cell as the user finds it
    assert ">-y = 2</span>" in shown and ">+y = &lt;3&gt;</span>" in shown
    # The diff says all the edit does: shown once, the arguments folded away behind one click.
    assert shown.count("y = &lt;3&gt;") == 2 and shown.index("ja-diff") < shown.index("<details")
    bar.buttons["deny"].click()
    await asyncio.wait_for(task, 1)


@pytest.mark.anyio
async def test_a_tools_preview_that_is_not_complete_sits_above_the_whole_arguments():
    from jupyter_agent.loop import ApprovalPreview

    bar = ApprovalBar()
    preview = ApprovalPreview("[3] df = load()\n    df.head()", kind="code")
    task = asyncio.ensure_future(bar.ask(request("notebook_run", preview=preview, cell_id="7eb47f37")))
    await wait_until(lambda: bar.visible, what="the bar")
    shown = bar._args.value
    assert '<pre class="ja-preview ja-preview-code">[3] df = load()' in shown and "<details" not in shown
    assert shown.index("ja-preview") < shown.index("7eb47f37")
    bar.buttons["deny"].click()
    await asyncio.wait_for(task, 1)


@pytest.mark.anyio
async def test_the_whole_call_is_shown_once_with_invisible_characters_revealed():
    bar = ApprovalBar()
    content = "x" * 30_000 + "TAIL-MARKER"
    hidden = "rm -rf ~/\u202e# txt.esu\u2069 \u200b\u2066\ufeff\U000e0041"
    task = asyncio.ensure_future(
        bar.ask(
            SimpleNamespace(
                tool_name="write",
                args={"path": "a.py", "content": content, "note": hidden},
                label='write {"path": "a.py", "content": "xxxx..."}',
            )
        )
    )
    await wait_until(lambda: bar.visible, what="the approval bar")
    assert "TAIL-MARKER" in bar._args.value and "more characters not shown" not in bar._args.value
    assert bar._title.value == "<b>Allow <code>write</code> to run?</b>"  # no raw JSON repeat
    assert bar._args.value.count("a.py") == 1
    for code in ("U+202E", "U+2069", "U+200B", "U+2066", "U+FEFF", "U+E0041"):
        assert f"⟨{code}⟩" in bar._args.value
    assert not any(ch in bar._args.value for ch in "\u202e\u2069\u200b\u2066\ufeff\U000e0041")
    bar.decide("deny")
    assert await task == "deny"


@pytest.mark.anyio
async def test_the_tools_own_label_stays_in_the_title_without_the_arguments_json():
    bar = ApprovalBar()
    task = asyncio.ensure_future(
        bar.ask(
            SimpleNamespace(
                tool_name="mcp__demo__add_note",
                args={"text": "remember"},
                label='add_note on MCP server demo {"text": "remember"}',
            )
        )
    )
    await wait_until(lambda: bar.visible, what="the approval bar")
    assert bar._title.value == (
        '<b>Allow <code>mcp__demo__add_note</code> to run?</b> <span class="ja-note">add_note on MCP server demo</span>'
    )
    bar.decide("once")
    assert await task == "once"
