"""The delegate tool: child agents with fresh contexts, budgets from the parent, usage charged back,
cancelled with the parent, at most three at once."""

import asyncio
import json
from collections import Counter

import pytest
from pydantic import BaseModel

from jupyter_agent import AbortController, AgentTool, Cost, TextContent, Usage
from jupyter_agent.features.delegation.child import no_spend_left, no_steps_left
from jupyter_agent.features.delegation.tool import (
    CHILD_SYSTEM_PROMPT,
    NOT_ATTACHED,
    DelegateArgs,
    DelegationContext,
    delegate_tool,
)
from jupyter_agent.features.plan.state import PlanState
from jupyter_agent.features.plan.tool import plan_tool
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.scripted import ScriptedModel, ScriptedResponse, call, failure, reply, tool_calls
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until

pytestmark = pytest.mark.anyio


def usage(cost, input=100, output=10):
    return Usage(input=input, output=output, total_tokens=input + output, cost=Cost(total=cost))


def with_usage(response, cost, **tokens):
    response.usage = usage(cost, **tokens)
    return response


class Args(BaseModel):
    value: int = 0


def tool(name, read_only=True, wait=None):
    async def execute(args, signal):
        if wait is not None:
            await wait.wait()
        return [TextContent(text=f"{name}:{args.value}")]

    return AgentTool(name=name, description=f"the {name} tool", parameters=Args, execute=execute, read_only=read_only)


class Router:
    """One stream_fn for the parent and its children, as in the notebook; records who asked what.

    Child requests (recognised by the child system prompt) are answered by ``child(context)``.
    """

    def __init__(self, parent_responses, child=lambda context: reply("child done")):
        self.parent = ScriptedModel(parent_responses)
        self.child = child
        self.requests = []

    def __call__(self, model, context, options=None, metadata=None):
        if context.system_prompt == CHILD_SYSTEM_PROMPT:
            self.requests.append(("child", context))
            return ScriptedModel([self.child(context)])(model, context, options, metadata)
        self.requests.append(("parent", context))
        return self.parent(model, context, options, metadata)

    def contexts(self, who):
        return [context for asker, context in self.requests if asker == who]


class ChildEvents:
    def __init__(self):
        self.events = []

    def __call__(self, child_id, event):
        self.events.append((child_id, event))

    def of(self, kind, child_id=None):
        return [e for c, e in self.events if e.type == kind and (child_id is None or c == child_id)]

    def ids(self):
        return list(dict.fromkeys(c for c, _ in self.events))


def task_of(context):
    return context.messages[0].content


def assert_paired(events):
    calls = Counter(e.tool_call_id for e in events if e.type == "tool_call")
    results = Counter(e.tool_call_id for e in events if e.type == "tool_result")
    assert calls == results and all(n == 1 for n in calls.values()), (calls, results)


def start(router, prompt, tools, *, sink=None, context_options=None, **run_options):
    model = router.parent.model()
    delegation = DelegationContext(model, router, tools=tools, on_child_event=sink, **(context_options or {}))
    run = run_agent(
        model, prompt, system="parent system", tools=[*tools, delegate_tool(delegation)], stream_fn=router, **run_options
    )
    delegation.attach(run)
    return run, delegation


def delegate(*tasks, cost=None):
    response = tool_calls(call("delegate", {"tasks": list(tasks)}))
    return with_usage(response, cost) if cost is not None else response


def tool_result(result):
    return next(m for m in result.messages if m.role == "tool_result" and m.tool_name == "delegate")


# -- a fresh context ---------------------------------------------------------------------------


async def test_a_child_runs_with_its_own_context_and_read_only_tools():
    router = Router(
        [delegate("count the rows of sales.csv"), reply("42 rows, says the sub-agent")], child=lambda c: reply("42 rows")
    )
    tools = [tool("echo"), tool("write", read_only=False), plan_tool(PlanState())]
    run, _ = start(router, "PARENT-SECRET: analyse sales.csv", tools)
    result = await run.result()
    assert result.reason == "completed" and tool_result(result).text == "42 rows"
    [child] = router.contexts("child")
    assert [(m.role, m.content) for m in child.messages] == [("user", "count the rows of sales.csv")]
    assert child.system_prompt == CHILD_SYSTEM_PROMPT
    assert "PARENT-SECRET" not in json.dumps([m.model_dump() for m in child.messages]) + child.system_prompt
    assert [spec.name for spec in child.tools] == ["echo"]  # not write, plan or delegate
    # The parent's next request has the child's report, not the child's transcript.
    last_parent = router.contexts("parent")[-1]
    assert [m.role for m in last_parent.messages] == ["user", "assistant", "tool_result"]


async def test_the_caller_may_choose_the_child_tools_and_a_single_task_may_be_named_task():
    router = Router([tool_calls(call("delegate", {"task": "look around"})), reply("ok")])
    run, _ = start(router, "go", [tool("echo")], context_options={"child_tools": [tool("grep")]})
    result = await run.result()
    assert tool_result(result).text == "child done"
    assert [spec.name for spec in router.contexts("child")[0].tools] == ["grep"]


async def test_blank_tasks_and_an_unattached_tool_are_error_results():
    router = Router([tool_calls(call("delegate", {"tasks": [" "]})), reply("ok")])
    run, _ = start(router, "go", [])
    assert "every task needs text" in tool_result(await run.result()).text
    router = Router([delegate("x"), reply("ok")])
    model = router.parent.model()
    unattached = DelegationContext(model, router)
    result = await run_agent(model, "go", tools=[delegate_tool(unattached)], stream_fn=router).result()
    assert tool_result(result).is_error and tool_result(result).text == NOT_ATTACHED
    assert router.contexts("child") == []


# -- usage and budgets -------------------------------------------------------------------------


async def test_the_childs_usage_is_added_to_the_parent():
    router = Router(
        [delegate("profile column a", cost=0.1), with_usage(reply("done"), 0.1)],
        child=lambda c: with_usage(reply("profiled"), 0.2, input=200, output=20),
    )
    sink = ChildEvents()
    run, _ = start(router, "go", [], sink=sink)
    steps = []
    run.add_listener(lambda e: steps.append(e) if e.type == "step_finish" else None)
    result = await run.result()
    assert result.usage.spend_usd == pytest.approx(0.4)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (400, 40)
    assert steps[0].step_usage.spend_usd == pytest.approx(0.3) and steps[0].step_usage.input_tokens == 300
    [child_finish] = sink.of("finish")
    assert child_finish.usage.spend_usd == pytest.approx(0.2)


async def test_a_child_cannot_exceed_the_parents_remaining_spend():
    router = Router(
        [delegate("loop forever", cost=0.3), reply("never")], child=lambda c: with_usage(tool_calls(call("echo")), 0.25)
    )
    sink = ChildEvents()
    run, _ = start(router, "go", [tool("echo")], sink=sink, max_spend_usd=1.0)
    result = await run.result()
    [started] = sink.of("child_start")
    assert started.max_spend_usd == pytest.approx(0.7)
    [finish] = sink.of("finish")
    # 0.7 was left: two steps of 0.25; a third would not fit.
    assert finish.usage.spend_usd == pytest.approx(0.5) and finish.usage.spend_usd <= 0.7
    assert result.usage.spend_usd == pytest.approx(0.8) and result.reason == "max_spend"
    assert "the spend budget ran out" in tool_result(result).text


async def test_children_running_at_once_share_the_remaining_spend():
    router = Router(
        [delegate("a", "b", "c", cost=0.3), reply("never")], child=lambda c: with_usage(tool_calls(call("echo")), 0.25)
    )
    sink = ChildEvents()
    run, _ = start(router, "go", [tool("echo")], sink=sink, max_spend_usd=1.0)
    result = await run.result()
    children_spend = sum(finish.usage.spend_usd for finish in sink.of("finish"))
    # Each alone could take two steps (0.5 of the 0.7 left); together they stay within 0.7: two
    # children take one step each, the third is not started once the others' steps are projected.
    assert children_spend == pytest.approx(0.5)
    assert result.usage.spend_usd == pytest.approx(0.8)
    assert sorted(e.reason for e in sink.of("finish")) == ["refused", "stopped_by_caller", "stopped_by_caller"]
    assert tool_result(result).text.count("Not started: what is left of this run's max_spend_usd") == 1


async def test_no_budget_left_refuses_before_any_child_request():
    router = Router([delegate("x", cost=1.0), reply("never")])
    sink = ChildEvents()
    run, _ = start(router, "go", [], sink=sink, max_spend_usd=1.0)
    result = await run.result()
    assert tool_result(result).is_error and tool_result(result).text == no_spend_left()
    assert router.contexts("child") == []
    assert [e.type for _, e in sink.events] == ["child_queued", "finish"] and sink.of("finish")[0].reason == "refused"

    router = Router([delegate("x"), reply("never")])
    run, _ = start(router, "go", [], max_steps=1)
    assert tool_result(await run.result()).text == no_steps_left()


async def test_the_child_step_budget_is_what_the_parent_has_left():
    router = Router([delegate("dig"), reply("done")], child=lambda c: tool_calls(call("echo")))
    sink = ChildEvents()
    run, _ = start(router, "go", [tool("echo")], sink=sink, max_steps=3, context_options={"max_child_steps": 10})
    result = await run.result()
    assert sink.of("child_start")[0].max_steps == 2  # the parent is on step 1 of 3
    assert sink.of("finish")[0].reason == "max_steps" and len(router.contexts("child")) == 2
    assert "used all its steps before finishing" in tool_result(result).text


async def test_a_failing_child_is_an_error_result():
    router = Router([delegate("x"), reply("ok")], child=lambda c: failure("provider down"))
    run, _ = start(router, "go", [])
    result = tool_result(await run.result())
    assert result.is_error and result.text == "The sub-agent failed: provider down"


# -- cancellation ------------------------------------------------------------------------------


async def test_the_parents_interrupt_cancels_the_child_and_pairs_every_tool_call():
    hold = tool("hold", wait=asyncio.Event())
    router = Router([delegate("wait for it"), reply("never")], child=lambda c: tool_calls(call("hold")))
    sink = ChildEvents()
    run, delegation = start(router, "go", [hold], sink=sink)
    parent_events = []
    run.add_listener(parent_events.append)
    await wait_until(lambda: sink.of("tool_call"))
    run.interrupt()
    result = await run.result()
    assert result.reason == "aborted"
    assert_paired(parent_events)
    assert tool_result(result).is_error
    await wait_until(lambda: sink.of("finish"))
    assert sink.of("finish")[0].reason == "aborted"
    assert_paired([e for _, e in sink.events])
    # A child leaves ``active`` as its task ends, just after its finish event.
    await wait_until(lambda: not delegation.active, what="the child to leave delegation.active")
    assert delegation.active == {}


async def test_children_waiting_for_a_slot_end_with_a_finish_when_the_parent_is_interrupted():
    hold = tool("hold", wait=asyncio.Event())
    router = Router([delegate("a", "b", "c", "d", "e"), reply("never")], child=lambda c: tool_calls(call("hold")))
    sink = ChildEvents()
    run, _ = start(router, "go", [hold], sink=sink)
    await wait_until(lambda: len(sink.of("tool_call")) == 3)
    run.interrupt()
    await run.result()
    await wait_until(lambda: len(sink.of("finish")) == 5)
    assert [e.reason for e in sink.of("finish")] == ["aborted"] * 5
    assert len(sink.of("child_start")) == 3 and len(sink.of("child_queued")) == 5


# -- concurrency -------------------------------------------------------------------------------


async def test_at_most_three_children_run_at_once_and_the_rest_wait_their_turn():
    release = asyncio.Event()
    hold = tool("hold", wait=release)

    def child(context):
        if context.messages[-1].role == "tool_result":
            return reply(f"report on {task_of(context)}")
        return tool_calls(call("hold"))

    router = Router([delegate("t1", "t2", "t3", "t4", "t5"), reply("all in")], child=child)
    sink = ChildEvents()
    running, peak = set(), [0]

    def track(child_id, event):
        sink(child_id, event)
        if event.type == "child_start":
            running.add(child_id)
            peak[0] = max(peak[0], len(running))
        elif event.type == "finish":
            running.discard(child_id)

    run, _ = start(router, "go", [hold], sink=track)
    await wait_until(lambda: len(sink.of("tool_call")) == 3)
    # The other two stay queued however long the first three take.
    await assert_quiet_for(0.05, lambda: len(sink.of("child_start")) > 3, "a fourth sub-agent starting")
    assert len(sink.of("child_start")) == 3 and len(sink.of("child_queued")) == 5
    release.set()
    result = await run.result()
    assert peak[0] == 3 and len(sink.of("finish")) == 5
    text = tool_result(result).text
    assert [line for line in text.splitlines() if line.startswith("### ")] == [f"### Sub-task {n}: t{n}" for n in range(1, 6)]
    assert "report on t5" in text and result.reason == "completed"
    assert tool_result(result).details["children"][0]["reason"] == "completed"


async def test_the_cap_holds_across_delegate_calls_sharing_a_context():
    release = asyncio.Event()
    hold = tool("hold", wait=release)
    router = Router([], child=lambda c: reply("x") if c.messages[-1].role == "tool_result" else tool_calls(call("hold")))
    sink = ChildEvents()
    model = router.parent.model()
    delegation = DelegationContext(model, router, tools=[hold], on_child_event=sink, max_concurrent=2)
    parent = run_agent(model, "go", stream_fn=ScriptedModel([ScriptedResponse(hang=True)]))
    delegation.attach(parent)
    execute = delegate_tool(delegation).execute
    signal = AbortController().signal
    calls = [asyncio.ensure_future(execute(DelegateArgs(tasks=[f"t{n}"]), signal)) for n in range(3)]
    await wait_until(lambda: len(sink.of("tool_call")) == 2)
    await assert_quiet_for(0.05, lambda: len(sink.of("child_start")) > 2, "a third sub-agent starting")
    assert len(sink.of("child_start")) == 2
    release.set()
    outputs = await asyncio.wait_for(asyncio.gather(*calls), 5)
    assert [output.content for output in outputs] == ["x", "x", "x"]
    parent.interrupt()
    await parent.result()


def test_delegation_is_gated_only_when_a_child_could_mutate():
    model = ScriptedModel().model()
    assert delegate_tool(
        DelegationContext(model, ScriptedModel(), tools=[tool("echo"), tool("write", read_only=False)])
    ).read_only
    mutating = DelegationContext(model, ScriptedModel(), child_tools=[tool("write", read_only=False)])
    assert not delegate_tool(mutating).read_only


def test_bad_limits_are_refused():
    model = ScriptedModel().model()
    with pytest.raises(ValueError, match="^max_concurrent must be a positive integer$"):
        DelegationContext(model, ScriptedModel(), max_concurrent=0)
    with pytest.raises(ValueError, match="^max_child_steps must be a positive integer$"):
        DelegationContext(model, ScriptedModel(), max_child_steps=True)
