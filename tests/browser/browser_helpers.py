"""Helpers several browser test modules share (tests/browser/conftest.py puts this folder on sys.path)."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess

from jupyter_agent.testing.waiting import wait_until_serving

SERVER_START = 90  # a server answers in ~5 s here; a loaded CI machine is slower
ARTIFACTS = pathlib.Path(__file__).resolve().parents[2] / "test-artifacts"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def notebook_content(sources: list[str]) -> dict:
    """A notebook of code cells ``sources`` (ids cell-0, cell-1, …) with a Python kernelspec."""
    cells = [
        {"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {}, "outputs": [], "source": source}
        for i, source in enumerate(sources)
    ]
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_notebook(path: pathlib.Path, sources: list[str]) -> None:
    path.write_text(json.dumps(notebook_content(sources)))


def save_screenshot(page, name: str, *, prefix: str) -> None:
    """``test-artifacts/PREFIX-NAME.png``: what the page showed, for a reader of a failed run."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{prefix}-{name}.png"))


def opened_notebook(page, url: str, name: str):
    """The notebook ``name`` opened in JupyterLab at ``url`` (a fresh workspace), once its kernel is idle."""
    page.goto(f"{url}/lab/tree/{name}?reset")
    notebook = page.locator(".jp-NotebookPanel:visible")
    notebook.locator(".jp-Cell").first.wait_for()
    # The kernel is ready once the status bar says so; cells run before that are dropped.
    page.locator(".jp-StatusBar-TextItem", has_text="| Idle").first.wait_for()
    return notebook


def wait_until_connected(page, timeout: float | None = None) -> None:
    """Until the visible notebook's extension has its kernel's agent (the comm said welcome): the
    notebook tools, completions and edits need it, and it comes a moment after ``%load_ext``."""
    page.locator(".jp-NotebookPanel[data-jupyter-agent='connected']:visible").wait_for(timeout=timeout)


def run_cells(page, notebook, count: int, start: str = ".jp-Cell .cm-content") -> None:
    """Runs ``count`` cells from the first with Shift+Enter, after a click on ``start`` in the first cell."""
    notebook.locator(start).first.click()
    for _ in range(count):
        page.keyboard.press("Shift+Enter")


def write_lab_settings(folder: pathlib.Path) -> None:
    """No news toast over the page; every cell attached to the DOM so locators can reach it."""
    settings = folder / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')


def start_server(
    command: list[str], root: pathlib.Path, name: str, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen, str]:
    port = int(command[command.index("--port") + 1]) if "--port" in command else None
    assert port is not None
    env = {
        **{key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")},
        "JUPYTER_AGENT_MODEL": "demo",
        "JUPYTER_AGENT_DEMO_DELAY": "0",
        "JUPYTER_RUNTIME_DIR": str(root / f".runtime-{name}"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / f".settings-{name}"),
        "JUPYTERLAB_WORKSPACES_DIR": str(root / f".workspaces-{name}"),
        **(extra_env or {}),
    }
    log = (root / f"{name}.log").open("w")
    server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{url}/api/status", server, SERVER_START, name)
    except RuntimeError as error:
        stop_server(server)
        raise RuntimeError(f"{error}:\n" + (root / f"{name}.log").read_text()[-3000:]) from None
    return server, url


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)  # the server and the kernels it started
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


def server_options(port: int, root: pathlib.Path, app: str = "LabApp") -> list[str]:
    """``app``: the application class that takes the front end's options (Notebook 7's is its own)."""
    return [
        "--allow-root",
        "--no-browser",
        "--port",
        str(port),
        "--ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        f"--{app}.expose_app_in_browser=True",
        *(
            ["--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
            if app == "LabApp"
            else []
        ),
    ]
