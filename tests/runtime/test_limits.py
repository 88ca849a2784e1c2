"""max_steps, should_stop and should_continue; the step window and the hook runner."""

import asyncio

import anyio.lowlevel
import pytest

from jupyter_agent import AbortController
from jupyter_agent.runtime import StepContext, StepInfo, run_agent
from jupyter_agent.runtime.limits import HookRunner, Limits, StepWindow
from jupyter_agent.testing.scripted import call, reply, tool_calls
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


def tool_steps(n, name="echo"):
    return [tool_calls(call(name, {"value": i})) for i in range(n)]


async def test_there_is_no_default_step_ceiling(scripted, kit, events):
    scripted.queue(*tool_steps(40), reply("finally"))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted)
    run.add_listener(events)
    result = await run.result()
    assert (result.reason, result.steps) == ("completed", 41)
    assert events.of("run_start")[0].step_budget is None


async def test_an_explicit_ceiling_is_honoured(scripted, kit):
    scripted.queue(*tool_steps(10), reply("never"))
    result = await run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, max_steps=4).result()
    assert (result.reason, result.steps, len(scripted.requests)) == ("max_steps", 4, 4)
    assert result.messages[-1].role == "tool_result"  # the last step's tools still ran


async def test_a_final_answer_on_the_last_allowed_step_is_completed(scripted, kit):
    scripted.queue(*tool_steps(2), reply("just in time"))
    result = await run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, max_steps=3).result()
    assert (result.reason, result.steps, result.text) == ("completed", 3, "just in time")


async def test_queued_input_at_the_last_allowed_step_stays_pending(scripted, kit):
    scripted.queue(tool_calls(call("echo")), reply("answer"), reply("never"))
    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, max_steps=2)
    run.add_listener(lambda e: run.follow_up("one more") if e.type == "step_start" and e.step == 2 else None)
    result = await run.result()
    assert (result.reason, result.steps) == ("max_steps", 2)
    assert run.pending().follow_up == ["one more"]


async def test_should_stop_is_never_asked_before_a_step_completed_nor_on_a_one_step_run(scripted):
    asked = []
    scripted.queue(reply("done"))
    result = await run_agent(
        scripted.model(), "task", stream_fn=scripted, should_stop=lambda ctx: asked.append(ctx) or True
    ).result()
    assert (result.reason, asked) == ("completed", [])


async def test_should_stop_ends_the_run_with_its_own_reason(scripted, kit):
    scripted.queue(*tool_steps(10), reply("never"))
    run = run_agent(
        scripted.model(),
        "task",
        tools=[kit.make_tool()],
        stream_fn=scripted,
        max_steps=10,
        should_stop=lambda ctx: ctx.step_number >= 2,
    )
    result = await run.result()
    assert (result.reason, result.steps) == ("stopped_by_caller", 2)


async def test_should_stop_beats_max_steps(scripted, kit):
    scripted.queue(*tool_steps(5))
    result = await run_agent(
        scripted.model(),
        "task",
        tools=[kit.make_tool()],
        stream_fn=scripted,
        max_steps=2,
        should_stop=lambda ctx: ctx.step_number == 2,
    ).result()
    assert result.reason == "stopped_by_caller"


async def test_should_stop_sees_per_step_tool_names_and_a_growing_copy_of_the_transcript(scripted, kit):
    seen = []

    def should_stop(ctx):
        seen.append((ctx.step_number, [(s.step, s.tool_names) for s in ctx.steps], len(ctx.messages)))
        ctx.messages.clear()  # a copy: the run must not notice
        ctx.steps.clear()
        return None

    scripted.queue(tool_calls(call("read"), call("read")), tool_calls(call("write")), reply("done"))
    tools = [kit.make_tool("read"), kit.make_tool("write")]
    result = await run_agent(scripted.model(), "task", tools=tools, stream_fn=scripted, should_stop=should_stop).result()
    assert result.reason == "completed" and len(result.messages) == 7
    assert seen == [
        (1, [(1, ["read", "read"])], 4),
        (2, [(1, ["read", "read"]), (2, ["write"])], 6),
    ]


async def test_an_async_should_stop_is_awaited(scripted, kit):
    async def should_stop(ctx):
        await anyio.lowlevel.checkpoint()  # it really suspends
        return ctx.step_number >= 1

    scripted.queue(*tool_steps(3))
    result = await run_agent(
        scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, should_stop=should_stop
    ).result()
    assert (result.reason, result.steps) == ("stopped_by_caller", 1)


async def test_should_stop_returning_true_leaves_queued_input_pending(scripted):
    scripted.queue(reply("first"), reply("never"))
    run = run_agent(scripted.model(), "task", stream_fn=scripted, should_stop=lambda ctx: True)
    run.follow_up("queued")
    result = await run.result()
    assert result.reason == "stopped_by_caller" and run.pending().follow_up == ["queued"]


async def test_a_throwing_should_stop_rejects_the_result(scripted, kit):
    scripted.queue(*tool_steps(2))

    def should_stop(ctx):
        raise RuntimeError("rule broke")

    run = run_agent(scripted.model(), "task", tools=[kit.make_tool()], stream_fn=scripted, should_stop=should_stop)
    with pytest.raises(RuntimeError, match="rule broke"):
        await run.result()


async def test_should_continue_true_takes_one_more_step_on_the_same_transcript(scripted):
    answers = iter([True, False])
    scripted.queue(reply("premature"), reply("complete"))
    run = run_agent(scripted.model(), "task", stream_fn=scripted, should_continue=lambda ctx: next(answers))
    result = await run.result()
    assert (result.reason, result.steps, result.text) == ("completed", 2, "complete")
    assert [m.role for m in scripted.requests[1].context.messages] == ["user", "assistant"]


async def test_should_continue_text_is_appended_as_a_user_message(scripted):
    answers = iter(["Check the edge cases too.", None])
    scripted.queue(reply("premature"), reply("checked"))
    result = await run_agent(scripted.model(), "task", stream_fn=scripted, should_continue=lambda ctx: next(answers)).result()
    assert [m.role for m in result.messages] == ["user", "assistant", "user", "assistant"]
    assert result.messages[2].content == "Check the edge cases too."


async def test_limits_and_should_stop_win_over_should_continue(scripted):
    scripted.queue(reply("a"), reply("b"), reply("c"))
    capped = await run_agent(scripted.model(), "task", stream_fn=scripted, max_steps=2, should_continue=lambda ctx: True).result()
    assert (capped.reason, capped.steps) == ("max_steps", 2)
    scripted.queue(reply("a"), reply("b"))
    stopped = await run_agent(
        scripted.model(), "task", stream_fn=scripted, should_continue=lambda ctx: True, should_stop=lambda ctx: True
    ).result()
    assert (stopped.reason, stopped.steps) == ("stopped_by_caller", 1)


async def test_queued_input_is_delivered_before_should_continue_is_asked(scripted):
    asked = []
    scripted.queue(reply("a"), reply("b"))
    run = run_agent(scripted.model(), "task", stream_fn=scripted, should_continue=lambda ctx: asked.append(ctx.step_number))
    run.follow_up("more")
    result = await run.result()
    assert (result.steps, asked) == (2, [2])


def test_step_window_moves_with_deliveries():
    window = StepWindow(3)
    assert not window.reached(2) and window.reached(3)
    window.refresh(3)
    assert window.limit == 6 and not window.reached(5)
    unbounded = StepWindow(None)
    unbounded.refresh(10)
    assert unbounded.limit is None and not unbounded.reached(10_000)


async def test_limits_check_order_and_spend_projection():
    hooks = HookRunner(AbortController().signal)
    context = lambda: StepContext(step_number=1, messages=[], steps=[StepInfo(1, [])])  # noqa: E731
    limits = Limits(hooks, max_steps=1, max_spend_usd=10.0, should_stop=lambda ctx: False, should_continue=None)
    assert await limits.stop_reason(context, 1, 0.0, 0.0) == "max_steps"
    limits = Limits(hooks, max_steps=None, max_spend_usd=10.0, should_stop=None, should_continue=None)
    assert await limits.stop_reason(context, 1, 6.0, 4.0) is None
    assert await limits.stop_reason(context, 1, 6.0, 4.5) == "max_spend"
    assert await limits.continuation(context) is False


async def test_hook_runner_records_failures_but_not_cancellation():
    controller = AbortController()
    hooks = HookRunner(controller.signal)
    problem = ValueError("bad hook")
    with pytest.raises(ValueError):
        await hooks.call(lambda: (_ for _ in ()).throw(problem))
    assert hooks.failure is problem

    hooks = HookRunner(controller.signal)
    never = asyncio.Event()

    async def slow():
        started.set()
        await never.wait()

    started = asyncio.Event()
    task = asyncio.ensure_future(hooks.call(slow))
    await wait_until(started.is_set, what="the hook running")
    controller.abort()
    with pytest.raises(Exception) as caught:
        await task
    assert caught.value is controller.signal.reason and hooks.failure is None
