"""Checks the README's quick start in the environment it installed.

usage: python .ci/check_quickstart.py "JUPYTER LAB COMMAND" notebooks/quickstart.ipynb

1. The README's ``jupyter lab`` command (with --no-browser and a free port added) prints the
   quick-start notebook's address, and that address answers.
2. The notebook runs headless with nbclient, as written (no API key: the offline demo model), and
   no output holds an error.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
from nbclient import NotebookClient

LAB_TIMEOUT = 120  # seconds for the server to print its address (busy CI machines)
CELL_TIMEOUT = 300
ERROR_TEXT = re.compile(r"Traceback|\*\*Error\*\*|Error:|Exception")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def check_lab(command: str, notebook: Path) -> None:
    port = free_port()
    argv = [*shlex.split(command), "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    wanted = re.compile(rf"http://127\.0\.0\.1:{port}/lab/tree/{re.escape(notebook.name)}\?token=\w+")
    # A server that hangs silently is stopped, which ends the loop below.
    watchdog = threading.Timer(LAB_TIMEOUT, lambda: os.killpg(process.pid, signal.SIGTERM))
    watchdog.start()
    try:
        assert process.stdout is not None
        for line in process.stdout:  # ends when the server exits
            match = wanted.search(line)
            if match:
                fetch(match.group(0))
                print(f"jupyter lab prints and serves {match.group(0).split('?')[0]}")
                return
        raise SystemExit(f"`{command}` did not print the address of {notebook.name} within {LAB_TIMEOUT} s")
    finally:
        watchdog.cancel()
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)


def fetch(url: str) -> None:
    """The address answers 200 (the server may print it a moment before it listens)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                if response.status != 200:
                    raise SystemExit(f"{url} answered {response.status}")
                return
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def output_text(output: dict) -> str:
    if output["output_type"] == "stream":
        return output["text"]
    if output["output_type"] == "error":
        return f"{output['ename']}: {output['evalue']}"
    data = output.get("data", {})
    return data.get("text/markdown") or data.get("text/plain", "")


def run_notebook(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    started = time.monotonic()
    client = NotebookClient(
        notebook, timeout=CELL_TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    problems = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            text = output_text(output)
            if output["output_type"] == "error" or ERROR_TEXT.search(text):
                problems.append(f"cell {index} ({cell.source.splitlines()[0]!r}): {text[:400]}")
    if problems:
        raise SystemExit(f"{path.name} ran with errors:\n" + "\n".join(problems))
    answers = [output_text(o) for cell in notebook.cells if cell.source.startswith("%%agent") for o in cell.outputs]
    if not any("Offline demo model" in text for text in answers):
        raise SystemExit(f"{path.name}: no %%agent cell shows the offline demo's answer")
    print(f"{path.name} ran headless in {time.monotonic() - started:.0f} s; no output holds an error")


def main() -> None:
    command, notebook = sys.argv[1], Path(sys.argv[2]).resolve()
    for key in [key for key in os.environ if key.endswith("_API_KEY") or key == "JUPYTER_AGENT_MODEL"]:
        del os.environ[key]  # a new user's machine: no key, so the offline demo model
    os.environ["JUPYTER_AGENT_DEMO_DELAY"] = "0"
    check_lab(command, notebook)
    run_notebook(notebook)


if __name__ == "__main__":
    main()
