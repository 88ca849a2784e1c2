"""The JupyterLab extension in a real JupyterLab, driven by headless Debian Chromium.

One server and one browser for the module (starting them costs ~10 s); each test opens its own
notebook. Screenshots go to test-artifacts/. The offline demo model plays the agent: it looks at
the variables, runs one python snippet and answers.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys

import pytest
from browser_helpers import free_port, opened_notebook, run_cells, save_screenshot, wait_until_connected, write_notebook

from jupyter_agent.testing.waiting import wait_until_blocking, wait_until_serving

pytestmark = pytest.mark.browser

SERVER_START = 90  # JupyterLab answers in ~5 s here; a loaded CI machine is slower
WAIT_MS = 60_000  # any single UI wait: a turn of the demo model takes a few seconds
EXTENSION = "jupyter-agent-labextension"


@pytest.fixture(scope="module")
def lab(tmp_path_factory, checkout_extension_args, lab_server_command):
    root = tmp_path_factory.mktemp("lab")
    settings = root / ".settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    # Without this a "Jupyter news?" toast covers the page.
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    port = free_port()
    env = {
        **os.environ,
        "JUPYTER_AGENT_MODEL": "demo",
        "JUPYTER_AGENT_DEMO_DELAY": "0",
        "JUPYTER_RUNTIME_DIR": str(root / ".runtime"),
    }
    command = lab_server_command(
        port,
        root,
        f"--LabApp.user_settings_dir={root / '.settings'}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
        *checkout_extension_args,
    )
    log = (root / "server.log").open("w")
    server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_until_serving(f"{url}/api/status", server, SERVER_START, "JupyterLab")
        except RuntimeError as error:
            raise RuntimeError(f"{error}:\n" + (root / "server.log").read_text()[-3000:]) from None
        yield url, root
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        log.close()


def open_notebook(page, lab, name: str, sources: list[str]):
    url, root = lab
    write_notebook(root / name, sources)
    return opened_notebook(page, url, name)


screenshot = functools.partial(save_screenshot, prefix="labextension")


def saved_cells(page, lab, name: str, count: int) -> list[dict]:
    page.keyboard.press("Control+s")
    path = lab[1] / name

    def saved() -> list[dict] | None:
        cells = json.loads(path.read_text())["cells"]
        return cells if len(cells) >= count else None

    return wait_until_blocking(saved, WAIT_MS / 1000, f"{count} cells saved in {name}", every=0.2)


def test_the_extension_is_installed_and_enabled(page, lab):
    listing = subprocess.run(
        [shutil.which("jupyter") or "jupyter", "labextension", "list"], capture_output=True, text=True, timeout=60
    )
    line = next((line for line in (listing.stdout + listing.stderr).splitlines() if EXTENSION in line), "")
    assert "enabled" in line and "OK" in line, listing.stdout + listing.stderr
    page.goto(f"{lab[0]}/lab?reset")
    config = json.loads(page.locator("#jupyter-config-data").text_content())
    assert EXTENSION in [extension["name"] for extension in config["federated_extensions"]]
    page.locator(".jp-SideBar li[data-id='jupyter-agent-sessions']").wait_for()


def test_materialize_inserts_the_code_below_the_agent_cell_with_provenance(page, lab):
    sources = ["%load_ext jupyter_agent", "%%agent -p yolo\nShow me what is in my kernel.", "print('after')"]
    notebook = open_notebook(page, lab, "materialize.ipynb", sources)
    # %%agent cells are highlighted as Markdown; other code cells stay Python.
    languages = notebook.locator(".jp-Cell .cm-content").evaluate_all("nodes => nodes.map(node => node.dataset.language)")
    assert languages[1] == "markdown" and languages[0] != "markdown", languages
    run_cells(page, notebook, 2)
    notebook.locator(".ja-static.ja-state-done").wait_for()
    wait_until_connected(page)
    agent_cell = notebook.locator(".jp-Cell").nth(1)
    agent_cell.get_by_text("Materialize 1 cell: run %agent materialize").wait_for()  # how to get the code

    page.keyboard.press("Control+Shift+c")
    palette = page.locator(".lm-CommandPalette input")
    palette.fill("Materialize the Agent's Code")
    page.keyboard.press("Enter")
    notebook.locator(".jp-Cell").nth(3).wait_for()
    screenshot(page, "materialize")
    # Materialized: the hint is gone from the answer, which keeps the rest.
    agent_cell.get_by_text("Materialize 1 cell").wait_for(state="detached")
    assert agent_cell.locator(".ja-static.ja-state-done").count() == 1

    cells = saved_cells(page, lab, "materialize.ipynb", 4)
    sources_after = ["".join(cell["source"]) for cell in cells]
    assert sources_after[:2] == sources[:2] and sources_after[3] == "print('after')", sources_after
    assert "Materialize 1 cell" not in json.dumps(cells[1]["outputs"]) and "ja-static" in json.dumps(cells[1]["outputs"])
    inserted = cells[2]
    assert inserted["cell_type"] == "code"
    assert inserted["metadata"]["jupyter_agent"] == {"session": "main", "step": 2, "model": "offline-demo"}
    session = (lab[1] / "materialize.agent" / "main.jsonl").read_text()
    assert json.dumps(sources_after[2])[1:-1] in session  # the very code the agent ran


def shut_down_kernels(page) -> None:
    """What closing the notebook and shutting its kernel down does: the widgets' models are gone."""
    remaining = page.evaluate("""async () => {
        const xsrf = (document.cookie.match(/_xsrf=([^;]+)/) || [])[1] || '';
        const headers = {'X-XSRFToken': decodeURIComponent(xsrf)};
        const kernels = await (await fetch('/api/kernels')).json();
        for (const kernel of kernels) {
            await fetch(`/api/kernels/${kernel.id}`, {method: 'DELETE', headers});
        }
        return (await (await fetch('/api/kernels')).json()).length;
    }""")
    assert remaining == 0


ANSWER = "Let me first look at what is in your kernel."  # the demo model's first words


def test_a_saved_answer_survives_the_kernel_and_converts_to_markdown(page, lab):
    url, root = lab
    sources = ["%load_ext jupyter_agent", "%%agent -p yolo -s persist\nShow me what is in my kernel."]
    notebook = open_notebook(page, lab, "persist.ipynb", sources)
    run_cells(page, notebook, 2)
    notebook.locator(".ja-static.ja-state-done").wait_for()
    assert notebook.locator(".ja-panel").count() == 0  # the live panel is gone with its widgets
    saved_cells(page, lab, "persist.ipynb", 2)

    def static_saved() -> list[dict] | None:
        cells = json.loads((root / "persist.ipynb").read_text())["cells"]
        return cells if "ja-static" in json.dumps(cells) else None

    cells = wait_until_blocking(static_saved, WAIT_MS / 1000, "the static answer saved", every=0.2)
    outputs = cells[1]["outputs"]
    assert outputs and not any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)

    shut_down_kernels(page)
    page.goto(f"{url}/lab/tree/persist.ipynb?reset")
    reopened = page.locator(".jp-NotebookPanel:visible")
    reopened.locator(".ja-static", has_text=ANSWER).first.wait_for()
    # JupyterLab renders the saved Markdown: the answer as paragraphs, each tool call a folded card.
    assert reopened.locator(".ja-static p", has_text=ANSWER).count() >= 1
    assert reopened.locator(".ja-static details summary").count() >= 1
    assert "model not found" not in reopened.inner_text()
    screenshot(page, "reopened")

    converted = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--to", "markdown", "--stdout", str(root / "persist.ipynb")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert converted.returncode == 0, converted.stderr
    assert ANSWER in converted.stdout and "VBox(" not in converted.stdout
    # Markdown, not the HTML a viewer renders from it (nbconvert takes text/html first when there is one).
    assert "<p>" not in converted.stdout and converted.stdout.count("<div") == 1


def test_the_sessions_view_lists_the_session_and_opens_its_transcript(page, lab):
    notebook = open_notebook(
        page, lab, "sessions.ipynb", ["%load_ext jupyter_agent", "%%agent -p yolo -s review\nSummarize my kernel."]
    )
    run_cells(page, notebook, 2)
    notebook.locator(".ja-static.ja-state-done").wait_for()
    page.locator(".jp-SideBar li[data-id='jupyter-agent-sessions']").click()
    item = page.locator(".jp-AgentSessions-item[data-session='review']")
    item.wait_for()
    details = item.locator(".jp-AgentSessions-details").text_content()
    assert "messages" in details and "offline-demo" in details and "$0.00" in details, details
    item.click()
    transcript = page.locator(".jp-AgentTranscript:visible")
    transcript.locator("h3", has_text="You").first.wait_for()
    assert "Summarize my kernel." in transcript.text_content()
    assert transcript.locator("pre code").count() >= 1  # the python call the agent made
    screenshot(page, "sessions")


def test_the_stop_shortcut_stops_a_running_agent(page, lab):
    sources = [
        "import os\nos.environ['JUPYTER_AGENT_DEMO_DELAY'] = '0.3'",
        "%load_ext jupyter_agent",
        "%%agent -p yolo\nExplain what you can do, at length.",
    ]
    notebook = open_notebook(page, lab, "stop.ipynb", sources)
    run_cells(page, notebook, 3)
    notebook.locator(".ja-panel.ja-state-running", has_text="Let me").wait_for()  # mid-stream
    wait_until_connected(page)
    page.keyboard.press("Escape")  # command mode: the shortcut must work without a focused editor
    page.keyboard.press("Control+Alt+Period")
    page.locator(".jp-toast-message", has_text="Stopping 1 agent turn.").wait_for()
    notebook.locator(".ja-static.ja-state-stopped").wait_for(timeout=15_000)
    screenshot(page, "stopped")


SCRIPTED = """\
from jupyter_agent.notebook.model_resolution import register_model
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls
# Leaves no variable behind: a namespace change would make this python step the one %agent undo reverts.
USER_EDIT = ("__import__('jupyter_agent.notebook.comm.notebook_bridge', fromlist=['_'])"
             ".CommNotebookFrontend(get_ipython()).send_edit("
             "{'op': 'replace', 'cell_id': 'cell-5', 'source': 'typed by the user', 'cell_type': 'code'})")
m = ScriptedModel([
    tool_calls(call('notebook_read', {})),
    tool_calls(call('notebook_edit', {'op': 'replace', 'cell_id': 'cell-2', 'source': 'x = 3'}),
               call('notebook_edit', {'op': 'insert', 'cell_id': 'cell-2', 'source': "print('inserted')"}),
               call('notebook_edit', {'op': 'delete', 'cell_id': 'cell-4'})),
    tool_calls(call('notebook_run', {'cell_id': 'cell-3'})),
    tool_calls(call('python', {'code': USER_EDIT})),
    tool_calls(call('notebook_edit', {'op': 'replace', 'cell_id': 'cell-5', 'source': 'stale'})),
    reply('Done with the notebook.'),
])
register_model('nbtools', m, m.model('nbtools'))
"""


REPORT = (
    "import json\n_t = get_ipython().find_line_magic('agent').__self__.sessions.get('nbtools').turns[-1]\n"
    # every text block of each result, as the model reads it (a notebook_run's status and its cell's outputs)
    "print(json.dumps(['\\n'.join(b.text for b in m.content if b.type == 'text')\n"
    "    for m in _t.result.messages if m.role == 'tool_result']))"
)


def cell_sources(page) -> list[str]:
    return page.locator(".jp-NotebookPanel:visible .jp-Cell .cm-content").evaluate_all(
        "nodes => nodes.map(node => node.innerText)"
    )


def test_notebook_tools_read_edit_run_and_undo_in_the_live_document(page, lab):
    sources = [
        "%load_ext jupyter_agent",
        SCRIPTED,
        "x = 1",
        "print('hello')\n1/0",
        "# to delete",
        "# cell five",
        "%%agent -m nbtools -p yolo -s nbtools\nWork on my notebook.",
        REPORT,
        "%agent undo",
    ]
    notebook = open_notebook(page, lab, "nbtools.ipynb", sources)
    run_cells(page, notebook, 2)
    wait_until_connected(page)
    # An unsaved edit: the file still says x = 1.
    editor = notebook.locator(".jp-Cell").nth(2).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("x = 2")
    notebook.locator(".jp-Cell").nth(6).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    notebook.locator(".ja-static.ja-state-done").wait_for()
    screenshot(page, "notebook-tools")

    report = open_notebook_report(page, notebook)
    assert "source: the live notebook in JupyterLab (unsaved edits included)" in report[0]
    assert "x = 2" in report[0]
    assert report[1:4] == ["Replaced cell cell-2 at index 2. %agent undo reverts it.", report[2], report[3]] and report[
        2
    ].startswith("Inserted cell ")
    assert report[3] == "Deleted cell cell-4 at index 5. %agent undo reverts it."
    assert "hello" in report[4] and "ZeroDivisionError" in report[4] and "finished with an error" in report[4]
    assert "edit refused: cell cell-5 changed since you last read it" in report[6]

    after = cell_sources(page)
    assert after[2] == "x = 3" and after[3] == "print('inserted')" and "# to delete" not in after
    assert "typed by the user" in after

    run_cell_holding(page, notebook, "%agent undo")
    page.get_by_text("Reverting the notebook edits of step").first.wait_for()

    def undone() -> list[str] | None:
        sources = cell_sources(page)
        return sources if sources[2] == "x = 2" and "print('inserted')" not in sources and "# to delete" in sources else None

    restored = wait_until_blocking(undone, WAIT_MS / 1000, "the notebook edits undone", every=0.2)
    assert restored[2] == "x = 2" and "print('inserted')" not in restored and restored[4] == "# to delete", restored


def run_cell_holding(page, notebook, text: str):
    cell = notebook.locator(".jp-Cell", has_text=text).last
    cell.locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")
    return cell


def open_notebook_report(page, notebook) -> list[str]:
    """The tool results of the nbtools session, printed by the REPORT cell."""
    output = run_cell_holding(page, notebook, "print(json.dumps").locator(".jp-OutputArea-output")
    output.wait_for()
    return json.loads(output.inner_text())


# -- agent sessions follow a renamed notebook ------------------------------------------------

WAIT_S = 60


def test_renaming_the_notebook_moves_its_sessions(page, lab):
    url, root = lab
    notebook = open_notebook(page, lab, "Untitled.ipynb", ["%load_ext jupyter_agent", "%%agent -p yolo\nWhat is in my kernel?"])
    run_cells(page, notebook, 2)
    notebook.locator(".ja-static.ja-state-done").wait_for()
    assert (root / "Untitled.agent" / "main.jsonl").is_file()
    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Rename Notebook").first.click()
    field = page.locator(".jp-Dialog input")
    field.fill("Analysis.ipynb")
    page.keyboard.press("Enter")
    wait_until_blocking(
        lambda: (root / "Analysis.agent" / "main.jsonl").is_file(), WAIT_S, "the sessions to follow the notebook", every=0.2
    )
    assert not (root / "Untitled.agent").exists()
    # The kernel now writes there: the next turn continues the moved session.
    page.locator(".jp-Cell .cm-content").nth(1).click()
    page.keyboard.press("Control+Enter")
    wait_until_blocking(
        lambda: (root / "Analysis.agent" / "main.jsonl").read_text().count('"kind":"request"') == 2,
        WAIT_S,
        "the second turn",
        every=0.2,
    )
    page.locator(".ja-static.ja-state-done").last.wait_for()
    turns = [line for line in (root / "Analysis.agent" / "main.jsonl").read_text().splitlines() if '"kind":"request"' in line]
    assert len(turns) == 2 and not (root / "Untitled.agent").exists()
    assert json.loads(turns[-1])["cell"]["cell_id"] == "cell-1"


def test_the_serve_token_is_only_in_the_live_panel_even_after_a_save_and_a_reload(page, lab):
    url, root = lab
    notebook = open_notebook(page, lab, "serving.ipynb", ["%load_ext jupyter_agent", "%agent serve"])
    run_cells(page, notebook, 2)
    copy = notebook.locator(".ja-live-only button.ja-copy").first
    copy.wait_for()
    token = copy.get_attribute("data-copy")
    assert token and len(token) > 20 and token in notebook.locator(".ja-live-only").inner_text()
    page.keyboard.press("Control+s")
    wait_until_blocking(
        lambda: "<token: in the live panel below>" in (root / "serving.ipynb").read_text(), WAIT_S, "the save", every=0.2
    )
    assert token not in (root / "serving.ipynb").read_text()
    page.reload()
    page.locator(".ja-live-only button.ja-copy").first.wait_for()  # the running server's token, shown again
    assert token in page.locator(".ja-live-only").first.inner_text()
    assert token not in (root / "serving.ipynb").read_text()
