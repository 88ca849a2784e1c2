"""The agent side panel of JupyterLab: turns asked from the panel, shown there, never in a cell.

The lab extension's side panel (``labextension/src/side_panel.ts``) sends ``chat_request`` with a
prompt for the active notebook's kernel. The turn is an ordinary ``%%agent`` turn (the same
options, session store, tools, permissions, mentions) started through ``AgentMagics.start_turn``
in the session ``chat`` unless the panel names another; only its renderer differs: the same live
panel widget, whose model id goes to the side panel (``chat_started``), which renders it through
the notebook's widget manager, so streamed text, tool cards, approvals, Steer and Stop all work
there. When the turn ends the widget is closed and its static rendering sent (``chat_finished``)
for the side panel to keep. No cell is added or written to.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Callable

from jupyter_agent.notebook import frontend
from jupyter_agent.notebook.comm import protocol as p
from jupyter_agent.notebook.panel.panel import AgentPanel

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

DEFAULT_SESSION = "chat"


class SidePanelRenderer(AgentPanel):
    """The turn's live panel, shown by the side panel instead of a cell; its end goes there too."""

    shown_elsewhere = True  # frontend.show() displays nothing in the cell

    def __init__(
        self,
        *,
        on_finished: Callable[[list[dict[str, str]]], None],
        model_label: str,
        session: str,
        context_window: int | None = None,
        demo: bool = False,
    ) -> None:
        super().__init__(model_label=model_label, session=session, context_window=context_window, demo=demo)
        self._on_finished = on_finished

    def finish(self) -> None:
        self.flush()
        bundles = self.static_bundles()  # built before the widget closes: nothing is lost on failure
        self._on_finished(bundles)
        self.close()


def start_side_turn(
    shell: InteractiveShell | None, request: p.ChatRequest, send: Callable[[p.ProtocolMessage], None]
) -> p.ChatStarted:
    """Starts the turn ``request`` asks for; its ``chat_finished`` goes to ``send`` when it ends.

    Raises what ``%%agent`` would (a ``UsageError`` for bad options): the side panel shows it.
    """
    if shell is None:
        raise RuntimeError("the side panel's turns run in a kernel, and this bridge has no shell")
    magics = shell.find_line_magic("agent").__self__
    chat_session = request.session or DEFAULT_SESSION
    made: list[SidePanelRenderer] = []

    def make(*, model_label: str, session: str, context_window: int | None, demo: bool) -> SidePanelRenderer:
        def finished(bundles: list[dict[str, str]]) -> None:
            send(p.ChatFinished(request_id=request.request_id, session=chat_session, bundles=bundles))

        renderer = SidePanelRenderer(
            on_finished=finished, model_label=model_label, session=session, context_window=context_window, demo=demo
        )
        made.append(renderer)
        return renderer

    token = frontend.renderer_override.set(make)
    try:
        magics.start_turn(f"-s {shlex.quote(chat_session)}", request.prompt)
    finally:
        frontend.renderer_override.reset(token)
    if not made:
        raise RuntimeError("the turn did not start")
    return p.ChatStarted(request_id=request.request_id, session=chat_session, model_id=made[0].widget.model_id)
