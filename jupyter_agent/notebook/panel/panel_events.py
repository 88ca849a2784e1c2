"""How the live panel answers each run event: which widget a step, a tool call or the finish changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.inline import escape
from jupyter_agent.notebook.panel.status import finish_state

if TYPE_CHECKING:
    from jupyter_agent.notebook.panel.panel import AgentPanel
    from jupyter_agent.runtime.events import RunEvent


def dispatch(panel: AgentPanel, event: RunEvent) -> None:
    match event.type:
        case "run_start":
            panel.footer.start(event.step_budget)
            panel.set_state("running")
        case "step_start":
            panel._end_streams()
            panel.footer.step = event.step
            panel.footer.refresh()
        case "text_delta":
            panel._on_text_delta(event)
        case "thinking_delta":
            panel._on_thinking_delta(event)
        case "tool_call":
            panel._on_tool_call(event)
        case "tool_result":
            panel._on_tool_result(event)
        case "step_finish":
            panel._on_step_finish(event)
        case "user_message":
            panel._on_user_message(event)
        case "compacted":
            panel._end_streams()
            text = (
                f"Context compacted: {event.dropped_messages} earlier messages summarized ({event.summary_chars:,} characters)."
            )
            panel._append(panel._shared.html(escape(text), "ja-event"))
        case "message":
            if getattr(event.message, "role", "") == "assistant":
                panel._end_streams()  # the stream closed: its last text goes out now, not at the run's end
        case "approval_request":
            card = panel._open_card(event.request.tool_name)
            if card is not None:
                card.set_status("waiting for approval")
        case "approval_response":
            card = panel._open_card(event.request.tool_name)
            if card is not None and event.decision in ("deny", "cancelled"):  # "cancelled": ended meanwhile
                card.set_status("denied" if event.decision == "deny" else "cancelled")
            elif card is not None:
                card.running()
        case "finish":
            panel._end_streams()
            panel.footer.usage = event.usage or panel.footer.usage
            panel.controls.clear_queue()
            panel.set_state(*finish_state(event.reason))
        case "error":
            panel.show_error(fmt.error_text(event.error))
