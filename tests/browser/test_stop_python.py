"""Stop against agent-run Python in real JupyterLab: the click must reach the kernel while the
code blocks its event loop, and the code's output must show while it runs.

JupyterLab sends widget messages on a kernel subshell; ipykernel would hand them to the main
shell (where the widget was made), which the running code blocks. The Stop button's messages
run where they were sent, so the click interrupts the code from the subshell's thread.
"""

from __future__ import annotations

import json
import time

import pytest

from jupyter_agent.testing.waiting import wait_until_blocking

pytestmark = pytest.mark.browser

STEP_TIMEOUT = 60_000  # ms
LOOP = "import time\nticks = 0\nwhile True:\n    ticks += 1\n    print(f'tick {ticks}', flush=True)\n    time.sleep(0.05)\n"
SETUP = (
    "%load_ext jupyter_agent\n"
    "import threading\n"
    "from jupyter_agent.notebook.model_resolution import register_model\n"
    "from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls\n"
    f"looper = ScriptedModel([tool_calls(call('python', {{'code': {LOOP!r}}})), reply('never')])\n"
    "register_model('looper', looper, looper.model('looper'))\n"
    "from jupyter_agent.notebook import runner as _runner\n"
    "stop_threads = []\n"
    "_stop = _runner.Turn.stop\n"
    "def _recording_stop(self):\n"
    "    stop_threads.append(threading.current_thread().name)\n"
    "    return _stop(self)\n"
    "_runner.Turn.stop = _recording_stop\n"
)


def notebook_json(*sources: str) -> dict:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None} for source in sources
    ]
    return {
        "type": "notebook",
        "format": "json",
        "content": {
            "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
    }


def put_notebook(page, lab: str, name: str, body: dict) -> None:
    """Saves a notebook through the server's contents API, as JupyterLab does (with its XSRF token)."""
    page.goto(f"{lab}/lab")
    xsrf = next((c["value"] for c in page.context.cookies() if c["name"] == "_xsrf"), "")
    response = page.request.put(
        f"{lab}/api/contents/{name}", data=json.dumps(body), headers={"Content-Type": "application/json", "X-XSRFToken": xsrf}
    )
    assert response.status in (200, 201), response.text()


def test_stop_while_agent_run_python_loops(lab, browser_page):
    page = browser_page
    put_notebook(
        page,
        lab,
        "stop.ipynb",
        notebook_json(SETUP, "%%agent -m looper -s stop-code -p yolo\nLoop forever", "print(stop_threads)"),
    )
    page.goto(f"{lab}/lab/tree/stop.ipynb?reset")
    cells = page.locator(".jp-NotebookPanel:visible .jp-Cell")
    cells.nth(0).wait_for(timeout=STEP_TIMEOUT)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:  # JupyterLab may ask which kernel the new notebook should use
        page.get_by_role("button", name="Select", exact=True).click(timeout=5_000)
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=STEP_TIMEOUT)
    cells.nth(0).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    cells.nth(0).locator(".jp-InputPrompt").get_by_text("1").wait_for(timeout=STEP_TIMEOUT)
    cells.nth(1).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    panel = cells.nth(1).locator(".ja-panel")
    # Live output: the loop's prints show in its card while the call still runs.
    panel.locator(".ja-tool").first.wait_for(timeout=STEP_TIMEOUT)
    panel.locator(".ja-tool .ja-fold-title").first.click()  # unfold the card
    panel.get_by_text("tick 3", exact=False).first.wait_for(timeout=STEP_TIMEOUT)
    page.screenshot(path="test-artifacts/stop-python-1-live.png")
    clicked = time.monotonic()
    panel.get_by_role("button", name="Stop").click()

    def outcome_of_stop() -> str | None:
        # text_content, not inner_text: once done, the static rendering keeps the tool card in a closed <details>.
        text = cells.nth(1).text_content(timeout=5_000) or ""
        if "the user interrupted it" in text:
            return "stopped"
        return "told to use ■" if "Interrupt (■) stops it now" in text else None

    try:
        outcome = wait_until_blocking(outcome_of_stop, 20, "what Stop did", pause=page.pause_events, every=0.1)
    except AssertionError:
        outcome = None
    page.screenshot(path="test-artifacts/stop-python-2-after-stop.png")
    took = time.monotonic() - clicked
    assert outcome == "stopped", f"Stop did not interrupt the running code within 20 s (told to use ■: {outcome})"
    assert took < 10  # the loop never ends by itself
    # The saved rendering: the call reads "stopped", with no frame or class of the interrupt machinery.
    cells.nth(1).locator(".ja-static").first.wait_for(timeout=STEP_TIMEOUT)
    saved = cells.nth(1).text_content() or ""
    assert " · stopped" in saved and " · error" not in saved, saved
    assert "AgentInterrupted" not in saved and "interrupt.py" not in saved and "site-packages" not in saved, saved
    cells.nth(2).locator(".jp-InputPrompt").click()
    page.keyboard.press("Shift+Enter")
    measured = cells.nth(2).locator(".jp-OutputArea-output")
    measured.first.wait_for(timeout=STEP_TIMEOUT)
    # The click ran on a subshell thread, as JupyterLab sent it, not on the blocked main shell.
    threads = measured.first.inner_text()
    assert threads.startswith("['subshell-"), threads
    assert page.console_errors == [], json.dumps(page.console_errors, indent=1)
