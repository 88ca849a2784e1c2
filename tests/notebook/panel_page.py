"""The panel's real front end for the Python tests: a page in Node that runs the JavaScript.

One Node process per test session (``labextension/test/panel_page_server.mjs``) holds a
happy-dom page per ``PanelPage``. A page is handed every message of a panel widget as it
arrives; it runs the loader the widget's comm_open carried and the front end the kernel sent,
and answers with what the page sent back (the loader's hello, a click) and the state of each
node the message changed, read from the DOM in ipywidgets' terms (``_model_name``, ``value``,
``description``, ``disabled``, ``children``, ``titles``, ``selected_index``, …), so tests read
text, find buttons and click them the same way for every widget.
"""

from __future__ import annotations

import atexit
import base64
import json
import select
import shutil
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
SERVER = LABEXTENSION / "test" / "panel_page_server.mjs"
ANSWER_TIMEOUT = 30  # seconds; a page answers in milliseconds, a loaded machine may be far slower


class PageError(AssertionError):
    """The page failed a request, or its scripts logged an error."""


def is_panel(state: dict[str, Any]) -> bool:
    return str(state.get("_anywidget_id", "")).endswith(".PanelWidget")


def node_address(comm_id: str) -> tuple[str, int] | None:
    """(panel comm id, node id) for a node's comm id (``<panel comm>#<node id>``), None for a real widget's."""
    panel, _, node = comm_id.partition("#")
    return (panel, int(node)) if node.isdigit() else None


@dataclass
class Answer:
    sent: list[tuple[str, Any]]  # (comm id, content) of what the page sent, oldest first
    nodes: dict[int, dict[str, Any]] = field(default_factory=dict)  # node id -> its state, if it changed


class _Node:
    """The session's Node process; requests are answered in order, one at a time."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Starts the process if it is not running (without waiting for it: it boots meanwhile)."""
        with self._lock:
            self._started()

    def request(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            process = self._started()
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(json.dumps(request).encode() + b"\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], ANSWER_TIMEOUT)
            line = process.stdout.readline() if ready else b""
            if not line:
                self.stop()
                raise PageError(f"the panel page did not answer {request.get('do')!r} within {ANSWER_TIMEOUT} s")
            return json.loads(line)

    def _started(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            _ensure_installed()
            self._process = subprocess.Popen(
                ["node", str(SERVER)], cwd=LABEXTENSION, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None
            )
        return self._process

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _ensure_installed() -> None:
    if shutil.which("node") is None:
        raise PageError("Node.js is needed to run the panel's front end in the tests (see README: Tests)")
    if (LABEXTENSION / "node_modules" / "happy-dom").exists():
        return
    # Once per checkout, as the extension's own tests do (`pip install -e` runs it too).
    installed = subprocess.run(["jlpm", "install"], cwd=LABEXTENSION, capture_output=True, text=True, timeout=900)
    if installed.returncode != 0:
        raise PageError(f"jlpm install failed:\n{installed.stdout[-4000:]}\n{installed.stderr[-4000:]}")


_NODE = _Node()
atexit.register(_NODE.stop)
_pages = 0


class PanelPage:
    """One page (a browser tab): the panels opened in it share its loaded front end."""

    def __init__(self, *, decompression: bool = True) -> None:
        global _pages
        _pages += 1
        self.id = _pages
        self._decompression = decompression
        _NODE.start()  # Node and happy-dom take a second or two to load: from now, not at the first panel

    def open(self, comm_id: str, state: dict[str, Any]) -> Answer:
        """A panel widget's comm_open (its state: ``_esm``, ``_panel_id``, …)."""
        return self._ask("open", comm_id, state=state)

    def message(self, comm_id: str, content: Any, buffers: Iterable[bytes | memoryview] = ()) -> Answer:
        """A comm message the widget sent (anywidget's ``custom`` content and its buffers)."""
        encoded = [base64.b64encode(bytes(buffer)).decode("ascii") for buffer in buffers]
        return self._ask("message", comm_id, content=content, buffers=encoded)

    def click(self, comm_id: str, node: int) -> Answer:
        return self._ask("click", comm_id, node=node)

    def type(self, comm_id: str, node: int, text: str) -> Answer:
        """Text typed into a text box (its whole new content)."""
        return self._ask("input", comm_id, node=node, value=text)

    def close(self, comm_id: str) -> Answer:
        return self._ask("close", comm_id)

    def drop(self) -> None:
        """The page goes away (its panels with it)."""
        _NODE.request({"page": self.id, "do": "drop"})

    def _ask(self, action: str, comm_id: str, **fields: Any) -> Answer:
        request = {"page": self.id, "do": action, "comm": comm_id, "decompression": self._decompression, **fields}
        answer = _NODE.request(request)
        if "error" in answer:
            raise PageError(f"the panel page failed {action!r} for {comm_id}:\n{answer['error']}")
        if answer.get("errors"):
            raise PageError(f"the panel's scripts logged errors ({action!r} for {comm_id}):\n" + "\n".join(answer["errors"]))
        sent = [(comm, content) for comm, content in answer["sent"]]
        return Answer(sent, {int(node): state for node, state in answer.get("nodes", {}).items()})


__all__ = ["Answer", "PageError", "PanelPage", "is_panel", "node_address"]
