"""run_agent and AgentRun: the handle, the event stream, results, interrupts and failures."""

import asyncio
import sys
import types

import pytest

from jupyter_agent import AbortController, ImageContent, Model, TextContent, ToolOutput
from jupyter_agent.runtime import AgentRun, FatalToRun, FinishEvent, PermissionPolicy, RunResult, RunUsage, run_agent
from jupyter_agent.runtime.run import NO_RUNNING_LOOP
from jupyter_agent.testing.scripted import ScriptedResponse, call, failure, reply, think, tool_calls, truncated

pytestmark = pytest.mark.anyio


async def test_a_plain_answer_completes_in_one_step(scripted):
    scripted.queue(reply("hello there"))
    run = run_agent(scripted.model(), "hi", stream_fn=scripted, system="be brief")
    assert isinstance(run, AgentRun) and not run.done
    result = await run.result()
    assert isinstance(result, RunResult) and run.done
    assert (result.text, result.reason, result.steps, result.compactions) == ("hello there", "completed", 1, 0)
    assert [m.role for m in result.messages] == ["user", "assistant"]
    assert scripted.requests[0].context.system_prompt == "be brief"


async def test_events_of_a_tool_step_come_in_order(scripted, kit):
    scripted.queue(tool_calls(call("echo", {"value": 3}, id="c1"), text="let me check"), reply("done"))
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted)
    await run.result()
    types_ = [event.type async for event in run.events if event.type not in ("text_delta",)]
    assert types_ == [
        "run_start",
        "message",
        "step_start",
        "tool_call",
        "message",
        "message",
        "tool_result",
        "step_finish",
        "step_start",
        "message",
        "step_finish",
        "finish",
    ]


async def test_event_payloads(scripted, kit, events):
    scripted.queue(
        ScriptedResponse(content=tool_calls(call("echo", {"value": 3}, id="c1")).content, usage=kit.usage(100, 10, cost=0.5)),
        think("pondering", "all done", usage=kit.usage(150, 5, cost=0.25)),
    )
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted, max_steps=5)
    run.add_listener(events)
    result = await run.result()
    assert events.of("run_start")[0].step_budget == 5
    tool_call = events.of("tool_call")[0]
    assert (tool_call.tool_call_id, tool_call.name, tool_call.args) == ("c1", "echo", {"value": 3})
    tool_result = events.of("tool_result")[0]
    assert (tool_result.tool_call_id, tool_result.name, tool_result.is_error) == ("c1", "echo", False)
    assert tool_result.content == [TextContent(text="echo:3")]
    assert "".join(e.delta for e in events.of("thinking_delta")) == "pondering"
    assert "".join(e.delta for e in events.of("text_delta")) == "all done"
    first, second = events.of("step_finish")
    assert (first.step, first.model, first.step_usage.input_tokens, first.usage.spend_usd) == (1, "scripted-model", 100, 0.5)
    assert (second.step_usage.input_tokens, second.step_usage.spend_usd) == (150, 0.25)
    assert second.usage == RunUsage(250, 15, 0, 0, 0.75, 150)
    finish = events.of("finish")[0]
    assert (finish.reason, finish.text, finish.usage) == ("completed", "all done", result.usage)


async def test_message_events_carry_copies_of_each_transcript_message(scripted, kit, events):
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("ok"))
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(events)
    result = await run.result()
    recorded = [event.message for event in events.of("message")]
    assert recorded == result.messages
    assert all(a is not b for a, b in zip(recorded, result.messages))
    recorded[0].content = "mutated"
    assert result.messages[0].content == "go"


async def test_prior_messages_continue_the_transcript(scripted):
    scripted.queue(reply("first answer"), reply("second answer"))
    first = await run_agent(scripted.model(), "one", stream_fn=scripted).result()
    second = await run_agent(scripted.model(), "two", stream_fn=scripted, messages=first.messages).result()
    assert [m.role for m in second.messages] == ["user", "assistant", "user", "assistant"]
    assert len(scripted.requests[1].context.messages) == 3
    assert second.text == "second answer"


async def test_tool_results_carry_images_and_details(scripted, kit, events):
    image = ImageContent(data="aGVsbG8=", mime_type="image/png")
    tool = kit.make_tool("plot", body=lambda args: ToolOutput(content=[TextContent(text="a plot"), image], details={"fig": 1}))
    scripted.queue(tool_calls(call("plot")), reply("see the plot"))
    run = run_agent(scripted.model(input=["text", "image"]), "plot", tools=[tool], stream_fn=scripted)
    run.add_listener(events)
    await run.result()
    result_event = events.of("tool_result")[0]
    assert result_event.content == [TextContent(text="a plot"), image]
    assert result_event.details == {"fig": 1}


async def test_an_unconsumed_event_stream_never_blocks_and_a_late_reader_sees_everything(scripted, kit):
    scripted.queue(*[tool_calls(call("echo", {"value": i})) for i in range(20)], reply("done"))
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted)
    result = await run.result()
    first = [event async for event in run.events]
    second = [event async for event in run.events]
    assert result.steps == 21
    assert first == second and first[0].type == "run_start" and first[-1].type == "finish"


async def test_a_reader_started_before_the_run_ends_follows_it_live(scripted):
    scripted.queue(reply("streamed answer"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    seen = [event.type async for event in run.events]
    assert seen[0] == "run_start" and seen[-1] == "finish" and run.done


async def test_a_raising_listener_is_reported_as_an_error_event_and_the_run_goes_on(scripted, events):
    scripted.queue(reply("fine"))

    def broken(event):
        if event.type == "step_start":
            raise RuntimeError("listener bug")

    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    run.add_listener(broken)
    run.add_listener(events)
    result = await run.result()
    assert result.reason == "completed"
    errors = events.of("error")
    assert len(errors) == 1 and str(errors[0].error) == "listener bug"


async def test_a_listener_raising_a_fatal_error_ends_the_run_with_it(scripted, events, kit):
    scripted.queue(tool_calls(call("echo", {"value": 1})), tool_calls(call("echo", {"value": 2})), reply("never"))

    class TranscriptLost(FatalToRun):
        pass

    def recorder(event):
        if event.type == "tool_result":
            raise TranscriptLost("the transcript cannot be saved")

    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(recorder)
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.error) == ("error", "the transcript cannot be saved")
    assert len(events.of("tool_result")) == 1  # the second step's call never ran


async def test_model_error_resolves_with_reason_error(scripted, events):
    scripted.queue(failure("provider exploded"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.error) == ("error", "provider exploded")
    assert str(events.of("error")[0].error) == "provider exploded"
    assert events.types[-1] == "finish" and events.of("finish")[0].reason == "error"


async def test_a_raising_stream_fn_resolves_with_reason_error():
    def broken(model, context, options=None, metadata=None):
        raise ConnectionError("no network")

    result = await run_agent(Model(id="m"), "go", stream_fn=broken).result()
    assert (result.reason, result.error, result.steps) == ("error", "no network", 1)


async def test_a_response_cut_by_the_output_limit_ends_with_max_output(scripted, kit, events):
    scripted.queue(truncated("partial answer", call("echo", {"value": 1}, id="cut")))
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.text) == ("max_output", "partial answer")
    assert events.of("tool_result")[0].is_error
    kit.assert_paired(events.events)


async def test_a_failure_worded_like_a_truncation_is_an_error_not_max_output():
    from jupyter_agent.loop import AgentLoopError
    from jupyter_agent.loop.agent_loop import TRUNCATED

    def failing(model, context, options=None, metadata=None):
        raise AgentLoopError(TRUNCATED)  # the words of a truncation, without the kind

    result = await run_agent(Model(id="m"), "go", stream_fn=failing).result()
    assert (result.reason, result.error) == ("error", TRUNCATED)


async def test_a_normal_answer_is_not_max_output(scripted):
    scripted.queue(reply("complete"))
    assert (await run_agent(scripted.model(), "go", stream_fn=scripted).result()).reason == "completed"


async def test_interrupt_while_streaming_pairs_announced_calls_and_keeps_the_partial(scripted, kit, events):
    scripted.queue(ScriptedResponse(content=[TextContent(text="working on it"), call("echo", {"value": 1}, id="s1")], hang=True))
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(events)
    run.add_listener(lambda event: run.interrupt() if event.type == "tool_call" else None)
    result = await run.result()
    assert (result.reason, result.text) == ("aborted", "working on it")
    kit.assert_paired(events.events)
    assert events.of("tool_result")[0].is_error
    assert events.of("tool_result")[0].details == {"cancelled": True}  # stopped, not failed: views say so
    partial = result.messages[-1]
    assert (partial.role, partial.stop_reason) == ("assistant", "aborted")
    assert events.of("message")[-1].message == partial
    assert events.of("finish")[0].reason == "aborted"


async def test_interrupt_while_a_tool_runs_pairs_the_call(scripted, kit, events):
    started, release = asyncio.Event(), asyncio.Event()
    tool = kit.make_tool("slow", started=started, release=release)
    scripted.queue(tool_calls(call("slow", id="t1"), call("slow", id="t2")), reply("never"))
    run = run_agent(scripted.model(), "go", tools=[tool], stream_fn=scripted)
    run.add_listener(events)
    await asyncio.wait_for(started.wait(), 5)
    run.interrupt()
    result = await run.result()
    assert result.reason == "aborted"
    kit.assert_paired(events.events)
    assert [m.role for m in result.messages] == ["user", "assistant", "tool_result", "tool_result"]
    assert all(m.is_error for m in result.messages[2:])
    assert all(m.details == {"cancelled": True} for m in result.messages[2:])
    assert [event.details for event in events.of("tool_result")] == [{"cancelled": True}] * 2
    assert len(scripted.requests) == 1


async def test_interrupt_before_the_run_starts(scripted):
    scripted.queue(reply("never"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    run.interrupt()
    result = await run.result()
    assert (result.reason, result.steps, scripted.requests) == ("aborted", 0, [])


async def test_external_signal_aborts_the_run(scripted):
    scripted.queue(ScriptedResponse(content=[TextContent(text="long")], hang=True))
    controller = AbortController()
    run = run_agent(scripted.model(), "go", stream_fn=scripted, signal=controller.signal)
    run.add_listener(lambda event: controller.abort() if event.type == "text_delta" else None)
    result = await run.result()
    assert result.reason == "aborted"


async def test_fail_ends_the_run_with_that_error_and_stops_its_work(scripted, kit, events):
    started, release = asyncio.Event(), asyncio.Event()
    scripted.queue(tool_calls(call("slow", id="t1")), reply("never"))
    run = run_agent(scripted.model(), "go", tools=[kit.make_tool("slow", started=started, release=release)], stream_fn=scripted)
    run.add_listener(events)
    await asyncio.wait_for(started.wait(), 5)
    lost = OSError(28, "could not write the session file s.jsonl: No space left on device")
    run.fail(lost)
    run.fail(OSError("a second failure does not replace the first"))
    result = await run.result()
    assert (result.reason, result.error) == ("error", str(lost))
    assert events.of("error")[-1].error is lost and events.of("finish")[0].reason == "error"
    kit.assert_paired(events.events)
    assert len(scripted.requests) == 1


async def test_fail_during_the_last_message_still_ends_with_the_error(scripted):
    scripted.queue(reply("done"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    lost = OSError("disk full")
    run.add_listener(lambda event: run.fail(lost) if event.type == "message" and event.message.role == "assistant" else None)
    result = await run.result()
    assert (result.reason, result.error, result.text) == ("error", "disk full", "done")


async def test_interrupt_after_settling_changes_nothing(scripted):
    scripted.queue(reply("ok"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    result = await run.result()
    run.interrupt()
    assert (await run.result()) is result and result.reason == "completed"


async def test_a_failing_hook_makes_result_raise_that_exception(scripted, events):
    scripted.queue(tool_calls(call("missing")), reply("never"))
    problem = KeyError("hook bug")

    def should_stop(ctx):
        raise problem

    run = run_agent(scripted.model(), "go", stream_fn=scripted, should_stop=should_stop)
    run.add_listener(events)
    with pytest.raises(KeyError) as caught:
        await run.result()
    assert caught.value is problem
    assert run.done and events.types[-1] == "finish" and events.of("finish")[0].reason == "error"


async def test_a_model_name_resolves_through_the_catalog_lazily(scripted, monkeypatch):
    import jupyter_agent.model.catalog as catalog

    seen = []
    monkeypatch.setattr(catalog, "get_model", lambda name: seen.append(name) or Model(id=name, provider="scripted"))
    scripted.queue(reply("ok"))
    run = run_agent("scripted/some-model", "go", stream_fn=scripted)
    await run.result()
    assert seen == ["scripted/some-model"] and run.model.id == "scripted/some-model"


async def test_without_stream_fn_the_litellm_stream_is_used(scripted, monkeypatch):
    fake = types.ModuleType("jupyter_agent.model.litellm_stream")
    fake.litellm_stream = scripted
    monkeypatch.setitem(sys.modules, "jupyter_agent.model.litellm_stream", fake)
    scripted.queue(reply("via default"))
    assert (await run_agent(scripted.model(), "go").result()).text == "via default"


async def test_run_model_exposes_the_resolved_model(scripted):
    model = scripted.model(context_window=50_000)
    scripted.queue(reply("ok"))
    run = run_agent(model, "go", stream_fn=scripted)
    await run.result()
    assert run.model is model


def test_run_agent_needs_a_running_loop(scripted):
    with pytest.raises(RuntimeError, match=NO_RUNNING_LOOP):
        run_agent(scripted.model(), "go", stream_fn=scripted)


async def test_finish_is_the_last_event_and_done_is_set_when_it_arrives(scripted):
    scripted.queue(reply("ok"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    at_finish = []
    run.add_listener(lambda event: at_finish.append(run.done) if isinstance(event, FinishEvent) else None)
    await run.result()
    assert at_finish == [True]


async def test_a_policy_gates_mutating_tools_of_the_run(scripted, kit, events):
    scripted.queue(tool_calls(call("write", {"value": 1}), call("read", {"value": 2})), reply("ok"))
    tools = [kit.make_tool("write", read_only=False), kit.make_tool("read")]
    run = run_agent(scripted.model(), "go", tools=tools, stream_fn=scripted, permissions=PermissionPolicy("readonly"))
    run.add_listener(events)
    result = await run.result()
    write, read = result.messages[2], result.messages[3]
    assert write.is_error and "denied (read-only mode)" in write.text
    assert not read.is_error and read.text == "read:2"


async def test_tools_receive_the_run_abort_signal(scripted, kit):
    seen = []
    started, release = asyncio.Event(), asyncio.Event()

    async def body(args, signal):
        seen.append(signal)
        started.set()
        await release.wait()

    from pydantic import BaseModel

    from jupyter_agent import AgentTool

    class NoArgs(BaseModel):
        pass

    tool = AgentTool(name="watch", description="waits", parameters=NoArgs, execute=body)
    scripted.queue(tool_calls(call("watch")), reply("never"))
    run = run_agent(scripted.model(), "go", tools=[tool], stream_fn=scripted)
    await asyncio.wait_for(started.wait(), 5)
    assert not seen[0].aborted
    run.interrupt()
    assert seen[0].aborted
    assert (await run.result()).reason == "aborted"


async def test_a_run_task_cancelled_before_it_starts_still_settles(scripted):
    scripted.queue(reply("never"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    [task] = [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == "AgentRun._drive"]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run.result()
    assert run.done and [e async for e in run.events] == []


async def test_cancelling_the_run_task_mid_run_settles_as_aborted(scripted, kit, events):
    started = asyncio.Event()
    scripted.queue(tool_calls(call("slow", id="x")), reply("never"))
    run = run_agent(
        scripted.model(), "go", tools=[kit.make_tool("slow", started=started, release=asyncio.Event())], stream_fn=scripted
    )
    run.add_listener(events)
    await asyncio.wait_for(started.wait(), 5)
    [task] = [t for t in asyncio.all_tasks() if t.get_coro().__qualname__ == "AgentRun._drive"]
    task.cancel()
    assert (await run.result()).reason == "aborted"
    assert events.of("finish")[0].reason == "aborted" and task.cancelled()
    kit.assert_paired(events.events)


# -- budget introspection and external usage (what a sub-agent tool needs) -----------------------


def _probe(kit, seen, run_ref, charge=None):
    """A tool recording the run's remaining budgets while it runs, optionally charging usage."""

    def body(args):
        run = run_ref[0]
        seen.append((run.remaining_spend(), run.remaining_steps(), run.usage.spend_usd))
        if charge is not None:
            seen.append(run.add_external_usage(charge))
        return [TextContent(text="probed")]

    return kit.make_tool("probe", body=body)


async def test_remaining_budgets_count_the_step_in_progress(scripted, kit):
    seen, run_ref = [], []
    scripted.queue(
        ScriptedResponse(content=tool_calls(call("probe")).content, usage=kit.usage(cost=0.25)),
        ScriptedResponse(content=tool_calls(call("probe")).content, usage=kit.usage(cost=0.25)),
        reply("done", usage=kit.usage(cost=0.25)),
    )
    run = run_agent(
        scripted.model(), "go", tools=[_probe(kit, seen, run_ref)], stream_fn=scripted, max_steps=5, max_spend_usd=2.0
    )
    run_ref.append(run)
    assert (run.remaining_spend(), run.remaining_steps()) == (2.0, 5)
    await run.result()
    assert seen == [(1.75, 4, 0.25), (1.5, 3, 0.5)]


async def test_without_limits_the_remaining_budgets_are_none(scripted, kit):
    seen, run_ref = [], []
    scripted.queue(tool_calls(call("probe")), reply("done"))
    run = run_agent(scripted.model(), "go", tools=[_probe(kit, seen, run_ref)], stream_fn=scripted)
    run_ref.append(run)
    await run.result()
    assert seen[0][:2] == (None, None)


async def test_external_usage_is_charged_to_the_step_the_result_and_the_spend_rail(scripted, kit, events):
    seen, run_ref = [], []
    external = RunUsage(input_tokens=40, output_tokens=4, spend_usd=0.6)
    scripted.queue(
        ScriptedResponse(content=tool_calls(call("probe")).content, usage=kit.usage(100, 10, cost=0.25)),
        reply("never reached", usage=kit.usage(cost=0.25)),
    )
    tools = [_probe(kit, seen, run_ref, charge=external)]
    run = run_agent(scripted.model(), "go", tools=tools, stream_fn=scripted, max_spend_usd=1.0)
    run_ref.append(run)
    run.add_listener(events)
    result = await run.result()
    assert seen[1] is True
    # 0.25 + 0.6 spent; the next step is projected at 0.25 (the step's own request): over 1.0.
    assert result.reason == "max_spend" and result.steps == 1
    step = events.of("step_finish")[0]
    assert (step.step_usage.input_tokens, step.step_usage.spend_usd) == (140, 0.85)
    assert result.usage == RunUsage(140, 14, 0, 0, 0.85, 100)
    assert events.of("finish")[0].usage == result.usage


async def test_external_usage_after_the_run_settled_is_refused(scripted):
    scripted.queue(reply("done"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted)
    result = await run.result()
    assert run.add_external_usage(RunUsage(spend_usd=1.0)) is False
    assert run.usage == result.usage and result.usage.spend_usd < 1.0
    with pytest.raises(TypeError, match="^add_external_usage takes a RunUsage, not dict$"):
        run.add_external_usage({"spend_usd": 1.0})
