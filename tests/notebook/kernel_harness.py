"""A real ipykernel driven through jupyter_client, the way a frontend drives it.

nbclient cannot test the background-run design (it only keeps messages whose parent is the cell
executing right now), so tests talk to the kernel directly: execute code, drain iopub keeping
every message with its parent header, follow widget models by comm id, and send button clicks
and text edits as shell ``comm_msg``s, exactly as JupyterLab does.

The agent's panels are shown by their real front end, in a page of their own (``panel_page``):
every message of a panel widget goes to the page as it arrives, the page's hello and the user's
clicks and typing come back from it, and each node of a panel is a ``Widget`` (comm id
``<panel comm>#<node id>``) whose state is what the page's DOM shows.
"""

from __future__ import annotations

import os
import queue
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from jupyter_client import KernelManager
from panel_page import Answer, PanelPage, is_panel, node_address

from jupyter_agent.testing.waiting import assert_quiet_for_blocking, wait_until_blocking

START_TIMEOUT = 60  # a cold kernel starts in ~1 s; a loaded CI machine can be much slower
REPLY_TIMEOUT = 30  # no test cell takes longer; the agent runs in the background


# Code a test kernel runs after %load_ext: scripted models by name, and a look at the turns.
AGENT_TEST_SETUP = """
from jupyter_agent.notebook.model_resolution import register_model
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, failure, reply, tool_calls
from jupyter_agent.messages import TextContent
_agent = get_ipython().find_line_magic('agent').__self__

def script(name, *responses, **options):
    model = ScriptedModel(list(responses), **options)
    register_model(name, model, model.model(name))
    return model

def last_turn(session):
    return _agent.sessions.get(session).turns[-1]

def turn_done(session):
    turns = _agent.sessions.get(session).turns
    return bool(turns) and turns[-1].task.done()

def unpaired_calls(session):
    messages = _agent.sessions.get(session).store.history()
    calls = {b.id for m in messages if m.role == 'assistant' for b in m.content if b.type == 'tool_call'}
    results = {m.tool_call_id for m in messages if m.role == 'tool_result'}
    return sorted(calls - results)
"""


class KernelTimeout(AssertionError):
    pass


@dataclass
class Reply:
    msg_id: str
    content: dict
    elapsed: float

    @property
    def ok(self) -> bool:
        return self.content.get("status") == "ok"


@dataclass
class PanelFeed:
    """What the page was sent for one panel widget."""

    comm_id: str
    parent: str  # the msg id of the cell that opened it
    version: str | None = None  # the front end it brought the page, if it did
    runtime_bytes: int = 0  # that front end and its stylesheet
    last_text: str = ""  # the whole values of the nodes the last message changed


@dataclass
class Widget:
    comm_id: str
    state: dict = field(default_factory=dict)
    parent_ids: list[str] = field(default_factory=list)  # parent msg_id of every message it sent
    custom: list[Any] = field(default_factory=list)  # payloads of "custom" messages from the kernel

    @property
    def model_name(self) -> str:
        return self.state.get("_model_name", "")


class KernelHarness:
    def __init__(self, env: dict[str, str] | None = None, cwd: str | None = None) -> None:
        self.env = {**os.environ, **(env or {})}
        self.cwd = cwd
        self.km: KernelManager | None = None
        self.kc = None
        self.messages: list[dict] = []  # every iopub message, in arrival order
        self.widgets: dict[str, Widget] = {}
        self.panels: dict[str, PanelFeed] = {}  # panel widgets by comm id
        self.page: PanelPage | None = None  # where the panels are shown (one page, as one browser tab), from start()
        self.front_end_subshell: str | None = None
        self.hellos: dict[str, str] = {}  # msg id of each hello sent -> its panel's comm id (replies belong to the panel)
        # Set: the page's hellos wait in ``held_hellos`` until ``release_hellos`` sends them.
        self.hold_hellos = False
        self.held_hellos: list[tuple[str, Any]] = []

    # -- lifecycle ------------------------------------------------------------------------

    def start(self) -> "KernelHarness":
        self.page = PanelPage()  # its Node process boots while the kernel starts
        self.km = KernelManager(kernel_name="python3")
        self.km.start_kernel(env=self.env, cwd=self.cwd)
        self._connect()
        return self

    def _connect(self) -> None:
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=START_TIMEOUT)
        self.drain(0.2)

    def restart(self, env: dict[str, str] | None = None) -> None:
        """The kernel restarted (``env``: variables changed for the new process, as a server
        changes ``JPY_SESSION_NAME`` when the notebook was renamed)."""
        self.kc.stop_channels()
        if env:
            self.env = {**self.env, **env}
        self.km.restart_kernel(now=True, **({"env": self.env} if env else {}))
        self.messages.clear()
        self.widgets.clear()
        if self.page is not None:  # the page stays (and keeps its front end); the old panels go
            for comm_id in self.panels:
                self.page.close(comm_id)
        self.panels.clear()
        self.front_end_subshell = None
        self._connect()

    def shutdown(self) -> None:
        if self.page is not None:
            self.page.drop()
            self.page = None
        if self.kc is not None:
            self.kc.stop_channels()
        if self.km is not None and self.km.has_kernel:
            self.km.shutdown_kernel(now=True)

    def interrupt(self) -> None:
        self.km.interrupt_kernel()

    def is_alive(self) -> bool:
        return self.km.is_alive()

    # -- execution ------------------------------------------------------------------------

    def send(self, code: str, cell_id: str | None = None) -> str:
        """Executes ``code``; with ``cell_id`` as JupyterLab sends a cell (``metadata.cellId``)."""
        if cell_id is None:
            return self.kc.execute(code, store_history=True, allow_stdin=False)
        content = {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        }
        msg = self.kc.session.msg("execute_request", content, metadata={"cellId": cell_id})
        self.kc.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def wait_reply(self, msg_id: str, timeout: float = REPLY_TIMEOUT) -> Reply:
        started = time.monotonic()
        deadline = started + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.kc.get_shell_msg(timeout=min(0.1, max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                self.drain(0)
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                elapsed = time.monotonic() - started
                self.drain(0)
                return Reply(msg_id, msg["content"], elapsed)
        raise KernelTimeout(f"no execute_reply for {msg_id} within {timeout} s")

    def round_trip(self, code: str = "1+1", timeout: float = REPLY_TIMEOUT) -> float:
        """Seconds from sending ``code`` (not stored in history) to its execute_reply; iopub is left unread."""
        sent = time.monotonic()
        msg_id = self.kc.execute(code, store_history=False)
        while True:
            reply = self.kc.get_shell_msg(timeout=timeout)
            if reply["parent_header"].get("msg_id") == msg_id:
                return time.monotonic() - sent

    def execute(self, code: str, timeout: float = REPLY_TIMEOUT, *, check: bool = True) -> Reply:
        """Runs code; waits for the reply and the cell's idle status; raises on error if ``check``."""
        msg_id = self.send(code)
        reply = self.wait_reply(msg_id, timeout)
        self.wait_for(lambda: self.is_idle(msg_id), timeout, f"idle after {code[:40]!r}")
        if check and not reply.ok:
            raise AssertionError(
                f"cell failed: {reply.content.get('ename')}: {reply.content.get('evalue')}\n" + self.text_of(msg_id, "stderr")
            )
        return reply

    def evaluate(self, expression: str, timeout: float = REPLY_TIMEOUT) -> str:
        """The ``text/plain`` repr of an expression, computed in the kernel."""
        msg_id = self.send(expression)
        self.wait_reply(msg_id, timeout)
        self.wait_for(lambda: self.is_idle(msg_id), timeout, "idle")
        for msg in self.of(msg_id):
            if msg["msg_type"] == "execute_result":
                return msg["content"]["data"]["text/plain"]
            if msg["msg_type"] == "error":
                raise AssertionError(f"{msg['content']['ename']}: {msg['content']['evalue']}")
        raise AssertionError(f"{expression!r} produced no result")

    # -- iopub ----------------------------------------------------------------------------

    def drain(self, timeout: float = 0.05) -> int:
        """Reads every iopub message available within ``timeout``; returns how many arrived."""
        count = 0
        deadline = time.monotonic() + timeout
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            try:
                msg = self.kc.get_iopub_msg(timeout=remaining if remaining else 0.001)
            except queue.Empty:
                if time.monotonic() >= deadline:
                    return count
                continue
            self._record(msg)
            count += 1

    def wait_for(self, predicate: Callable[[], Any], timeout: float = REPLY_TIMEOUT, what: str = "condition") -> Any:
        """``predicate()``'s value once it is true, reading iopub meanwhile; ``AssertionError`` after ``timeout``."""
        return wait_until_blocking(predicate, timeout, what, pause=self.drain, every=0.05)

    def assert_quiet_for(self, seconds: float, happened: Callable[[], Any], what: str = "something") -> None:
        """Reads iopub for ``seconds``, failing as soon as ``happened()`` is true (see ``testing.waiting``)."""
        assert_quiet_for_blocking(seconds, happened, what, pause=self.drain, every=0.05)

    def _record(self, msg: dict) -> None:
        self.messages.append(msg)
        kind, content = msg["msg_type"], msg["content"]
        parent = msg["parent_header"].get("msg_id", "")
        if kind == "comm_open":
            widget = self.widgets.setdefault(content["comm_id"], Widget(content["comm_id"]))
            widget.state.update(content.get("data", {}).get("state", {}))
            widget.parent_ids.append(parent)
            if is_panel(widget.state):
                self._open_panel(content["comm_id"], parent)
        elif kind == "comm_msg":
            widget = self.widgets.setdefault(content["comm_id"], Widget(content["comm_id"]))
            data = content.get("data", {})
            panel = self.panels.get(content["comm_id"])
            if panel is not None and data.get("method") == "custom":
                self._show(panel, data.get("content"), msg.get("buffers") or [])
                widget.custom.append(panel.last_text)  # what the message said, inflated
            elif data.get("method") == "update":
                widget.state.update(data.get("state", {}))
            elif data.get("method") == "custom":
                widget.custom.append(data.get("content"))
            widget.parent_ids.append(parent)
        elif kind == "comm_close" and content["comm_id"] in self.panels and self.page is not None:
            self.page.close(content["comm_id"])  # as anywidget does when a model goes: the view is removed

    def _open_panel(self, comm_id: str, parent: str) -> None:
        """The panel's model opens in the page: its loader says hello."""
        self.panels[comm_id] = PanelFeed(comm_id, parent)
        self._from_page(self.page.open(comm_id, self.widgets[comm_id].state))

    def _show(self, panel: PanelFeed, content: Any, buffers: list) -> None:
        """One message of a panel widget, shown by the page; its nodes' states as the DOM has them."""
        if isinstance(content, dict) and content.get("rt"):
            panel.version = content["rt"]
            panel.runtime_bytes = sum(len(bytes(buffer)) for buffer in buffers[1:])
        answer = self.page.message(panel.comm_id, content, buffers)
        panel.last_text = ""
        for node_id, state in answer.nodes.items():
            node_comm = f"{panel.comm_id}#{node_id}"
            widget = self.widgets.get(node_comm)
            if widget is None:
                widget = self.widgets[node_comm] = Widget(node_comm, parent_ids=[panel.parent])
            widget.state.update(state)
            if isinstance(state.get("value"), str):
                panel.last_text += state["value"] + "\n"
        self._from_page(answer)

    def _from_page(self, answer: Answer, subshell_id: str | None = None) -> None:
        """Sends the kernel what the page sent: hellos, clicks, typed text (each on its panel's comm)."""
        for comm_id, content in answer.sent:
            msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}})
            if isinstance(content, list) and content[:1] == ["hello"] and self.hold_hellos:
                self.held_hellos.append((comm_id, content))
                continue
            if isinstance(content, list) and content[:1] == ["hello"]:
                # On a subshell, as JupyterLab sends widget messages: agent-run code may block the main shell.
                if self.front_end_subshell is None:
                    self.front_end_subshell = self.create_subshell()
                msg["header"]["subshell_id"] = self.front_end_subshell
                self.hellos[msg["header"]["msg_id"]] = comm_id
            elif subshell_id is not None:
                msg["header"]["subshell_id"] = subshell_id
            self.kc.shell_channel.send(msg)

    def release_hellos(self) -> None:
        """Sends the held hellos on the main shell, as JupyterLab sends a kernel's first widget
        messages (before its subshell for widgets exists)."""
        held, self.held_hellos, self.hold_hellos = self.held_hellos, [], False
        for comm_id, content in held:
            msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}})
            self.hellos[msg["header"]["msg_id"]] = comm_id
            self.kc.shell_channel.send(msg)

    def of(self, msg_id: str) -> list[dict]:
        return [m for m in self.messages if m["parent_header"].get("msg_id") == msg_id]

    def is_idle(self, msg_id: str) -> bool:
        return any(m["msg_type"] == "status" and m["content"]["execution_state"] == "idle" for m in self.of(msg_id))

    def text_of(self, msg_id: str, stream: str = "stdout") -> str:
        return "".join(
            m["content"]["text"] for m in self.of(msg_id) if m["msg_type"] == "stream" and m["content"]["name"] == stream
        )

    def outputs_of(self, msg_id: str) -> str:
        """Everything a cell showed as text: streams, displays, results and errors."""
        parts = []
        for m in self.of(msg_id):
            kind, content = m["msg_type"], m["content"]
            if kind == "stream":
                parts.append(content["text"])
            elif kind in ("display_data", "execute_result", "update_display_data"):
                data = content["data"]
                parts.append(data.get("text/markdown") or data.get("text/plain", ""))
            elif kind == "error":
                parts.append(f"{content['ename']}: {content['evalue']}")
        return "\n".join(parts)

    def cell_outputs(self, msg_id: str) -> list[dict]:
        """The cell's outputs as a frontend stores them: clear_output empties the list (a pending
        one at the next output), update_display_data replaces outputs of its display id."""
        outputs: list[dict] = []
        clear_pending = False
        for m in self.messages:
            kind, content = m["msg_type"], m["content"]
            if kind == "update_display_data":
                display_id = content.get("transient", {}).get("display_id")
                for output in outputs:
                    if display_id and output.get("display_id") == display_id:
                        output["data"] = content["data"]
                continue
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if kind == "clear_output":
                if content.get("wait"):
                    clear_pending = True
                else:
                    outputs = []
                continue
            if kind in ("display_data", "execute_result", "stream", "error"):
                if clear_pending:
                    outputs, clear_pending = [], False
                output = {
                    "output_type": kind,
                    "data": content.get("data", {}),
                    "display_id": content.get("transient", {}).get("display_id"),
                }
                if kind == "stream":
                    output["data"] = {"text/plain": content["text"]}
                elif kind == "error":
                    output["data"] = {"text/plain": f"{content['ename']}: {content['evalue']}"}
                outputs.append(output)
        return outputs

    # -- agent turns (needs AGENT_TEST_SETUP) --------------------------------------------------

    def agent_cell(self, options: str, prompt: str, cell_id: str | None = None) -> tuple[str, Reply]:
        msg_id = self.send(f"%%agent {options}\n{prompt}", cell_id)
        return msg_id, self.wait_reply(msg_id)

    def wait_turn(self, session: str, timeout: float = REPLY_TIMEOUT) -> None:
        self.wait_for(lambda: self.evaluate(f"turn_done({session!r})") == "True", timeout, f"the turn of {session!r}")

    # -- widgets --------------------------------------------------------------------------

    def find_widgets(self, model_name: str | None = None, **state: Any) -> list[Widget]:
        found = []
        for widget in self.widgets.values():
            if model_name and widget.model_name != model_name:
                continue
            if all(widget.state.get(key) == value for key, value in state.items()):
                found.append(widget)
        return found

    def cell_widgets(self, msg_id: str) -> list[Widget]:
        """Widgets created by one cell (their comm_open has the cell as parent)."""
        return [w for w in self.widgets.values() if w.parent_ids and w.parent_ids[0] == msg_id]

    def button(self, msg_id: str, description: str, timeout: float = REPLY_TIMEOUT) -> Widget:
        """The cell's button whose label contains ``description`` (waits until it exists)."""

        def find():
            buttons = [
                w
                for w in self.cell_widgets(msg_id)
                if w.model_name == "ButtonModel" and description in w.state.get("description", "")
            ]
            return buttons[-1] if buttons else None

        return self.wait_for(find, timeout, f"a button {description!r}")

    def click(self, comm_id: str, subshell_id: str | None = None) -> None:
        """A button click; with ``subshell_id`` sent to that subshell, as JupyterLab 4.6 sends widget messages."""
        address = node_address(comm_id)
        if address is not None:  # a button of a panel: clicked in the page, whose front end sends it
            answer = self.page.click(*address)
            if not answer.sent:
                raise AssertionError(f"clicking {comm_id} sent nothing: {self.widgets[comm_id].state}")
            self._from_page(answer, subshell_id)
            return
        self._comm_msg(comm_id, {"method": "custom", "content": {"event": "click"}}, subshell_id)

    def create_subshell(self, timeout: float = REPLY_TIMEOUT) -> str:
        """A kernel subshell (ipykernel 7): its messages run on their own thread, beside the main shell."""
        request = self.kc.session.msg("create_subshell_request", {})
        self.kc.control_channel.send(request)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                reply = self.kc.control_channel.get_msg(timeout=0.1)
            except queue.Empty:
                continue
            if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                return reply["content"]["subshell_id"]
        raise KernelTimeout("no create_subshell_reply")

    def set_state(self, comm_id: str, **state: Any) -> None:
        """A user edit, as the frontend syncs it (e.g. typing into a Text widget)."""
        address = node_address(comm_id)
        if address is not None:  # a panel's text box: typed into in the page, whose front end sends it
            answer = self.page.type(*address, state["value"])
            self._from_page(answer)
            for node_id, node_state in answer.nodes.items():
                self.widgets[f"{address[0]}#{node_id}"].state.update(node_state)
            return
        self._comm_msg(comm_id, {"method": "update", "state": state, "buffer_paths": []})
        self.widgets.setdefault(comm_id, Widget(comm_id)).state.update(state)

    def _comm_msg(self, comm_id: str, data: dict, subshell_id: str | None = None) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self.kc.shell_channel.send(msg)

    def panel_updates(self, msg_id: str) -> list[tuple[str, str]]:
        """(parent msg id, text of the nodes it changed) of each update the cell's panels sent after
        the page's hello was answered."""
        updates = []
        for widget in self.cell_widgets(msg_id):
            if widget.comm_id in self.panels:
                pairs = zip(widget.parent_ids[1:], widget.custom)
                updates += [(parent, text) for parent, text in pairs if parent not in self.hellos]
        return updates

    def widget_text(self, parent_msg_id: str | None = None) -> str:
        """All text-like widget values (and custom appends), optionally only of one cell's widgets;
        with a cell, its displays too (a turn that ended before its panel was seen shows its static
        rendering)."""
        parts = []
        for widget in self.widgets.values():
            if parent_msg_id and parent_msg_id not in widget.parent_ids:
                continue
            for key in ("value", "description", "placeholder"):
                value = widget.state.get(key)
                if isinstance(value, str):
                    parts.append(value)
            if widget.comm_id not in self.panels:
                parts.extend(str(payload) for payload in widget.custom)
        if parent_msg_id:
            parts.append(self.outputs_of(parent_msg_id))
        return "\n".join(parts)


def notebook_kernel(
    folder, model: str = "demo", notebook_name: str = "analysis.ipynb", env: dict[str, str] | None = None
) -> KernelHarness:
    """A started kernel as a Jupyter server starts one for ``folder/notebook_name`` (panel mode:
    JPY_SESSION_NAME set), with the extension loaded and the test helpers defined."""
    notebook = folder / notebook_name
    notebook.write_text("{}")
    harness = KernelHarness(env={"JPY_SESSION_NAME": str(notebook), "JUPYTER_AGENT_MODEL": model, **(env or {})}, cwd=str(folder))
    harness.start()
    harness.folder = folder
    harness.execute("%load_ext jupyter_agent")
    # The comm target is registered just after the cell, once its modules were imported off the
    # loop; a page looks for it again meanwhile (connection.ts), the tests wait for it.
    harness.wait_for(lambda: comm_target_registered(harness), what="the extension's comm target")
    harness.execute(AGENT_TEST_SETUP)
    return harness


def comm_target_registered(harness: KernelHarness) -> bool:
    """Whether the kernel has the extension's comm target, asked silently (no cell in the kernel's history)."""
    expression = "'jupyter_agent' in get_ipython().kernel.comm_manager.targets"
    msg_id = harness.kc.execute("", silent=True, store_history=False, user_expressions={"registered": expression})
    found = harness.wait_reply(msg_id).content["user_expressions"]["registered"]
    return found.get("status") == "ok" and found["data"]["text/plain"] == "True"


def notebook_outputs_text(cell) -> str:
    """A cell of a notebook run headless (nbclient): its streams, Markdown or plain displays and errors."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(output.data.get("text/markdown") or output.data.get("text/plain", ""))
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
    return "\n".join(parts)
