"""The approval bar: which tool wants to run with which arguments, and four decisions.

`ask()` shows the bar and awaits a future; a button click only resolves that future (callbacks
never block the kernel). Cancelling `ask()` hides the bar. Requests are taken one at a time.
The whole call is shown, however long (its code blocks scroll), with invisible and bidi
characters revealed: what is approved is exactly what runs. A tool that says what a call will do
(``AgentTool.approval_preview``, e.g. a notebook edit's cell diff) has that shown first, and when
the preview says all of it (``ApprovalPreview.complete``) the arguments fold away behind one
click; the bar knows no tool by name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from jupyter_agent.loop.types import ApprovalPreview
from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.nodes import Button
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, is_visible, set_visible
from jupyter_agent.notebook.panel.tool_card import args_html
from jupyter_agent.notebook.panel.visible import reveal
from jupyter_agent.notebook.threads import call_on_loop

if TYPE_CHECKING:
    from jupyter_agent.runtime.permissions import ApprovalRequest, Decision

DECISIONS = ("once", "tool", "call", "deny")


class ApprovalBar:
    def __init__(self, shared: Shared | None = None) -> None:
        shared = shared or Shared()
        self._title = shared.html()
        self._args = shared.html()
        self.buttons: dict[Decision, Button] = {
            "once": shared.button("Allow once", button_style="primary"),
            "tool": shared.button("Allow for this session"),
            "call": shared.button("Allow this exact call"),
            "deny": shared.button("Deny", button_style="danger"),
        }
        for decision, button in self.buttons.items():
            button.on_click(self._decider(decision))
        buttons = shared.hbox(self.buttons.values(), "ja-approval-buttons")
        self.widget = shared.vbox([self._title, self._args, buttons], "ja-approval", HIDDEN)
        self._future: asyncio.Future[Decision] | None = None
        self._lock: asyncio.Lock | None = None
        self.request: ApprovalRequest | None = None
        self.changed: Callable[[], None] | None = None  # called once the bar was shown or hidden

    @property
    def visible(self) -> bool:
        return is_visible(self.widget)

    async def ask(self, request: ApprovalRequest) -> Decision:
        """Show the request and wait for a click: "once" | "tool" | "call" | "deny"."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            self._future = asyncio.get_running_loop().create_future()
            self._show(request)
            try:
                return await self._future
            finally:
                self._future = None
                self._hide()

    def _decider(self, decision: Decision) -> Callable[[object], None]:
        return lambda _button: self.decide(decision)

    def decide(self, decision: Decision) -> None:
        """Resolve the waiting request (what a button click does)."""
        future = self._future
        if future is None or future.done():
            return
        # A click handled on another thread must hand the result to the future's loop.
        call_on_loop(future.get_loop(), _resolve, future, decision)

    def _show(self, request: ApprovalRequest) -> None:
        self.request = request
        name = str(fmt.field(request, "tool_name", "tool"))
        # The label is the tool's own ("add_note on MCP server demo") then the arguments' JSON,
        # which the formatted code below shows in full: only the tool's part is kept.
        label = str(fmt.field(request, "label") or name).split(" {", 1)[0].split(" [", 1)[0]
        note = f' <span class="ja-note">{escape(reveal(label))}</span>' if label not in (name, "") else ""
        said = str(fmt.field(request, "note", "") or "")  # what the arguments do not say (slow, stale cells)
        note += f'<div class="ja-note ja-approval-note">{escape(reveal(said))}</div>' if said else ""
        self._title.value = f"<b>Allow <code>{escape(name)}</code> to run?</b>{note}"
        self._args.value = call_html(request)
        self.buttons["tool"].description = f"Allow {name} for this session"
        set_visible(self.widget, True)
        if self.changed is not None:
            self.changed()

    def _hide(self) -> None:
        self.request = None
        set_visible(self.widget, False)
        if self.changed is not None:
            self.changed()


def _resolve(future: asyncio.Future[Decision], decision: Decision) -> None:
    if not future.done():
        future.set_result(decision)


_DIFF_COLORS = {"+": "var(--jp-success-color1, #388e3c)", "-": "var(--jp-error-color1, #d32f2f)"}


def call_html(request: ApprovalRequest) -> str:
    """The call as the bar shows it: the tool's own preview first (``ApprovalPreview``), then its
    arguments, whole; a preview that says all the call does folds the arguments away (one click)."""
    args = args_html(fmt.field(request, "args", {}), limit=None)
    preview = fmt.field(request, "preview", None)
    if not isinstance(preview, ApprovalPreview):
        return args
    shown = preview_html(preview)
    if preview.complete:
        return f'{shown}<details class="ja-approval-args"><summary>Arguments</summary>{args}</details>'
    return shown + args


def preview_html(preview: ApprovalPreview) -> str:
    """A tool's preview of its call: a diff with lines coloured by their sign, code, or text."""
    if preview.kind != "diff":
        return f'<pre class="ja-preview ja-preview-{preview.kind}">{escape(reveal(preview.text))}</pre>'
    rows = []
    for line in preview.text.splitlines():
        color = _DIFF_COLORS.get(line[:1]) if not line.startswith(("+++", "---")) else None
        text = escape(reveal(line))
        rows.append(f'<span style="color:{color}">{text}</span>' if color else text)
    return '<pre class="ja-diff">' + "\n".join(rows) + "</pre>"
