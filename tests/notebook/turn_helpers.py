"""Test doubles for turns: a renderer that records what it is told, and a Turn builder."""

from __future__ import annotations

from jupyter_agent.features.feature import FeatureEvent
from jupyter_agent.notebook.runner import Turn, TurnRequest, TurnSettings
from jupyter_agent.testing.waiting import wait_until  # noqa: F401 - the tests import it from here


class RecordingRenderer:
    """Stands in for the panel: records what it is told and answers approvals from a script.

    ``events`` are the run's events; what the features showed is in ``feature_events`` (and, by
    kind, ``plans``, ``memory_changes``, ``child_events`` and ``materialize_offers``)."""

    def __init__(self, decisions=()):
        self.events = []
        self.feature_events = []
        self.states = []
        self.notes = []
        self.errors = []
        self.decisions = list(decisions)
        self.asked = []
        self.flushed = 0
        self.models = []  # (label, context_window)
        self.on_stop = self.on_steer = self.on_follow_up = None

    def handle(self, event):
        if isinstance(event, FeatureEvent):
            self.feature_events.append(event)
        else:
            self.events.append(event)

    def _shown(self, kind):
        return [event for event in self.feature_events if event.type == kind]

    @property
    def plans(self):
        """plan_markdown of every plan shown."""
        from jupyter_agent.features.plan.state import plan_markdown

        return [plan_markdown(event.plan) for event in self._shown("plan_changed")]

    @property
    def memory_changes(self):
        return [change for event in self._shown("memory_saved") for change in event.changes]

    @property
    def child_events(self):
        """(child_id, event type) of every sub-agent event."""
        return [(event.child_id, event.event.type) for event in self._shown("child_event")]

    @property
    def materialize_offers(self):
        """(cells, materialize) of every offer."""
        return [(event.cells, event.materialize) for event in self._shown("materialize_offered")]

    def set_state(self, state, detail=""):
        self.states.append(state)

    def note(self, text):
        self.notes.append(text)

    def show_error(self, error):
        self.errors.append(error)

    def flush(self):
        self.flushed += 1

    def finish(self):
        self.flush()

    def set_model(self, label, context_window):
        self.models.append((label, context_window))

    async def ask(self, request):
        self.asked.append(request)
        return self.decisions.pop(0) if self.decisions else "deny"

    @property
    def types(self):
        return [event.type for event in self.events]

    @property
    def text(self):
        return "".join(event.delta for event in self.events if event.type == "text_delta")


def make_turn(
    session,
    renderer,
    choice,
    prompt="hello",
    tools=(),
    permissions="ask",
    build_tools=None,
    cell_id=None,
    on_started=None,
    on_finished=None,
    tools_setting=(),
    **settings,
):
    return Turn(
        TurnRequest(
            prompt=prompt,
            session=session,
            renderer=renderer,
            choice=choice,
            settings=TurnSettings(permissions=permissions, tools=tools_setting, **settings),
            build_tools=build_tools or (lambda current_step: list(tools)),
            build_system=lambda resolved, tool_list: "system",
            cell_id=cell_id,
            on_started=on_started,
            on_finished=on_finished,
        )
    )


def gated_tool(name="look", result="seen"):
    """A read-only tool that runs until ``release`` is set; ``started`` tells when it runs."""
    import asyncio

    from pydantic import BaseModel

    from jupyter_agent.loop import AgentTool

    class NoArgs(BaseModel):
        pass

    started, release = asyncio.Event(), asyncio.Event()

    async def execute(args, signal):
        started.set()
        await release.wait()
        return result

    tool = AgentTool(name=name, description="", parameters=NoArgs, execute=execute, read_only=True)
    return tool, started, release
