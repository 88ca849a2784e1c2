"""Control over the agent's code in real JupyterLab (issue 28): the running card counts the time
limit down, a slow cell asks before notebook_run re-runs it, and a stale re-run lists its cells
before the user approves. The agent is a scripted model registered in the kernel; one server and
one browser for the module, each test on its own notebook. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import functools
import re
import sys

import pytest
from browser_helpers import (
    free_port,
    opened_notebook,
    save_screenshot,
    server_options,
    start_server,
    stop_server,
    wait_until_connected,
    write_lab_settings,
    write_notebook,
)
from browser_helpers import run_cells as browser_run_cells

from jupyter_agent.testing.waiting import wait_until_blocking

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab(tmp_path_factory, checkout_extension_args):
    root = tmp_path_factory.mktemp("agent-code")
    write_lab_settings(root / ".settings-lab")
    command = [sys.executable, "-m", "jupyterlab", *server_options(free_port(), root), *checkout_extension_args]
    server, url = start_server(command, root, "lab")
    try:
        yield url, root
    finally:
        stop_server(server)


def open_notebook(page, lab, name: str, sources: list[str]):
    url, root = lab
    write_notebook(root / name, sources)
    return opened_notebook(page, url, name)


def run_cells(page, notebook, count: int) -> None:
    browser_run_cells(page, notebook, count, start=".jp-Cell .jp-InputPrompt")  # command mode: no edit of the first cell


screenshot = functools.partial(save_screenshot, prefix="agent-code")


def agent_setup(name: str, steps: str, *config: str) -> str:
    """The first cell: the extension, ``config`` lines, and a scripted model ``name`` taking ``steps``."""
    return "\n".join(
        [
            "%load_ext jupyter_agent",
            *config,
            "from jupyter_agent.notebook.model_resolution import register_model",
            "from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls",
            f"{name} = ScriptedModel([{steps}])",
            f"register_model({name!r}, {name}, {name}.model({name!r}))",
        ]
    )


def seconds_left(title: str) -> int | None:
    """The countdown a running card's title ends with ("⋯ python: … — running… 27 s left"), in seconds."""
    found = re.search(r"(?:(\d+):(\d\d)|(\d+) s) left$", title.strip())
    if found is None:
        return None
    minutes, seconds, alone = found.groups()
    return int(alone) if alone is not None else int(minutes) * 60 + int(seconds)


def countdown_of(card) -> list[int]:
    """The countdowns the card's title showed, one per second, until it showed four or the card went."""
    seen: list[int] = []
    title = card.locator(".ja-fold-title").first

    def counted() -> bool:
        shown = title.all_inner_texts()  # [] once the card is gone (the turn's static output replaced it)
        left = seconds_left(shown[0]) if shown else None
        if left is not None and (not seen or seen[-1] != left):
            seen.append(left)
        return len(seen) >= 4 or not shown

    wait_until_blocking(counted, 40, "the card's countdown", pause=lambda s: card.page.wait_for_timeout(s * 1000), every=0.1)
    return seen


def assert_counts_down(seen: list[int], limit: int) -> None:
    """A second at a time from the limit: a countdown frozen while the code runs jumps instead."""
    assert len(seen) >= 4 and seen[0] <= limit, f"the countdown did not move while the code ran: {seen}"
    steps = [earlier - later for earlier, later in zip(seen, seen[1:])]
    assert all(1 <= step <= 2 for step in steps), f"the countdown jumped: {seen}"


SLEEP = "import time\nprint('sleeping', flush=True)\ntime.sleep(8)"


def test_a_running_python_call_counts_its_time_limit_down_while_its_code_blocks_the_kernel(page, lab):
    """The code holds the kernel's event loop for 8 s: the card's countdown moves all the same."""
    setup = agent_setup(
        "sleeper",
        f"tool_calls(call('python', {{'code': {SLEEP!r}}})), reply('slept')",
        "%config AgentMagics.python_timeout = 30.0",
    )
    notebook = open_notebook(page, lab, "countdown.ipynb", [setup, "%%agent -m sleeper -s countdown -p yolo\nSleep"])
    run_cells(page, notebook, 2)
    card = notebook.locator(".jp-Cell").nth(1).locator(".ja-panel .ja-tool").first
    card.wait_for()
    seen = countdown_of(card)
    screenshot(page, "python-countdown")
    assert_counts_down(seen, 30)
    notebook.locator(".jp-Cell").nth(1).locator(".ja-static.ja-state-done").wait_for()


def test_a_notebook_run_card_counts_the_cells_time_limit_down_while_the_cell_runs(page, lab):
    setup = agent_setup(
        "runner",
        "tool_calls(call('notebook_run', {'cell_id': 'cell-1', 'timeout': 40})), reply('ran it')",
        "%config AgentMagics.python_timeout = 60.0",
    )
    sources = [setup, "import time\ntime.sleep(8)\nprint('woke')", "%%agent -m runner -s run-countdown -p yolo\nRun it"]
    notebook = open_notebook(page, lab, "run-countdown.ipynb", sources)
    run_cells(page, notebook, 1)  # the setup only: the sleeping cell runs once, by the agent
    notebook.locator(".jp-Cell").nth(0).locator(".jp-InputPrompt", has_text="[1]").wait_for()
    wait_until_connected(page)  # notebook_run needs the extension's side of the notebook
    notebook.locator(".jp-Cell").nth(2).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    card = notebook.locator(".jp-Cell").nth(2).locator(".ja-panel .ja-tool").first
    card.wait_for()
    seen = countdown_of(card)
    screenshot(page, "notebook-run-countdown")
    assert_counts_down(seen, 40)
    notebook.locator(".jp-Cell").nth(1).get_by_text("woke").wait_for()
    notebook.locator(".jp-Cell").nth(2).locator(".ja-static.ja-state-done").wait_for()


def test_a_slow_cell_asks_before_notebook_run_reruns_it_even_when_allowed_for_the_session(page, lab):
    setup = agent_setup(
        "slow",
        "tool_calls(call('notebook_run', {'cell_id': 'cell-1'})), tool_calls(call('notebook_run', {'cell_id': 'cell-2'})),"
        " reply('both ran')",
        "%config AgentMagics.ask_slow_cells = 1.0",
    )
    sources = [setup, "quick = 1", "import time\ntime.sleep(2.5)\nslow = 2", "%%agent -m slow -s slow-cells\nRun both"]
    notebook = open_notebook(page, lab, "slow.ipynb", sources)
    run_cells(page, notebook, 3)  # the kernel's clock times both cells
    notebook.locator(".jp-Cell").nth(2).locator(".jp-InputPrompt", has_text="[3]").wait_for()
    wait_until_connected(page)  # notebook_run needs the extension's side of the notebook
    run_cells_from(page, notebook, 3)
    bar = notebook.locator(".jp-Cell").nth(3).locator(".ja-panel .ja-approval")
    bar.get_by_role("button", name="Allow notebook_run for this session").click()
    bar.get_by_text("took 2.").wait_for()  # the fast cell ran unasked; the slow one asks again
    shown = bar.inner_text()
    screenshot(page, "slow-cell-asks")
    assert re.search(r"cell cell-2 took 2\.\d s last time \(asks above AgentMagics\.ask_slow_cells = 1 s\)", shown), shown
    assert "Run cell 3 [3] · id cell-2:" in shown and "time.sleep(2.5)" in shown, shown
    bar.get_by_role("button", name="Allow once").click()
    notebook.locator(".jp-Cell").nth(3).locator(".ja-static.ja-state-done").wait_for()


def run_cells_from(page, notebook, index: int) -> None:
    notebook.locator(".jp-Cell").nth(index).locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")


STALE_STEPS = (
    "tool_calls(call('python', {'code': 'df[\"x\"] = 0'})), tool_calls(call('notebook_run', {'stale': True})), reply('re-ran')"
)


def test_a_stale_rerun_lists_the_stale_cells_as_the_user_finds_them_before_approving(page, lab):
    sources = [
        agent_setup("staler", STALE_STEPS),
        "import pandas as pd\ndf = pd.DataFrame({'x': [1, 2, 3]})",
        "total = df.x.sum()",
        "print('total is', total)",
        "other = 5",
        "%%agent -m staler -s stale-run\nZero x and re-run what reads it",
    ]
    notebook = open_notebook(page, lab, "stale.ipynb", sources)
    run_cells(page, notebook, 5)
    notebook.locator(".jp-Cell").nth(3).get_by_text("total is 6").wait_for()
    wait_until_connected(page)  # notebook_run needs the extension's side of the notebook
    run_cells_from(page, notebook, 5)
    panel = notebook.locator(".jp-Cell").nth(5).locator(".ja-panel")
    panel.locator(".ja-approval").get_by_role("button", name="Allow once").click()  # the python call
    bar = panel.locator(".ja-approval", has_text="stale")
    bar.get_by_text("Re-run 2 stale cells in order").wait_for()
    shown = bar.inner_text()
    screenshot(page, "stale-rerun-approval")
    lines = [line.strip() for line in shown.splitlines()]
    at = lines.index("Re-run 2 stale cells in order:")
    assert lines[at + 1 : at + 5] == [
        "cell 3 [3] · id cell-2 (reads df):",
        "total = df.x.sum()",
        "cell 4 [4] · id cell-3 (reads total):",
        "print('total is', total)",
    ], shown
    assert "other = 5" not in shown, shown
    assert notebook.locator(".jp-Cell").nth(3).get_by_text("total is 6").count() == 1  # nothing re-ran yet
    bar.get_by_role("button", name="Allow once").click()
    notebook.locator(".jp-Cell").nth(3).get_by_text("total is 0").wait_for()
    notebook.locator(".jp-Cell").nth(5).locator(".ja-static.ja-state-done").wait_for()
