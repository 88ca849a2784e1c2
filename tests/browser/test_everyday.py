"""The everyday surfaces in real JupyterLab (headless Debian Chromium): inline completion from the
live namespace, Edit with Agent with its inline diff and %agent undo, the agent side panel. The kernel's completion model is the fake provider in this process (real HTTP on
127.0.0.1); notebooks are written through the server's contents API. Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

import functools
import json

import pytest
from browser_helpers import notebook_content, opened_notebook, run_cells, save_screenshot, wait_until_connected

from jupyter_agent.testing.fake_provider import FakeProvider, call, hanging, text, tool_calls

pytestmark = pytest.mark.browser

WAIT_MS = 60_000  # any single UI wait; the first completion also waits for litellm's import (~8 s)
COLUMN = "revenue_q3"
# The column's name is assembled at run time: no cell's source holds it, only the namespace does.
DATA_CELL = 'import pandas as pd\ndf = pd.DataFrame({"revenue_" + "q3": [1.5, 2.5], "region": ["north", "south"]})'


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


@pytest.fixture
def page(browser_page):
    browser_page.set_default_timeout(WAIT_MS)
    browser_page.console_errors.clear()
    yield browser_page
    assert browser_page.console_errors == [], browser_page.console_errors


def setup_cell(provider, *, turns: bool = False) -> str:
    """Completions (and with ``turns`` the turns too) from the fake provider; a test of turns types
    its prompts with completions off, so that no completion takes the turn's scripted answers."""
    if turns:
        return setup_cell(provider) + '\n%config AgentMagics.model = "openai/fake-model"\n%config AgentMagics.completion = False'
    return (
        "%load_ext jupyter_agent\n"
        '%config AgentMagics.completion_model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        '%config AgentMagics.api_key = "sk-fake"'
    )


def put_notebook(page, lab, name: str, sources: list[str]) -> None:
    content = notebook_content(sources)
    page.goto(f"{lab}/lab?reset")
    status = page.evaluate(
        """async ([name, content]) => {
            const xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
            const response = await fetch(`/api/contents/${name}`, {
                method: 'PUT',
                headers: {'Content-Type': 'application/json', 'X-XSRFToken': decodeURIComponent(xsrf)},
                body: JSON.stringify({type: 'notebook', format: 'json', content}),
            });
            return response.status;
        }""",
        [name, content],
    )
    assert status in (200, 201), status


def open_notebook(page, lab, name: str, sources: list[str]):
    put_notebook(page, lab, name, sources)
    return opened_notebook(page, lab, name)


def editor(notebook, index: int):
    return notebook.locator(".jp-Cell").nth(index).locator(".cm-content")


def source_of(page, index: int) -> str:
    return page.evaluate(
        """index => {
            const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
            return [...panel.querySelectorAll('.jp-Cell')][index].querySelector('.cm-content').innerText;
        }""",
        index,
    )


screenshot = functools.partial(save_screenshot, prefix="everyday")


def column_responder(body):
    """Completes ``df.`` with the first column the prompt lists: only the kernel's namespace knew it.
    A short burst asks for each of its keys, so "d" and "df" ask too, and the accepted text asks
    again: those get an empty answer."""
    prompt = body["messages"][-1]["content"]
    if "df.<CURSOR>" not in prompt:
        return text("", delay=0.05)
    column = prompt.split("columns: ", 1)[1].split(" (", 1)[0]
    return text(column, ".sum()", delay=0.05)


def test_typing_df_dot_shows_a_live_column_as_ghost_text_and_tab_accepts_it(page, lab, provider):
    notebook = open_notebook(page, lab, "complete.ipynb", [setup_cell(provider), DATA_CELL, ""])
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()
    fallback, provider.fallback = provider.fallback, column_responder
    try:
        editor(notebook, 2).click()
        page.keyboard.type("df.")
        ghost = notebook.locator(".jp-GhostText", has_text=COLUMN)
        ghost.wait_for()
        screenshot(page, "completion-ghost")
        assert all(COLUMN not in json.dumps(source) for source in (setup_cell(provider), DATA_CELL))
        prompts = [request["messages"][-1]["content"] for request in provider.requests]
        prompt = next(prompt for prompt in reversed(prompts) if "df.<CURSOR>" in prompt)
        assert f"{COLUMN} (float64)" in prompt
        page.wait_for_function("() => !document.querySelector('.jp-GhostText-streamingIndicator')")
        page.keyboard.press("Tab")
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')][2]"
            ".querySelector('.cm-content').innerText.includes('revenue_q3.sum()')"
        )
        assert source_of(page, 2).strip() == f"df.{COLUMN}.sum()"
    finally:
        provider.fallback = fallback


def test_a_keystroke_during_the_stream_closes_the_models_connection(page, lab, provider):
    notebook = open_notebook(page, lab, "cancel.ipynb", [setup_cell(provider), DATA_CELL, ""])
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()
    disconnects = len(provider.disconnects)

    def hangs_on_df_dot(body):
        # A short burst asks for each of its keys, so "d" and "df" ask too: every request gets an
        # answer, and only the one for "df." hangs on.
        prompt = body["messages"][-1]["content"]
        return hanging("revenue", delay=0.05) if "df.<CURSOR>" in prompt else text("", delay=0.05)

    fallback, provider.fallback = provider.fallback, hangs_on_df_dot
    try:
        editor(notebook, 2).click()
        page.keyboard.type("df.")
        notebook.locator(".jp-GhostText", has_text="revenue").wait_for()  # streaming, and the model hangs on
        page.keyboard.type("r")
        assert provider.wait_for_disconnect(disconnects + 1, timeout=20) is not None
    finally:
        provider.fallback = fallback


EDITED = "total = df.revenue_q3.sum()  # summed by the agent"


def edit_answer(body):
    """The edit run's answer: it read the cell it was given and proposes the new source."""
    prompt = body["messages"][-1]["content"]
    assert "Its current source:" in prompt and "df.head()" in prompt
    return text("Here is the cell:\n```python\n", EDITED, "\n```", delay=0.02)


def open_edit_box(page, notebook, index):
    notebook.locator(".jp-Cell").nth(index).locator(".jp-InputPrompt").click()  # command mode on that cell
    page.keyboard.press("Control+Alt+k")
    box = notebook.locator(".jp-Cell").nth(index).locator(".jp-AgentEdit-prompt")
    box.wait_for()
    return box


def test_edit_with_agent_shows_an_inline_diff_reject_keeps_accept_changes_and_undo_restores(page, lab, provider):
    sources = [setup_cell(provider, turns=True), DATA_CELL, "df.head()"]
    notebook = open_notebook(page, lab, "edit.ipynb", sources)
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()

    provider.queue(edit_answer)
    open_edit_box(page, notebook, 2).fill("sum the revenue instead")
    page.keyboard.press("Enter")
    review = notebook.locator(".jp-Cell").nth(2).locator(".jp-AgentEdit-review")
    review.wait_for()
    assert review.locator(".jp-AgentEdit-removed").inner_text() == "- df.head()"
    assert review.locator(".jp-AgentEdit-added").inner_text() == f"+ {EDITED}"
    screenshot(page, "edit-diff")
    assert source_of(page, 2) == "df.head()"  # nothing changes before a decision
    page.keyboard.press("Escape")
    review.wait_for(state="detached")
    assert source_of(page, 2) == "df.head()"

    # The second time from the cell toolbar's button.
    provider.queue(edit_answer)
    cell = notebook.locator(".jp-Cell").nth(2)
    cell.locator(".jp-InputPrompt").click()
    cell.locator(".jp-cell-toolbar [data-command='jupyter-agent:edit-cell']").click()
    cell.locator(".jp-AgentEdit-prompt").fill("sum the revenue instead")
    page.keyboard.press("Enter")
    review.wait_for()
    page.keyboard.press("Enter")
    review.wait_for(state="detached")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')][2]"
        ".querySelector('.cm-content').innerText.includes('summed by the agent')"
    )
    assert source_of(page, 2) == EDITED

    # %agent undo in a new cell at the end puts the cell back.
    notebook.locator(".jp-Cell").nth(2).locator(".jp-InputPrompt").click()
    page.keyboard.press("b")
    editor(notebook, 3).click()
    page.keyboard.type("%agent undo")
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')][2]"
        ".querySelector('.cm-content').innerText === 'df.head()'"
    )
    notebook.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output", has_text="Reverting the notebook edits").wait_for()


def generate_answer(body):
    """The generate run's answer: a new cell written from the prompt."""
    assert "mean of the revenue" in body["messages"][-1]["content"]
    return text("Here it is:\n```python\n", GENERATED, "\n```", delay=0.02)


GENERATED = "mean = df.revenue_q3.mean()  # written by the agent"


def test_generate_a_cell_writes_a_new_cell_below_for_review(page, lab, provider):
    sources = [setup_cell(provider, turns=True), DATA_CELL]
    notebook = open_notebook(page, lab, "generate.ipynb", sources)
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()
    cells_before = notebook.locator(".jp-Cell").count()

    provider.queue(generate_answer)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt").click()  # command mode on the data cell
    page.keyboard.press("Control+Alt+g")
    box = notebook.locator(".jp-Cell").nth(2).locator(".jp-AgentEdit-prompt")
    box.wait_for()
    assert notebook.locator(".jp-Cell").count() == cells_before + 1  # a new cell, below the active one
    box.fill("the mean of the revenue")
    page.keyboard.press("Enter")
    review = notebook.locator(".jp-Cell").nth(2).locator(".jp-AgentEdit-review")
    review.wait_for()
    assert review.locator(".jp-AgentEdit-added").inner_text() == f"+ {GENERATED}"
    assert source_of(page, 2).strip() == ""  # nothing is written before a decision (an empty line)
    page.keyboard.press("Enter")
    review.wait_for(state="detached")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')][2]"
        ".querySelector('.cm-content').innerText.includes('written by the agent')"
    )
    assert source_of(page, 2) == GENERATED


def side_answer(body):
    """The side panel turn's second request: the inspect result holds the live column."""
    result = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "tool")
    column = "revenue_q3" if "revenue_q3" in json.dumps(result) else "nothing"
    return text("Your frame `df` has the column ", column, ".", delay=0.02)


def test_the_side_panel_runs_a_turn_on_the_notebooks_kernel_and_adds_no_cell(page, lab, provider):
    # yolo: the second turn's python call runs without an approval in between.
    sources = [setup_cell(provider, turns=True) + '\n%config AgentMagics.permissions = "yolo"', DATA_CELL]
    notebook = open_notebook(page, lab, "side.ipynb", sources)
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()
    cells_before = notebook.locator(".jp-Cell").count()
    outputs_before = notebook.locator(".jp-OutputArea-output").count()

    provider.queue(tool_calls(call("inspect", {"name": "df"})), side_answer)
    page.locator(".jp-SideBar li[data-id='jupyter-agent-side-panel']").click()
    side = page.locator("#jupyter-agent-side-panel")
    side.locator(".jp-AgentSidePanel-prompt").fill("What columns does df have?")
    page.keyboard.press("Enter")
    side.locator(".jp-AgentSidePanel-live .ja-panel").wait_for()  # the turn's live panel, the same widget as in a cell
    side.locator(".jp-AgentSidePanel-static", has_text="has the column revenue_q3").first.wait_for()
    screenshot(page, "side-panel")
    assert notebook.locator(".jp-Cell").count() == cells_before
    assert notebook.locator(".jp-OutputArea-output").count() == outputs_before
    assert "What columns does df have?" in provider.requests[-2]["messages"][-1]["content"]
    session = page.evaluate(
        "async () => (await (await fetch('/api/contents/side.agent/chat.jsonl?type=file&format=text&content=1')).json()).content"
    )
    assert "has the column revenue_q3" in session  # the session store, under the name chat

    # The sessions sidebar lists the side panel's session with the notebook's others.
    page.locator(".jp-SideBar li[data-id='jupyter-agent-sessions']").click()
    page.locator(".jp-AgentSessions-item[data-session='chat']").wait_for()

    # A turn that ran Python: its code goes into the notebook as a cell, below the active one.
    if not side.is_visible():  # the sessions sidebar may share its side of the window
        page.locator(".jp-SideBar li[data-id='jupyter-agent-side-panel']").click()
    provider.queue(tool_calls(call("python", {"code": SHAPE_CODE})), text("It has 2 rows.", delay=0.02))
    side.locator(".jp-AgentSidePanel-prompt").fill("How many rows?")
    page.keyboard.press("Enter")
    side.locator(".jp-AgentSidePanel-static", has_text="It has 2 rows.").first.wait_for()
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt").click()
    side.locator(".jp-AgentSidePanel-insert").click()
    page.wait_for_function(
        "code => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .cm-content')]"
        ".some(editor => editor.innerText.includes(code))",
        arg=SHAPE_CODE,
    )
    assert notebook.locator(".jp-Cell").count() == cells_before + 1


SHAPE_CODE = "print(df.shape[0])"


def test_a_turns_notebook_edit_is_reviewed_in_the_cell_and_accept_applies_it(page, lab, provider):
    sources = [setup_cell(provider, turns=True), DATA_CELL, "df.head()"]
    notebook = open_notebook(page, lab, "review.ipynb", sources)
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()
    edit = {"op": "replace", "cell_id": "cell-2", "source": EDITED}
    provider.queue(
        tool_calls(call("notebook_read", {"cell_ids": ["cell-2"]})),
        tool_calls(call("notebook_edit", edit)),
        text("Done.", delay=0.02),
    )
    notebook.locator(".jp-Cell").nth(2).locator(".jp-InputPrompt").click()
    page.keyboard.press("b")
    editor(notebook, 3).click()
    page.keyboard.type("%%agent -s review\nSum the revenue in the last cell")
    page.keyboard.press("Shift+Enter")
    review = notebook.locator(".jp-Cell").nth(2).locator(".jp-AgentEdit-review")
    review.wait_for()
    assert review.locator(".jp-AgentEdit-added").inner_text() == f"+ {EDITED}"
    notebook.locator(".ja-approval:visible").first.wait_for()  # the panel's bar asks too, with its diff
    screenshot(page, "edit-review")
    assert source_of(page, 2) == "df.head()"
    review.locator(".jp-AgentEdit-accept").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')][2]"
        ".querySelector('.cm-content').innerText.includes('summed by the agent')"
    )
    notebook.locator(".ja-static", has_text="Done.").first.wait_for()
    assert notebook.locator(".ja-approval:visible").count() == 0
