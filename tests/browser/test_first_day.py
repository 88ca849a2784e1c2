"""A newcomer's first day in real JupyterLab and Notebook 7 (issue 30's rough edges), in headless Chromium.

One JupyterLab and one Notebook 7 server for the module, serving copies of the shipped notebooks;
each test opens its own notebook. ``window.jupyterapp`` (``expose_app_in_browser``) lets a test read
what the page holds (a notebook's dirty flag, the palette's commands) instead of guessing from pixels.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
import shutil
import sys

import pytest
from browser_helpers import (
    free_port,
    save_screenshot,
    server_options,
    start_server,
    stop_server,
    write_lab_settings,
    write_notebook,
)

from jupyter_agent.testing.fake_provider import FakeProvider, call, text, tool_calls

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
WAIT_MS = 60_000  # any single UI wait: a turn of the demo model takes a few seconds
SHIPPED = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def servers(tmp_path_factory, checkout_extension_args):
    """JupyterLab and Notebook 7 on one root holding copies of the shipped notebooks."""
    root = tmp_path_factory.mktemp("first-day")
    for name in [*SHIPPED, "sales.csv"]:
        shutil.copy(ROOT / "notebooks" / name, root / name)
    for name in ("lab", "notebook"):
        write_lab_settings(root / f".settings-{name}")
    lab_port, notebook_port = free_port(), free_port()
    lab, lab_url = start_server(
        [sys.executable, "-m", "jupyterlab", *server_options(lab_port, root), *checkout_extension_args], root, "lab"
    )
    try:
        # Notebook 7 serves extensions from Jupyter's data path only: this checkout's build goes first on it.
        folders = [
            arg.split("=", 1)[1] for arg in checkout_extension_args if arg.startswith("--LabApp.extra_labextensions_path=")
        ]
        data_path = {"JUPYTER_PATH": os.pathsep.join(str(pathlib.Path(folder).parent) for folder in folders)} if folders else {}
        notebook, notebook_url = start_server(
            [sys.executable, "-m", "notebook", *server_options(notebook_port, root, "JupyterNotebookApp")],
            root,
            "notebook",
            data_path,
        )
        try:
            yield {"lab": lab_url, "notebook": notebook_url, "root": root}
        finally:
            stop_server(notebook)
    finally:
        stop_server(lab)


screenshot = functools.partial(save_screenshot, prefix="first-day")


def open_in_lab(page, servers, name: str):
    page.goto(f"{servers['lab']}/lab/tree/{name}?reset")
    notebook = page.locator(".jp-NotebookPanel:visible")
    notebook.locator(".jp-Cell").first.wait_for()
    # The kernel is ready once the status bar says so; cells run before that are dropped.
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for()
    return notebook


def run_cells(page, notebook, count: int, first: int = 0) -> None:
    notebook.locator(".jp-Cell .jp-InputPrompt").nth(first).click()
    for _ in range(count):
        page.keyboard.press("Shift+Enter")


CURRENT_NOTEBOOK = "window.jupyterapp.shell.currentWidget"


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_notebook_is_not_modified_by_opening_it(page, servers, name):
    open_in_lab(page, servers, name)
    # What the kernel tells the page (its language_info) has reached the notebook's metadata: the
    # moment the page used to mark the notebook modified.
    page.wait_for_function(f"() => ({CURRENT_NOTEBOOK}.content.model.getMetadata('language_info') || {{}}).version")
    page.wait_for_function(f"() => {CURRENT_NOTEBOOK}.sessionContext.session?.kernel?.info")
    dirty = page.evaluate(f"() => {CURRENT_NOTEBOOK}.content.model.dirty")
    screenshot(page, f"opened-{name}")
    assert dirty is False and page.locator(".lm-TabBar-tab.jp-mod-dirty").count() == 0


def test_the_sessions_sidebar_lists_sessions_only(page, servers):
    """The notebook tools keep their edit log beside the sessions: it is no session."""
    root = servers["root"]
    write_notebook(root / "sidebar.ipynb", ["%load_ext jupyter_agent", "%%agent -p yolo\nLook around."])
    # What a turn that edited the notebook leaves beside its session (notebook_edit's undo log).
    (root / "sidebar.agent").mkdir()
    edit = {"step": 1, "op": "insert", "cell_id": "c1", "index": 0, "before": None, "after": {"source": "1"}, "undone": False}
    (root / "sidebar.agent" / "main.notebook-edits.jsonl").write_text(json.dumps(edit) + "\n")
    notebook = open_in_lab(page, servers, "sidebar.ipynb")
    run_cells(page, notebook, 2)
    notebook.get_by_text("Offline demo model").first.wait_for()
    page.locator(".jp-SideBar li[data-id='jupyter-agent-sessions']").click()
    page.locator(".jp-AgentSessions-item[data-session='main']").wait_for()
    screenshot(page, "sessions-sidebar")
    names = page.locator(".jp-AgentSessions-item").evaluate_all("items => items.map(item => item.dataset.session)")
    assert names == ["main"]


def palette_labels(page, query: str) -> list[str]:
    """What the command palette lists for ``query``, as a user typing it sees it."""
    from playwright.sync_api import TimeoutError

    page.evaluate("async () => { await window.jupyterapp.restored; }")
    palette = page.locator(".lm-CommandPalette input:visible")
    for attempt in range(5):  # right after a page opens, the first toggle may be lost
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:activate-command-palette')")
        try:
            palette.wait_for(timeout=3_000)
            break
        except TimeoutError:
            if attempt == 4:
                raise
    palette.fill(query)
    items = page.locator(".lm-CommandPalette-item:visible .lm-CommandPalette-itemLabel")
    items.filter(has_text=query).first.wait_for()  # the list as filtered for the query
    labels = items.all_inner_texts()
    page.keyboard.press("Escape")
    return labels


# Notebook 7 (7.6) logs this itself, with or without this extension: its shortcuts plugin reads the
# schema of a plugin whose settings are not loaded.
NOTEBOOK_7_OWN_ERROR = "Cannot read properties of undefined (reading 'schema')"


def test_notebook_7s_palette_lists_show_agent_sessions_once(page, servers):
    page.on("pageerror", lambda error: str(error) == NOTEBOOK_7_OWN_ERROR and page.console_errors.remove(str(error)))
    page.goto(f"{servers['notebook']}/notebooks/quickstart.ipynb")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    page.wait_for_function("() => window.jupyterapp.commands.hasCommand('jupyter-agent:show-sessions')")
    # Once the kernel is up nothing takes the focus from the palette (which closes when it loses it).
    page.wait_for_function(f"() => {CURRENT_NOTEBOOK}.sessionContext.session?.kernel?.status === 'idle'")
    labels = palette_labels(page, "Agent Sessions")
    screenshot(page, "notebook7-palette")
    assert [label for label in labels if "agent sessions" in label.lower()] == ["Show Agent Sessions"], labels


def test_jupyterlabs_palette_lists_show_agent_sessions_once(page, servers):
    open_in_lab(page, servers, "quickstart.ipynb")
    labels = palette_labels(page, "Agent Sessions")
    assert [label for label in labels if "agent sessions" in label.lower()] == ["Show Agent Sessions"], labels


# Agent-run Python that waits until the test releases it (a file in the notebook's folder appears).
WAIT_FOR_RELEASE = (
    "import os, time\nprint('waiting for the release', flush=True)\n"
    "while not os.path.exists('release-steer'):\n    time.sleep(0.05)\n"
)
WAITER = (
    "%load_ext jupyter_agent\n"
    "from jupyter_agent.notebook.model_resolution import register_model\n"
    "from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls\n"
    f"waiter = ScriptedModel([tool_calls(call('python', {{'code': {WAIT_FOR_RELEASE!r}}})), reply('noted')])\n"
    "register_model('waiter', waiter, waiter.model('waiter'))"
)


def test_a_steer_sent_while_agent_run_python_runs_is_queued_at_once(page, servers):
    """The run takes the message only once the call returns; the panel says so when it is sent."""
    root = servers["root"]
    write_notebook(
        root / "steer.ipynb",
        [WAITER, "%%agent -m waiter -s steer-busy -p yolo\nLook at my data", "waiter.requests[-1].context.messages[-1].content"],
    )
    notebook = open_in_lab(page, servers, "steer.ipynb")
    run_cells(page, notebook, 2)
    panel = notebook.locator(".jp-Cell").nth(1).locator(".ja-panel")
    panel.locator(".ja-tool .ja-fold-title").first.click()  # unfold the running call's card
    panel.get_by_text("waiting for the release").first.wait_for()
    panel.locator("textarea").fill("use the median")
    panel.get_by_role("button", name="Steer").click()
    # While the code still runs (it waits for the release): heard at once, the box cleared.
    queued = panel.get_by_text("queued steer (will reach the agent after the running call): use the median")
    queued.wait_for(timeout=20_000)
    assert panel.locator("textarea").input_value() == ""
    screenshot(page, "steer-queued-while-python-runs")
    (root / "release-steer").touch()
    saved = notebook.locator(".jp-Cell").nth(1).locator(".ja-static.ja-state-done")
    saved.wait_for()
    assert "use the median" in (saved.text_content() or "")
    run_cells(page, notebook, 1, first=2)
    notebook.locator(".jp-Cell").nth(2).locator(".jp-OutputArea-output").get_by_text("'use the median'").wait_for()


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


# The column's name is assembled at run time: no cell's source holds it, only the namespace does.
DATA_CELL = 'import pandas as pd\ndf = pd.DataFrame({"revenue_" + "q3": [1.5, 2.5], "region": ["north", "south"]})'


def open_in_notebook_7_on_the_fake_model(page, servers, provider, name: str, cells: list[str], completion: bool):
    """A Notebook 7 page of ``name`` (the agent on the fake provider, then ``DATA_CELL``, then ``cells``), both run."""
    page.on("pageerror", lambda error: str(error) == NOTEBOOK_7_OWN_ERROR and page.console_errors.remove(str(error)))
    setup = (
        "%load_ext jupyter_agent\n"
        '%config AgentMagics.model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        '%config AgentMagics.api_key = "sk-fake"' + ("" if completion else "\n%config AgentMagics.completion = False")
    )
    write_notebook(servers["root"] / name, [setup, DATA_CELL, *cells])
    page.goto(f"{servers['notebook']}/notebooks/{name}")
    notebook = page.locator(".jp-NotebookPanel")
    notebook.locator(".jp-Cell").first.wait_for()
    page.wait_for_function(f"() => {CURRENT_NOTEBOOK}.sessionContext.session?.kernel?.status === 'idle'")
    run_cells(page, notebook, 2)
    page.locator(".jp-NotebookPanel[data-jupyter-agent='connected']").wait_for()
    notebook.locator(".jp-Cell").nth(1).locator(".jp-InputPrompt", has_text="[2]").wait_for()
    return notebook


def side_answer(body):
    """The side panel turn's second request: the inspect result holds the live column."""
    result = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "tool")
    column = "revenue_q3" if "revenue_q3" in json.dumps(result) else "nothing"
    return text("Your frame `df` has the column ", column, ".", delay=0.02)


def test_notebook_7s_side_panel_runs_a_turn_on_the_notebooks_kernel_and_adds_no_cell(page, servers, provider):
    """Opened from Notebook 7's own View › Right Sidebar menu, as a Notebook 7 user finds it."""
    notebook = open_in_notebook_7_on_the_fake_model(page, servers, provider, "side7.ipynb", [], completion=False)
    cells_before = page.evaluate(f"() => {CURRENT_NOTEBOOK}.content.model.cells.length")
    outputs_before = notebook.locator(".jp-OutputArea-output").count()

    provider.queue(tool_calls(call("inspect", {"name": "df"})), side_answer)
    page.locator(".lm-MenuBar-itemLabel", has_text="View").click()
    page.locator(".lm-Menu-itemLabel", has_text="Right Sidebar").hover()
    page.locator(".lm-Menu-itemLabel", has_text="Show Agent: ask the active notebook").click()
    side = page.locator("#jupyter-agent-side-panel")
    side.locator(".jp-AgentSidePanel-prompt").fill("What columns does df have?")
    side.locator(".jp-AgentSidePanel-prompt").press("Enter")
    side.locator(".jp-AgentSidePanel-live .ja-panel").wait_for()  # the turn's live panel, the same widget as in a cell
    side.locator(".jp-AgentSidePanel-static", has_text="has the column revenue_q3").first.wait_for()
    screenshot(page, "notebook7-side-panel")
    # Notebook 7's right sidebar is narrower than JupyterLab's: the panel fits it, nothing is cut off.
    fits = side.evaluate(
        "node => [node, ...node.querySelectorAll('*')].every(e => e.getBoundingClientRect().right <= innerWidth)"
    )
    assert fits, side.evaluate("node => [node.getBoundingClientRect().width, innerWidth]")
    assert page.evaluate(f"() => {CURRENT_NOTEBOOK}.content.model.cells.length") == cells_before
    assert notebook.locator(".jp-OutputArea-output").count() == outputs_before
    assert "What columns does df have?" in provider.requests[-2]["messages"][-1]["content"]
    session = (servers["root"] / "side7.agent" / "chat.jsonl").read_text()
    assert "has the column revenue_q3" in session  # the session store, under the name chat


EDITED = "df.revenue_q3.sum()  # summed by the agent"


def everyday_responder(body):
    """Completions (the prompt marks the cursor) get the frame's first live column; the edit run its new source."""
    prompt = body["messages"][-1]["content"]
    if "<CURSOR>" in prompt:
        if "df.<CURSOR>" not in prompt:
            return text("")
        return text(prompt.split("columns: ", 1)[1].split(" (", 1)[0], ".sum()", delay=0.02)
    assert "Its current source:" in prompt and "df.head()" in prompt
    return text("Here is the cell:\n```python\n", EDITED, "\n```", delay=0.02)


def test_notebook_7_completes_from_the_namespace_and_edits_a_cell_with_an_inline_diff(page, servers, provider):
    """Inline completion (Tab accepts) and Edit with Agent (Accel Alt K, Enter accepts) in Notebook 7."""
    cells = ["df.head()", ""]
    notebook = open_in_notebook_7_on_the_fake_model(page, servers, provider, "everyday7.ipynb", cells, completion=True)
    source = f"index => {CURRENT_NOTEBOOK}.content.widgets[index].model.sharedModel.getSource()"
    fallback, provider.fallback = provider.fallback, everyday_responder
    try:
        notebook.locator(".jp-Cell").nth(3).locator(".cm-content").click()
        page.keyboard.type("df.")
        notebook.locator(".jp-GhostText", has_text="revenue_q3").wait_for()  # in no cell's source: from the kernel
        page.wait_for_function("() => !document.querySelector('.jp-GhostText-streamingIndicator')")
        page.keyboard.press("Tab")
        page.wait_for_function(f"() => ({source})(3) === 'df.revenue_q3.sum()'")
        screenshot(page, "notebook7-completion")

        notebook.locator(".jp-Cell").nth(2).locator(".jp-InputPrompt").click()  # command mode on that cell
        page.keyboard.press("Control+Alt+k")
        box = notebook.locator(".jp-Cell").nth(2).locator(".jp-AgentEdit-prompt")
        box.fill("sum the revenue instead")
        box.press("Enter")
        review = notebook.locator(".jp-Cell").nth(2).locator(".jp-AgentEdit-review")
        review.wait_for()
        assert review.locator(".jp-AgentEdit-added").inner_text() == f"+ {EDITED}"
        assert page.evaluate(source, 2) == "df.head()"  # nothing changes before a decision
        screenshot(page, "notebook7-edit-diff")
        page.keyboard.press("Enter")
        review.wait_for(state="detached")
        page.wait_for_function(f"() => ({source})(2) === {EDITED!r}")
    finally:
        provider.fallback = fallback


FAILING = (
    "%load_ext jupyter_agent\n"
    "from jupyter_agent.notebook.model_resolution import register_model\n"
    "from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls\n"
    "code = 'import sys\\ndef ratio(x):\\n    return 1 / x\\nratio(0)'\n"
    "failing = ScriptedModel([tool_calls(call('python', {'code': code})), tool_calls(call('python', {'code': \"sys.stdout.write(b'x')\"})), reply('both failed')])\n"
    "register_model('failing', failing, failing.model('failing'))"
)


def test_a_traceback_of_agent_run_code_names_no_cell_of_the_user_and_no_frame_of_ours(page, servers):
    write_notebook(servers["root"] / "traceback.ipynb", [FAILING, "%%agent -m failing -s tracebacks -p yolo\nDivide", "'next'"])
    notebook = open_in_lab(page, servers, "traceback.ipynb")
    run_cells(page, notebook, 2)
    saved = notebook.locator(".jp-Cell").nth(1).locator(".ja-static.ja-state-done")
    saved.wait_for()
    text = saved.text_content() or ""
    assert "ZeroDivisionError" in text and "Agent code #" in text, text
    # Cell In[1] is the setup cell, In[2] the agent's; In[3] is the user's next cell.
    assert "Cell In[3]" not in text, text
    assert "(1 frame of jupyter-agent left out)" in text
    assert "jupyter_agent/" not in text and "site-packages" not in text, text
    run_cells(page, notebook, 1, first=2)
    notebook.locator(".jp-Cell").nth(2).locator(".jp-InputPrompt").get_by_text("[3]").wait_for()
    screenshot(page, "agent-code-traceback")


NOTEBOOK_AGENT = (
    "%load_ext jupyter_agent\n"
    "from jupyter_agent.notebook.model_resolution import register_model\n"
    "from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls\n"
    "nbtools = ScriptedModel([\n"
    "    tool_calls(call('notebook_read', {})),\n"
    "    tool_calls(call('notebook_run', {'cell_id': 'cell-2'})),\n"
    "    tool_calls(call('notebook_edit', {'op': 'replace', 'cell_id': 'cell-2', 'source': 'total = 6 * 7\\ntotal'})),\n"
    "    reply('done'),\n"
    "])\n"
    "register_model('nbtools', nbtools, nbtools.model('nbtools'))"
)


def test_notebook_tool_approvals_name_the_cell_as_the_user_finds_it(page, servers):
    write_notebook(
        servers["root"] / "approvals.ipynb",
        [NOTEBOOK_AGENT, "%%agent -m nbtools -s approvals\nRun my cell, then change it", "total = 1 + 1\ntotal"],
    )
    notebook = open_in_lab(page, servers, "approvals.ipynb")
    run_cells(page, notebook, 2)
    bar = notebook.locator(".jp-Cell").nth(1).locator(".ja-panel .ja-approval")
    bar.get_by_role("button", name="Allow once").wait_for()
    shown = bar.inner_text()
    screenshot(page, "approval-notebook-run")
    # The cell by its place and prompt (third from the top, not run yet) and the head of its source.
    assert "Run cell 3 [ ] · id cell-2:" in shown and "total = 1 + 1" in shown, shown
    assert '"cell_id"' not in shown, shown  # the arguments' JSON is folded away
    bar.get_by_role("button", name="Allow once").click()
    bar.get_by_text("(before)").wait_for()
    shown = bar.inner_text()
    screenshot(page, "approval-notebook-edit")
    assert "--- cell 3 " in shown and "· id cell-2 (before)" in shown, shown
    assert shown.count("6 * 7") == 1, shown  # the change once: no arguments JSON, no second copy of the source
    bar.get_by_role("button", name="Allow once").click()
    notebook.locator(".jp-Cell").nth(1).locator(".ja-static.ja-state-done").wait_for()
