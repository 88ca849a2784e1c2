"""Test doubles for turns: a renderer that records what it is told, and a Turn builder."""

from __future__ import annotations

from jupyter_agent.notebook.runner import Turn, TurnRequest, TurnSettings
from jupyter_agent.testing.waiting import wait_until  # noqa: F401 - the tests import it from here


class RecordingRenderer:
    """Stands in for the panel: records what it is told and answers approvals from a script."""

    def __init__(self, decisions=()):
        self.events = []
        self.states = []
        self.notes = []
        self.errors = []
        self.decisions = list(decisions)
        self.asked = []
        self.flushed = 0
        self.models = []  # (label, context_window)
        self.plans = []  # plan_markdown of every plan shown
        self.memory_changes = []
        self.child_events = []  # (child_id, event type)
        self.on_stop = self.on_steer = self.on_follow_up = None
        self.materialize_offers = []  # (cells, materialize)

    def handle(self, event):
        self.events.append(event)

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

    def show_plan(self, plan):
        from jupyter_agent.features.plan.state import plan_markdown

        self.plans.append(plan_markdown(plan))

    def memory_saved(self, *changes):
        self.memory_changes.extend(changes)

    def child_event(self, child_id, event):
        self.child_events.append((child_id, event.type))

    def offer_materialize(self, cells, materialize):
        self.materialize_offers.append((cells, materialize))

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
