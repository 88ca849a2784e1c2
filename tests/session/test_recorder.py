import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.session import SessionRecorder, SessionStore, SessionUsage, SessionWarning


class FakeRun:
    """Emits run events the way the runtime does and keeps the model's view of the transcript."""

    def __init__(self, prior):
        self.transcript = list(prior)
        self.view = list(prior)
        self.events = []

    def say(self, message):
        self.transcript.append(message)
        self.view.append(message)
        self.events.append(SimpleNamespace(type="message", message=message.model_copy(deep=True)))

    def compact(self, summary, first_kept_index):
        first_kept = self.transcript[first_kept_index]
        start = next(i for i, message in enumerate(self.view) if message is first_kept)
        dropped = start - 1
        self.view = [self.view[0], UserMessage(content=summary)] + self.view[start:]
        self.events.append(
            SimpleNamespace(
                type="compacted",
                dropped_messages=dropped,
                kept_messages=len(self.view) - 2,
                summary_chars=len(summary),
                summary=summary,
                first_kept_index=first_kept_index,
            )
        )

    def step(self, number, **usage):
        self.events.append(
            SimpleNamespace(type="step_finish", step=number, usage=None, model="model-x", step_usage=SimpleNamespace(**usage))
        )


def tool_round(run, index):
    call = ToolCall(id=f"c{index}", name="python", arguments={"code": str(index)})
    run.say(AssistantMessage(content=[TextContent(text=f"a{index}"), call], model="model-x"))
    run.say(ToolResultMessage(tool_call_id=f"c{index}", tool_name="python", content=[TextContent(text=f"r{index}")]))


def usage_of(**fields):
    values = dict(input_tokens=0, output_tokens=0, cache_read_tokens=0, cache_write_tokens=0, spend_usd=0.0)
    values.update(fields)
    return values


def plain(messages):
    return [m.model_dump(exclude={"timestamp"}) for m in messages]


def test_a_run_is_recorded_and_resume_gives_the_model_the_same_view(store, session_file):
    recorder = store.recorder()
    run = FakeRun(store.messages())
    run.say(UserMessage(content="analyse df"))
    for index in range(4):
        tool_round(run, index)
        run.step(index + 1, **usage_of(input_tokens=100, output_tokens=10, spend_usd=0.01))
    run.compact("summary of rounds 0-1", first_kept_index=5)
    tool_round(run, 4)
    run.compact("summary of rounds 0-3", first_kept_index=9)
    run.say(AssistantMessage(content=[TextContent(text="done")]))
    run.events.append(SimpleNamespace(type="finish", reason="completed", text="done", usage=None))
    for event in run.events:
        recorder.record(event)

    assert plain(store.messages()) == plain(run.view)
    assert plain(store.history()) == plain(run.transcript)
    assert store.usage() == SessionUsage(400, 40, 0, 0, pytest.approx(0.04), 4)
    store.close()
    resumed = SessionStore(session_file)
    assert plain(resumed.messages()) == plain(run.view)
    assert len(resumed.history()) == len(run.transcript)
    resumed.close()


def test_a_resumed_run_can_compact_away_the_earlier_summary(store, texts):
    first = FakeRun(store.messages())
    recorder = store.recorder()
    first.say(UserMessage(content="start"))
    for index in range(3):
        tool_round(first, index)
    first.compact("S1", first_kept_index=3)
    for event in first.events:
        recorder(event)
    assert [m.content for m in store.messages()[:2]] == ["start", "S1"]

    second = FakeRun(store.messages())  # the prior transcript includes the S1 summary message
    recorder = store.recorder()
    second.say(UserMessage(content="continue"))
    second.compact("S2", first_kept_index=1)  # keeps the S1 message itself
    for event in second.events:
        recorder(event)
    assert plain(store.messages()) == plain(second.view)
    second_again = FakeRun(store.messages())
    second_again.compact("S3", first_kept_index=len(second_again.transcript) - 1)
    for event in second_again.events:
        store.recorder()(event)
    assert texts(store.messages()) == ["start", "S3", "continue"]


def test_a_tail_starting_at_this_runs_summary_keeps_that_summary(store, texts):
    recorder = store.recorder(summary_message=lambda text: UserMessage(content=f"<s>{text}</s>"))
    run = FakeRun([])
    run.say(UserMessage(content="start"))
    for index in range(3):
        tool_round(run, index)
    run.compact("S1", first_kept_index=5)
    for event in run.events:
        recorder(event)
    # The runtime's index for a tail that starts at its own summary: one past the transcript.
    recorder(SimpleNamespace(type="compacted", summary="S2", first_kept_index=len(run.transcript)))
    assert texts(store.messages()) == ["start", "<s>S2</s>", "<s>S1</s>", "a2", "r2"]
    assert [r.summary for r in store.records() if r.kind == "compaction"] == ["S1", "S2"]


def test_a_compaction_outside_the_transcript_is_not_recorded(store):
    recorder = store.recorder()
    recorder.record(SimpleNamespace(type="message", message=UserMessage(content="hi")))
    event = SimpleNamespace(type="compacted", summary="S", first_kept_index=5)
    with pytest.warns(SessionWarning, match="compaction keeps message 5 of a transcript of 1 recorded messages"):
        recorder.record(event)
    assert [r.kind for r in store.records()] == ["message"]


def test_step_finish_and_finish_are_turn_boundaries(store, monkeypatch):
    synced = []
    monkeypatch.setattr(store, "sync", lambda: synced.append(True))
    settled = []
    recorder = SessionRecorder(store, snapshots=SimpleNamespace(settle=lambda: settled.append(True)))
    recorder.record(SimpleNamespace(type="message", message=UserMessage(content="hi")))
    assert synced == []
    recorder.record(SimpleNamespace(type="step_finish", step=1, usage=None, model=None, step_usage=usage_of(output_tokens=3)))
    recorder.record(SimpleNamespace(type="finish", reason="completed", text="", usage=None))
    assert synced == [True, True] and settled == [True]
    assert store.usage().output_tokens == 3


def test_other_events_are_ignored(store):
    recorder = store.recorder()
    for kind in ("run_start", "text_delta", "tool_call", "tool_result", "approval_request", "error"):
        recorder.record(SimpleNamespace(type=kind))
    recorder.record(SimpleNamespace(type="step_start", step=4))
    assert store.records() == [] and recorder.current_step == 4


@pytest.mark.anyio
async def test_consume_records_an_event_stream(store):
    async def events():
        yield SimpleNamespace(type="message", message=UserMessage(content="one"))
        yield SimpleNamespace(type="message", message=AssistantMessage(content=[TextContent(text="two")]))

    await store.recorder().consume(events())
    assert [m.role for m in store.messages()] == ["user", "assistant"]


class TestWithTheRuntime:
    """Runs of the real runtime, recorded: each resumed run must start from the view the last one ended with."""

    @staticmethod
    def echo_tool():
        from pydantic import BaseModel

        from jupyter_agent.loop import AgentTool

        class Args(BaseModel):
            value: int = 0

        async def execute(args, signal):
            return [TextContent(text=f"echo:{args.value} " + "x" * 200)]

        return AgentTool(name="echo", description="Echoes", parameters=Args, execute=execute, read_only=True)

    @staticmethod
    def shown(messages):
        return [(m.role, m.model_dump(include={"content"}, exclude_none=True)) for m in messages]

    async def turn(self, store, prompt, steps):
        from jupyter_agent.messages import Usage
        from jupyter_agent.runtime import run_agent
        from jupyter_agent.runtime.compaction import summary_message
        from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, reply

        big = Usage(input=2000, output=10, total_tokens=2010)
        responses = [ScriptedResponse(content=[call("echo", {"value": i})], usage=big) for i in range(steps)]
        scripted = ScriptedModel([*responses, reply(f"done: {prompt}", usage=Usage(input=50, output=5))])
        recorder = store.recorder(summary_message=summary_message)
        run = run_agent(
            scripted.model(),
            prompt,
            tools=[self.echo_tool()],
            messages=store.messages(),
            stream_fn=scripted,
            compact_at_tokens=1000,
            compact_keep_recent=2,
            compaction="truncate",
        )
        run.add_listener(recorder.record)
        result = await run.result()
        first_view = scripted.requests[0].context.messages
        last_view = scripted.requests[-1].context.messages + [result.messages[-1]]
        return result, first_view, last_view

    @pytest.mark.anyio
    async def test_resumed_runs_see_what_the_model_saw(self, store, session_file):
        result, first_view, ended = await self.turn(store, "first task", steps=3)
        assert result.compactions == 2  # the second folds the first summary away
        assert self.shown(first_view) == self.shown([UserMessage(content="first task")])
        assert self.shown(store.messages()) == self.shown(ended)
        assert len(store.history()) == len(result.messages)

        for prompt in ("second task", "third task"):
            result, first_view, next_ended = await self.turn(store, prompt, steps=3)
            assert result.compactions == 3
            assert self.shown(first_view) == self.shown(ended + [UserMessage(content=prompt)])
            assert self.shown(store.messages()) == self.shown(next_ended)
            ended = next_ended
        assert store.usage().steps == 12
        store.close()
        assert self.shown(SessionStore(session_file, read_only=True).messages()) == self.shown(ended)


def test_a_failed_write_is_reported_once_and_nothing_after_it_is_recorded(store):
    failures = []
    recorder = store.recorder(on_failure=failures.append)
    recorder.record(SimpleNamespace(type="message", message=UserMessage(content="kept")))
    broken = OSError(28, "No space left on device")

    def full_disk(message):
        raise broken

    store.append = full_disk
    recorder.record(SimpleNamespace(type="message", message=UserMessage(content="lost")))
    del store.append
    recorder.record(SimpleNamespace(type="message", message=UserMessage(content="after the failure")))
    recorder.record(SimpleNamespace(type="finish"))
    assert failures == [broken] and recorder.failure is broken
    assert [m.content for m in store.history()] == ["kept"]  # a valid prefix, no hole


def test_without_a_failure_handler_a_failed_write_raises_to_the_run(store):
    recorder = store.recorder()
    store.append = lambda message: (_ for _ in ()).throw(OSError(28, "No space left on device"))
    with pytest.raises(OSError, match="No space left"):
        recorder.record(SimpleNamespace(type="message", message=UserMessage(content="lost")))


def test_in_library_use_a_full_disk_ends_the_run_in_an_error(session_file):
    session_file.parent.mkdir(parents=True)
    finished = subprocess.run(
        [sys.executable, "-m", "jupyter_agent.testing.full_disk", str(session_file)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=session_file.parent,
    )
    assert finished.returncode == 0, finished.stderr
    outcome = json.loads(finished.stdout)
    assert outcome["reason"] == "error"
    assert outcome["error"] == f"could not write the session file {session_file}: File too large"
    kept = SessionStore(session_file, read_only=True).messages()
    assert [m.role for m in kept][:3] == ["user", "user", "assistant"]  # a valid prefix of the run


def test_calls_that_ran_are_signed_and_denied_ones_are_not(tmp_path):
    from jupyter_agent.session.trust import TrustKey

    key = TrustKey(tmp_path / "replay.key")
    store = SessionStore(tmp_path / "s.jsonl")
    recorder = store.recorder(trust=key)
    run = FakeRun([])
    run.say(UserMessage(content="go"))
    ran = ToolCall(id="c1", name="python", arguments={"code": "x = 1"})
    refused = ToolCall(id="c2", name="python", arguments={"code": "rm()"})
    run.say(AssistantMessage(content=[ran, refused]))
    run.say(ToolResultMessage(tool_call_id="c1", tool_name="python", content=[TextContent(text="ok")]))
    denied = 'Tool call "python" was denied by the user. It did not run.'
    run.say(
        ToolResultMessage(
            tool_call_id="c2", tool_name="python", content=[TextContent(text=denied)], is_error=True, details={"denied": True}
        )
    )
    for event in run.events:
        recorder.record(event)
    store.close()
    results = [
        r
        for r in SessionStore(tmp_path / "s.jsonl", read_only=True).records()
        if r.kind == "message" and r.message.role == "tool_result"
    ]
    signed, unsigned = results
    session_id = SessionStore(tmp_path / "s.jsonl", read_only=True).header.session_id
    assert key.verify(signed.signature, {session_id}, "c1", "python", {"code": "x = 1"})
    assert unsigned.signature is None
