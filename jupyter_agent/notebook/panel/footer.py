"""The panel's status line; the kernel reads Idle while the agent works, so it carries the
running indicator.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.shared import Shared
from jupyter_agent.notebook.panel.status import STATES, RunStatus


class Footer(RunStatus):
    """The status line of the panel, as an HTML widget."""

    def __init__(
        self,
        *,
        model_label: str,
        session: str,
        context_window: int | None,
        demo: bool,
        clock: Callable[[], float] = time.monotonic,
        shared: Shared | None = None,
    ) -> None:
        super().__init__(model_label=model_label, session=session, context_window=context_window, demo=demo, clock=clock)
        self.widget = (shared or Shared()).html(self.render(), "ja-footer")

    def refresh(self) -> None:
        value = self.render()
        if value != self.widget.value:
            self.widget.value = value

    def render(self) -> str:
        mark = STATES[self.state][0]
        parts = [f'<span class="ja-dot ja-{self.state}">{mark}</span>{escape(self.state_text())}']
        if self.step:
            parts.append(self.step_text())
        model = escape(self.model_label)
        if self.demo:  # once: the badge is the label when the label already names the demo
            model = (
                f'<span class="ja-demo">{model}</span>'
                if self.names_demo()
                else f'{model}<span class="ja-demo">offline demo model</span>'
            )
        parts.append(model)
        parts.extend(escape(item) for item in self.usage_items())
        parts.append(escape(fmt.elapsed(self.elapsed())))
        parts.append(f"session {escape(self.session)}")
        return " · ".join(parts)
