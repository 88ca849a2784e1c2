"""Stop, and a text box with Steer / Follow-up; the list of messages waiting to be delivered.

The buttons only call the hooks the integration installs (`on_stop`, `on_steer`,
`on_follow_up`); those put work on the loop and return at once.

The box and its buttons are handled on the thread their messages arrive on (like Stop, see
``handle_where_sent``): while agent-run Python blocks the loop, the run can only take a message
once that call returns, so a sent message is listed as queued at once, by the controls, and the
run's own "queued" event later confirms that entry instead of adding a second one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.shared import HIDDEN, Shared, set_visible

_PLACEHOLDER = "Message the agent…"
# A steer sent while the loop is busy (agent-run Python) is taken by the run once that call returns.
AFTER_RUNNING_CALL = "will reach the agent after the running call"
# Drawn by the stylesheet: an emoji hourglass shows as a box where no emoji font is installed.
SPINNER = '<span class="ja-spinner"></span>'


def handle_where_sent(widget: object) -> None:
    """Lets the frontend's messages to ``widget`` run on the subshell they were sent to.

    ipykernel 7 hands a comm's incoming messages to the subshell its own last message went out
    from, which for a widget a cell made is the main shell. JupyterLab sends widget messages on a
    subshell, but agent-run Python blocks the main shell: a Stop click would wait for the very
    code it should stop. Routed as sent, the click runs on the subshell's thread, which can
    interrupt that code (``Turn.stop``). A kernel without this routing is left as it is.
    """
    comm = getattr(widget, "comm", None)
    if comm is not None and callable(getattr(comm, "_reply_subshell_for", None)):
        comm._reply_subshell_for = lambda data, sent_to: sent_to


class Controls:
    def __init__(self, *, note: Callable[[str], None], shared: Shared | None = None) -> None:
        shared = shared or Shared()
        self.on_stop: Callable[[], None] | None = None
        self.on_steer: Callable[[str], bool] | None = None
        self.on_follow_up: Callable[[str], bool] | None = None
        self._note = note
        self.text = shared.textarea(placeholder=_PLACEHOLDER, rows=1)
        self.steer_button = shared.button("Steer", icon="share", tooltip="Send now: the agent reads it at its next step")
        self.follow_up_button = shared.button(
            "Follow-up", icon="reply", tooltip="Queue it: the agent continues with it after its answer"
        )
        self.stop_button = shared.button("Stop", button_style="danger", icon="stop", tooltip="Stop the agent")
        self.steer_button.on_click(lambda _: self._send("steer"))
        self.follow_up_button.on_click(lambda _: self._send("follow_up"))
        self.stop_button.on_click(lambda _: self._stop())
        self.queue_html = shared.html("", "ja-queue", HIDDEN)
        row = shared.hbox([self.text, self.steer_button, self.follow_up_button, self.stop_button], "ja-controls")
        self.widget = shared.vbox([self.queue_html, row])
        self.queued: list[tuple[str, str]] = []  # (delivery, text), oldest first
        # Listed when sent, not yet announced by the run (its loop was busy): the announcement confirms them.
        self._unconfirmed: list[tuple[str, str]] = []
        self._sending: tuple[str, str] | None = None  # the message a hook is being called with
        # The run announces on the loop's thread while a click may be handled on a subshell's; reentrant:
        # a run on the click's own thread announces from inside the hook.
        self._lock = threading.RLock()

    def immediate_ids(self) -> set[int]:
        """The nodes whose events must be handled where they arrive: Stop stops the code that blocks
        the loop, and a message sent meanwhile is listed as queued at once."""
        return {node.id for node in (self.text, self.steer_button, self.follow_up_button, self.stop_button)}

    def set_enabled(self, enabled: bool) -> None:
        """Enabled while a run may take messages; a finished run hides the controls (they would
        do nothing in a saved notebook)."""
        for widget in (self.text, self.steer_button, self.follow_up_button, self.stop_button):
            widget.disabled = not enabled
        self.stop_button.description = "Stop"
        set_visible(self.widget, enabled)

    def add_queued(self, delivery: str, text: str) -> None:
        """The run announced a queued message (once it took it): listed, unless it is listed already."""
        item = (delivery, text)
        with self._lock:
            if item == self._sending:
                self._sending = None  # announced from inside the hook: nothing to list in advance
            elif item in self._unconfirmed:
                self._unconfirmed.remove(item)
                self._render_queue()
                return
            self.queued.append(item)
            self._render_queue()

    def mark_delivered(self, delivery: str, text: str) -> None:
        """Drop the oldest matching queued message (FIFO per delivery kind)."""
        with self._lock:
            for index, item in enumerate(self.queued):
                if item == (delivery, text):
                    del self.queued[index]
                    break
            else:
                for index, item in enumerate(self.queued):
                    if item[0] == delivery:
                        del self.queued[index]
                        break
            self._render_queue()

    def clear_queue(self) -> None:
        with self._lock:
            self.queued.clear()
            self._unconfirmed.clear()
            self._render_queue()

    def _send(self, delivery: str) -> None:
        text = self.text.value.strip()
        if not text:
            self._note("Type a message first.")
            return
        hook = self.on_steer if delivery == "steer" else self.on_follow_up
        with self._lock:
            self._sending = (delivery, text)
            try:
                accepted = bool(hook(text)) if hook is not None else False
            finally:
                unannounced, self._sending = self._sending, None
            if accepted and unannounced is not None:
                # Handed to the loop from another thread (a busy one, perhaps): listed now, heard at once.
                self._unconfirmed.append(unannounced)
                self.queued.append(unannounced)
                self._render_queue()
        if accepted:
            self.text.value = ""
            self._note("")
        else:
            self._note("The agent is not running: the message was not sent.")

    def _stop(self) -> None:
        if self.on_stop is None:
            self._note("Nothing to stop.")
            return
        self.stop_button.disabled = True
        self.stop_button.description = "Stopping…"
        self.on_stop()

    def _render_queue(self) -> None:
        if not self.queued:
            set_visible(self.queue_html, False)
            self.queue_html.value = ""
            return
        self.queue_html.value = "<br>".join(self._queue_line(item) for item in self.queued)
        set_visible(self.queue_html, True)

    def _queue_line(self, item: tuple[str, str]) -> str:
        delivery, text = item
        # A follow-up waits for the answer anyway; a steer not yet taken waits for the running call.
        when = f" ({AFTER_RUNNING_CALL})" if delivery == "steer" and item in self._unconfirmed else ""
        return f"{SPINNER}queued {'steer' if delivery == 'steer' else 'follow-up'}{when}: {escape(text)}"
