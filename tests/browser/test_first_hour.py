"""What a new user meets in the first hour, in real JupyterLab (offline demo model).

``%%agent --help`` alone prints the help; a tool card's duration leaves out the approval wait; a
call the run was stopped in says "cancelled"; the footer names the demo once; ``Out:`` keeps a
DataFrame's columns aligned; closing a session transcript tab logs no error. Screenshots go to
test-artifacts/first-hour-*.png.
"""

from __future__ import annotations

import functools
import http.cookiejar
import json
import os
import pathlib
import re
import urllib.request

import pytest
from browser_helpers import save_screenshot, wait_until_connected

from jupyter_agent.testing.waiting import assert_quiet_for_blocking

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
STEP_TIMEOUT = 60_000  # ms
BUILD = ROOT / "jupyter_agent" / "labextension"  # this checkout's build of labextension/, if any
EXTENSION = "jupyter-agent-labextension"
APPROVAL_WAIT_MS = 3_000  # how long the "user" reads the approval bar before allowing


@pytest.fixture(scope="module", autouse=True)
def checkout_extension(tmp_path_factory):
    """Serves this checkout's build of the lab extension when there is one (else the installed one)."""
    if not (BUILD / "package.json").exists():
        yield
        return
    folder = tmp_path_factory.mktemp("jupyter-path")
    (folder / "labextensions").mkdir()
    (folder / "labextensions" / EXTENSION).symlink_to(BUILD)
    previous = os.environ.get("JUPYTER_PATH")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(folder), previous]))
    try:
        yield
    finally:
        if previous is None:
            del os.environ["JUPYTER_PATH"]
        else:
            os.environ["JUPYTER_PATH"] = previous


def served_extension() -> pathlib.Path:
    """The build JupyterLab loads: this checkout's, else the first installed one on the Jupyter path."""
    if (BUILD / "package.json").exists():
        return BUILD
    from jupyter_core.paths import jupyter_path

    return next(
        (
            pathlib.Path(folder) / EXTENSION
            for folder in jupyter_path("labextensions")
            if (pathlib.Path(folder) / EXTENSION / "package.json").exists()
        ),
        BUILD,
    )


def put_notebook(lab: str, name: str, sources: list[str]) -> None:
    cells = [
        {"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {}, "outputs": [], "source": source}
        for i, source in enumerate(sources)
    ]
    content = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    body = json.dumps({"type": "notebook", "format": "json", "content": content}).encode()
    # The server wants its XSRF cookie echoed on a PUT, even without a token.
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{lab}/lab", timeout=30).close()
    xsrf = next(cookie.value for cookie in jar if cookie.name == "_xsrf")
    request = urllib.request.Request(
        f"{lab}/api/contents/{name}", data=body, method="PUT", headers={"Content-Type": "application/json", "X-XSRFToken": xsrf}
    )
    opener.open(request, timeout=30).close()


def open_notebook(page, lab: str, name: str, sources: list[str]):
    put_notebook(lab, name, sources)
    page.goto(f"{lab}/lab/tree/{name}?reset")
    notebook = page.locator(".jp-NotebookPanel:visible")
    notebook.locator(".jp-Cell").first.wait_for(timeout=STEP_TIMEOUT)
    # The kernel is ready once the status bar says so; cells run before that are dropped.
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for(timeout=STEP_TIMEOUT)
    return notebook


def run_cells(page, notebook, first: int, last: int) -> None:
    """Runs cells ``first``..``last`` one at a time, each after the one before has finished."""
    for index in range(first, last + 1):
        cell = notebook.locator(".jp-Cell").nth(index)
        cell.locator(".jp-InputPrompt").click()  # command mode on that cell
        page.keyboard.press("Shift+Enter")
        # "[n]:" once the kernel ran it (a %%agent cell returns at once; its panel keeps going).
        cell.locator(".jp-InputPrompt", has_text=re.compile(r"\[\d+\]")).wait_for(timeout=STEP_TIMEOUT)


screenshot = functools.partial(save_screenshot, prefix="first-hour")


def test_agent_help_alone_in_a_cell_prints_the_help(lab, browser_page):
    page = browser_page
    notebook = open_notebook(page, lab, "help.ipynb", ["%load_ext jupyter_agent", "%%agent --help"])
    run_cells(page, notebook, 0, 1)
    output = notebook.locator(".jp-Cell").nth(1).locator(".jp-OutputArea")
    try:
        output.get_by_text("usage: %%agent").first.wait_for(timeout=STEP_TIMEOUT)
    finally:
        screenshot(page, "help")
    text = output.inner_text()
    assert "--max-spend" in text and "cell body is empty" not in text, text


def test_tool_cards_time_the_run_say_cancelled_align_out_and_name_the_demo_once(lab, browser_page):
    page = browser_page
    sources = [
        "%load_ext jupyter_agent",
        "import pandas as pd\nsales = pd.DataFrame({'month': ['2024-01', '2024-02'], 'north': [101, 95], 'south': [80, 1200]})",
        "%%agent\nSummarise the sales DataFrame.",
        "%%agent\nSummarise it again.",
    ]
    notebook = open_notebook(page, lab, "cards.ipynb", sources)
    run_cells(page, notebook, 0, 2)
    first = notebook.locator(".jp-Cell").nth(2)
    allow = first.get_by_role("button", name="Allow once")
    allow.wait_for(timeout=STEP_TIMEOUT)
    # The live panel, while the answer still streams (a finished turn becomes a static rendering).
    live = first.locator(".ja-panel")
    card = live.locator(".ja-tool", has_text="sales.describe()").first
    # The user reads the code; the call waiting for it does not run meanwhile.
    ran = card.get_by_text(re.compile(r"— done"))
    assert_quiet_for_blocking(APPROVAL_WAIT_MS / 1000, ran.count, "the call running before it was allowed", every=0.1)
    allow.click()
    card.get_by_text(re.compile(r"— done · [\d.]+ s")).wait_for(timeout=STEP_TIMEOUT)
    title = card.inner_text()
    took = re.search(r"— done · ([\d.]+) s", title)
    assert took and float(took.group(1)) < APPROVAL_WAIT_MS / 1000, f"the duration includes the approval wait: {title}"
    footer = live.locator(".ja-footer").first.inner_text()
    assert footer.count("offline demo model") == 1, footer
    card.get_by_text("sales.describe()").first.click()  # the card's title: unfold it
    output = card.locator("pre", has_text="Out:").last
    output.wait_for(timeout=STEP_TIMEOUT)
    card.scroll_into_view_if_needed()
    screenshot(page, "card")
    lines = output.inner_text().splitlines()
    assert lines[0] == "Out:", lines
    header = next(line for line in lines if "north" in line and "south" in line)
    row = next(line for line in lines if line.startswith("mean"))
    assert header.index("south") + len("south") == len(row.rstrip()), (header, row)  # right-aligned columns
    style = output.evaluate("node => [getComputedStyle(node).fontFamily, getComputedStyle(node).whiteSpace]")
    assert "mono" in style[0].lower() or "menlo" in style[0].lower(), style
    assert style[1] in ("pre", "pre-wrap"), style
    first.locator(".ja-static").first.wait_for(timeout=STEP_TIMEOUT)  # the turn ended

    # Stopped while the second turn waits for approval: its call says "cancelled", not "error".
    run_cells(page, notebook, 3, 3)
    second = notebook.locator(".jp-Cell").nth(3)
    second.get_by_role("button", name="Allow once").wait_for(timeout=STEP_TIMEOUT)
    second.get_by_role("button", name="Stop").click()
    second.locator(".ja-static").first.wait_for(timeout=STEP_TIMEOUT)  # the stopped turn's rendering
    stopped = second.locator(".jp-OutputArea").inner_text()
    assert re.search(r"python · sales\.describe\(\) · cancelled", stopped), stopped
    assert "✗" not in stopped and "error" not in stopped.lower(), stopped
    second.scroll_into_view_if_needed()
    screenshot(page, "cancelled")
    assert page.console_errors == [], page.console_errors


def test_closing_a_session_transcript_tab_logs_no_error(lab, browser_page):
    page = browser_page
    if not any("onBeforeDetach" in path.read_text(errors="ignore") for path in served_extension().glob("static/*.js")):
        pytest.skip(
            f"the lab extension served from {served_extension()} predates the transcript fix: rebuild it "
            "(pip install -e . with Node.js; CI always does)"
        )
    notebook = open_notebook(
        page, lab, "transcript.ipynb", ["%load_ext jupyter_agent", "%%agent -p yolo -s review\nSummarize my kernel."]
    )
    run_cells(page, notebook, 0, 1)
    notebook.locator(".ja-static").first.wait_for(timeout=STEP_TIMEOUT)  # the turn ended
    wait_until_connected(page, timeout=STEP_TIMEOUT)
    page.locator(".jp-SideBar li[data-id='jupyter-agent-sessions']").click()
    page.locator(".jp-AgentSessions-item[data-session='review']").click()
    transcript = page.locator(".jp-AgentTranscript:visible")
    transcript.locator("h3", has_text="You").first.wait_for(timeout=STEP_TIMEOUT)
    screenshot(page, "transcript")
    errors_before = list(page.console_errors)
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="Agent: review").locator(".lm-TabBar-tabCloseIcon").click()
    transcript.wait_for(state="detached", timeout=STEP_TIMEOUT)
    # Console messages arrive asynchronously (Playwright delivers them while the page is waited on).
    assert_quiet_for_blocking(
        0.5, lambda: page.console_errors != errors_before, "an error logged on close", pause=page.pause_events, every=0.05
    )
    assert page.console_errors == errors_before, page.console_errors
