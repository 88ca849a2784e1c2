"""Runs a notebook turn as a replay of its recording (see ``replay``): the runner's hook.

``replay_if_recorded(turn)`` is called before the turn resolves its model. It returns (False,
note) when the turn should run live (the note says why, when that is news; the runner shows it),
and (True, "") when it replayed the recording: the turn's run and result are set as for a live turn, the panel saw every event,
and the session file was not written (apart from undo entries of the steps' changes).
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.features.kernel_state.replay import (
    ReplayError,
    ReplayOutcome,
    find_recording,
    replay_model,
    replay_tools,
    scripted_stream,
)

REPLAYED = "Replayed the recorded turn {index}: {runs} python call(s) run again, no request sent to a model."


class _Steps:
    """Follows the run's step (undo entries are per step) and settles file snapshots at each step's end."""

    def __init__(self, snapshots: Any) -> None:
        self.snapshots = snapshots
        self.step = 0

    def __call__(self, event: Any) -> None:
        kind = getattr(event, "type", "")
        if kind == "step_start":
            self.step = event.step
        elif kind == "step_finish" and self.snapshots is not None:
            self.snapshots.settle()


async def replay_if_recorded(turn: Any) -> tuple[bool, str]:
    from jupyter_agent.runtime import run_agent

    session, renderer, settings = turn.session, turn.renderer, turn.settings
    recorded, note = find_recording(session, turn.request.prompt, settings.replay)
    if recorded is None:
        return False, note
    model = replay_model(recorded)
    renderer.set_model(model.id, None)
    steps = _Steps(session.snapshots)
    outcome = ReplayOutcome(recorded)
    tools = replay_tools(
        recorded, turn.request.build_tools(lambda: steps.step), yolo=settings.permissions == "yolo", outcome=outcome
    )
    session.current = turn
    run = run_agent(
        model=model,
        prompt=recorded.prompt,
        tools=tools,
        messages=[],
        stream_fn=scripted_stream(recorded),
        max_steps=len(recorded.answers) or 1,
        compaction="off",
    )
    turn.run = run
    run.add_listener(steps)
    run.add_listener(renderer.handle)
    run.add_listener(turn._follow_tools)
    if turn.stop_requested:
        run.interrupt()
    turn.result = await run.result()
    if outcome.divergences:
        text = "; ".join(outcome.divergences)
        if settings.replay == "strict":
            raise ReplayError(f"--replay=strict: the replay diverged from the recording: {text}")
        renderer.note(f"The replay diverged from the recording: {text}")
    else:
        renderer.note(REPLAYED.format(index=recorded.index + 1, runs=outcome.python_runs))
    return True, ""


__all__ = ["REPLAYED", "replay_if_recorded"]
