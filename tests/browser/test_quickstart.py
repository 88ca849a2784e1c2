"""The quick-start in real JupyterLab, cell by cell, as a user runs it (offline demo model).

Checks what only a browser shows: the panel renders, its text streams in, Steer and the approval
buttons work (JupyterLab sends those clicks to a kernel subshell thread), Stop stops, later cells
run while nothing hangs, and the page logs no errors. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from jupyter_agent.testing.waiting import wait_until_blocking

pytestmark = pytest.mark.browser

ARTIFACTS = pathlib.Path(__file__).resolve().parents[2] / "test-artifacts"
STEP_TIMEOUT = 60_000  # ms; the kernel's first cells and the demo's turns take a few seconds


def visible_notebook(page):
    return page.locator(".jp-NotebookPanel:visible")


def cell(page, index):
    return visible_notebook(page).locator(".jp-Cell").nth(index)


# "[*]:" once JupyterLab sent the cell to the kernel, "[n]:" once it ran (a %%agent cell returns at once).
STARTED = re.compile(r"\[(\d+|\*)\]")


def run_cells(page, first, last):
    """Runs cells ``first``..``last`` as a user does: select each, Shift+Enter, see a code cell start.

    Waiting for each code cell's prompt makes a lost key press fail at the cell it was meant for,
    rather than a minute later at a missing output.
    """
    from playwright.sync_api import Error

    for index in range(first, last + 1):
        target = cell(page, index)

        def clicked(target=target) -> bool:
            try:
                target.scroll_into_view_if_needed(timeout=STEP_TIMEOUT)
                target.locator(".jp-InputPrompt").click()  # command mode on that cell, focus off any widget
                return True
            except Error:  # JupyterLab may re-render cells right after the notebook opens
                return False

        wait_until_blocking(clicked, STEP_TIMEOUT / 1000, f"cell {index} to take a click", every=0.5)
        page.keyboard.press("Shift+Enter")
        if "jp-CodeCell" in (target.get_attribute("class") or ""):
            target.locator(".jp-InputPrompt", has_text=STARTED).wait_for(timeout=STEP_TIMEOUT)


# The live panel while the turn runs; its static rendering once it ended.
VIEW = ".ja-panel, .ja-static"


def panel_text(page, index):
    return cell(page, index).locator(VIEW).first.inner_text()


def wait_for_text(page, index, text, timeout=STEP_TIMEOUT):
    cell(page, index).locator(VIEW).get_by_text(text).first.wait_for(timeout=timeout)


def wait_for_state(page, index, state, timeout=STEP_TIMEOUT):
    cell(page, index).locator(f".ja-panel.ja-state-{state}, .ja-static.ja-state-{state}").first.wait_for(timeout=timeout)


@pytest.fixture(scope="module")
def notebook(lab, browser_page):
    page = browser_page
    page.goto(f"{lab}/lab/tree/quickstart.ipynb?reset")
    cell(page, 0).wait_for(timeout=STEP_TIMEOUT)
    # The kernel is ready once the status bar says so; cells run before that are dropped.
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=STEP_TIMEOUT)
    return page


def test_quickstart_cell_by_cell(notebook):
    page = notebook
    # Setup cells: %load_ext, %agent config, the data.
    run_cells(page, 0, 6)
    cell(page, 3).get_by_text("model in use: demo").wait_for(timeout=STEP_TIMEOUT)
    cell(page, 5).locator("table").wait_for(timeout=STEP_TIMEOUT)

    # The first %%agent cell: the panel renders, asks to run python; a steer is queued meanwhile.
    run_cells(page, 7, 7)
    panel = cell(page, 7).locator(".ja-panel")
    panel.wait_for(timeout=STEP_TIMEOUT)
    allow = panel.get_by_role("button", name="Allow once")
    allow.wait_for(timeout=STEP_TIMEOUT)
    assert "sales.describe()" in panel_text(page, 7)  # the approval bar shows the arguments
    panel.locator("textarea").fill("focus on the north region")
    panel.get_by_role("button", name="Steer").click()
    wait_for_text(page, 7, "queued steer")
    page.screenshot(path=str(ARTIFACTS / "quickstart-1-approval.png"))
    allow.click()

    # The answer streams in: the panel's text grows over several samples before it is done.
    lengths = []

    def sampled_to_the_end() -> bool:
        view = cell(page, 7).locator(VIEW).first
        lengths.append(len(view.inner_text()))
        return "ja-state-done" in (view.get_attribute("class") or "")

    wait_until_blocking(sampled_to_the_end, STEP_TIMEOUT / 1000, "the answer to finish", every=0.1)
    growth = sorted(set(lengths))
    assert len(growth) >= 4, f"the answer did not stream: {growth}"
    # The live panel is "done" a moment before the static finish replaces it: read the saved form.
    cell(page, 7).locator(".ja-static.ja-state-done").wait_for(timeout=STEP_TIMEOUT)
    final = panel_text(page, 7)
    assert "I received your message at the next step: focus on the north region" in final
    assert "python · " in final and " · done" in final  # the approved call ran
    assert cell(page, 7).locator(".ja-panel").count() == 0  # the finished turn left no widget
    page.screenshot(path=str(ARTIFACTS / "quickstart-2-answer.png"))

    # The second %%agent cell: Stop while it waits for approval.
    run_cells(page, 8, 9)
    panel2 = cell(page, 9).locator(".ja-panel")
    panel2.get_by_role("button", name="Allow once").wait_for(timeout=STEP_TIMEOUT)
    panel2.get_by_role("button", name="Stop").click()
    wait_for_state(page, 9, "stopped")
    panel2.get_by_role("button", name="Allow once").wait_for(state="hidden", timeout=10_000)  # the bar is gone
    page.screenshot(path=str(ARTIFACTS / "quickstart-3-stopped.png"))

    # The rest: %agent wait / usage / sessions / history.
    run_cells(page, 10, 13)
    cell(page, 11).get_by_text("Usage of session").wait_for(timeout=STEP_TIMEOUT)
    cell(page, 12).get_by_text("main (current)").wait_for(timeout=STEP_TIMEOUT)
    cell(page, 13).get_by_text("focus on the north region").first.wait_for(timeout=STEP_TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / "quickstart-4-end.png"), full_page=True)

    assert page.console_errors == [], json.dumps(page.console_errors, indent=1)


DEMO_LABEL = "# offline demo completion"


def test_the_quickstarts_last_cell_shows_the_demos_labelled_completion(notebook):
    """Its last section: typing ``sales.`` in the empty cell shows the demo's ghost text; Tab takes it."""
    page = notebook
    index = visible_notebook(page).locator(".jp-Cell").count() - 1
    last = cell(page, index)  # by index: running the last cell adds an empty one below
    last.scroll_into_view_if_needed(timeout=STEP_TIMEOUT)
    assert last.locator(".cm-content").inner_text().strip() == ""  # shipped empty, for the reader to type in
    run_cells(page, 0, 5)  # the extension and the data (the cell-by-cell test ran them too)
    cell(page, 5).locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]")).wait_for(timeout=STEP_TIMEOUT)
    page.locator(".jp-NotebookPanel[data-jupyter-agent='connected']:visible").wait_for(timeout=STEP_TIMEOUT)
    last.locator(".cm-content").click()
    page.keyboard.type("sales.")
    ghost = visible_notebook(page).locator(".jp-GhostText", has_text=DEMO_LABEL)
    ghost.wait_for(timeout=STEP_TIMEOUT)
    shown = ghost.inner_text()
    assert shown.startswith("month.describe()"), shown  # the frame's first column: it came from the kernel
    page.screenshot(path=str(ARTIFACTS / "quickstart-5-completion.png"))
    page.wait_for_function("() => !document.querySelector('.jp-GhostText-streamingIndicator')")
    page.keyboard.press("Tab")
    accepted = f"sales.month.describe()  {DEMO_LABEL}"
    page.wait_for_function(
        "text => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')].pop()"
        ".querySelector('.cm-content').innerText.includes(text)",
        arg=accepted,
    )
    page.keyboard.press("Shift+Enter")  # the accepted line runs: the column's summary
    last.locator(".jp-OutputArea-output", has_text="count").wait_for(timeout=STEP_TIMEOUT)
    assert page.console_errors == [], json.dumps(page.console_errors, indent=1)
