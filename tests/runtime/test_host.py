"""prepare_step and the per-step request: overrides for one step only, hook failures."""

import pytest

from jupyter_agent import AssistantMessage, StreamOptions, TextContent, UserMessage
from jupyter_agent.runtime import StepOverrides, run_agent
from jupyter_agent.testing.scripted import call, reply, tool_calls

pytestmark = pytest.mark.anyio


def two_tool_steps(scripted):
    scripted.queue(tool_calls(call("echo")), tool_calls(call("other")), reply("done"))


async def test_an_override_applies_to_its_step_only(scripted, kit):
    two_tool_steps(scripted)

    def prepare(ctx):
        return StepOverrides(tool_choice="required", temperature=0.2, max_output_tokens=500) if ctx.step_number == 1 else None

    await run_agent(
        scripted.model(), "go", tools=[kit.make_tool(), kit.make_tool("other")], stream_fn=scripted, prepare_step=prepare
    ).result()
    options = [request.options for request in scripted.requests]
    assert (options[0].tool_choice, options[0].temperature, options[0].max_tokens) == ("required", 0.2, 500)
    for later in options[1:]:
        assert (later.tool_choice, later.temperature, later.max_tokens) == (None, None, 16_384)


async def test_a_step_context_goes_to_its_step_only_and_leaves_the_system_prompt_and_the_history(scripted, kit):
    two_tool_steps(scripted)

    def prepare(ctx):
        return StepOverrides(step_context=f"## Plan at step {ctx.step_number}") if ctx.step_number < 3 else None

    result = await run_agent(
        scripted.model(),
        "go",
        system="base",
        tools=[kit.make_tool(), kit.make_tool("other")],
        stream_fn=scripted,
        prepare_step=prepare,
    ).result()
    contexts = [request.context for request in scripted.requests]
    assert [context.step_context for context in contexts] == ["## Plan at step 1", "## Plan at step 2", None]
    assert {context.system_prompt for context in contexts} == {"base"}
    assert "## Plan" not in str([message.model_dump() for message in result.messages])


async def test_prepare_step_sees_step_numbers_completed_steps_and_a_snapshot(scripted, kit):
    seen = []

    def prepare(ctx):
        seen.append((ctx.step_number, [(s.step, s.tool_names) for s in ctx.steps], len(ctx.messages)))
        ctx.messages.clear()
        return None

    two_tool_steps(scripted)
    result = await run_agent(
        scripted.model(), "go", tools=[kit.make_tool(), kit.make_tool("other")], stream_fn=scripted, prepare_step=prepare
    ).result()
    assert seen == [(1, [], 1), (2, [(1, ["echo"])], 3), (3, [(1, ["echo"]), (2, ["other"])], 5)]
    assert len(result.messages) == 6


async def test_run_stream_options_apply_to_every_step_and_prepare_step_wins(scripted, kit):
    two_tool_steps(scripted)
    base = StreamOptions(tool_choice="auto", api_base="http://127.0.0.1:9")

    def prepare(ctx):
        return StepOverrides(tool_choice="none") if ctx.step_number == 2 else None

    await run_agent(
        scripted.model(),
        "go",
        tools=[kit.make_tool(), kit.make_tool("other")],
        stream_fn=scripted,
        stream_options=base,
        prepare_step=prepare,
    ).result()
    assert [r.options.tool_choice for r in scripted.requests] == ["auto", "none", "auto"]
    assert all(r.options.api_base == "http://127.0.0.1:9" for r in scripted.requests)
    assert base.max_tokens is None  # the caller's options are never modified


async def test_tools_system_and_model_overrides(scripted, kit, events):
    other_model = scripted.model("other-model")

    def prepare(ctx):
        return StepOverrides(tools=["other"], system="step one rules", model=other_model) if ctx.step_number == 1 else None

    scripted.queue(tool_calls(call("other")), reply("done"))
    run = run_agent(
        scripted.model(),
        "go",
        system="base rules",
        tools=[kit.make_tool(), kit.make_tool("other")],
        stream_fn=scripted,
        prepare_step=prepare,
    )
    run.add_listener(events)
    await run.result()
    first, second = scripted.requests
    assert [t.name for t in first.context.tools] == ["other"] and first.context.system_prompt == "step one rules"
    assert first.model.id == "other-model" and second.model.id == "scripted-model"
    assert [t.name for t in second.context.tools] == ["echo", "other"] and second.context.system_prompt == "base rules"
    assert [e.model for e in events.of("step_finish")] == ["other-model", "scripted-model"]


async def test_a_throwing_prepare_step_ends_the_run_before_the_model_is_called(scripted):
    scripted.queue(reply("never"))

    def prepare(ctx):
        raise LookupError("no plan")

    run = run_agent(scripted.model(), "go", stream_fn=scripted, prepare_step=prepare)
    with pytest.raises(LookupError, match="no plan"):
        await run.result()
    assert scripted.requests == []


@pytest.mark.parametrize(
    "returned, message",
    [
        ({"tool_choice": "required"}, "prepare_step must return StepOverrides or None"),
        (StepOverrides(tools=["missing"]), "prepare_step chose unknown tools: missing"),
        (StepOverrides(max_output_tokens=-5), "max_output_tokens must be a positive integer"),
        (StepOverrides(step_context=["plan"]), "step_context must be a string or None"),
    ],
)
async def test_a_bad_prepare_step_answer_rejects_the_result(scripted, returned, message):
    scripted.queue(reply("never"))
    run = run_agent(scripted.model(), "go", stream_fn=scripted, prepare_step=lambda ctx: returned)
    with pytest.raises(ValueError) as caught:
        await run.result()
    assert str(caught.value) == message and scripted.requests == []


async def test_an_async_prepare_step_is_awaited(scripted):
    async def prepare(ctx):
        return StepOverrides(temperature=0.9)

    scripted.queue(reply("ok"))
    await run_agent(scripted.model(), "go", stream_fn=scripted, prepare_step=prepare).result()
    assert scripted.requests[0].options.temperature == 0.9


async def test_a_tool_that_appears_during_the_run_is_offered_called_and_gated(scripted, kit):
    from jupyter_agent.runtime import PermissionPolicy

    late = kit.make_tool("late", read_only=False)
    asked = []
    policy = PermissionPolicy("ask", prompt=lambda request: asked.append(request.tool_name) or "once")

    def prepare(ctx):
        return StepOverrides(tools=["echo", late]) if ctx.step_number > 1 else None

    scripted.queue(tool_calls(call("echo")), tool_calls(call("late", {"value": 7})), reply("done"))
    result = await run_agent(
        scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted, prepare_step=prepare, permissions=policy
    ).result()
    assert [[t.name for t in r.context.tools] for r in scripted.requests] == [["echo"], ["echo", "late"], ["echo", "late"]]
    assert asked == ["late"]  # the new tool is a mutation: it went through the approval prompt
    late_result = [m for m in result.messages if m.role == "tool_result" and m.tool_name == "late"][0]
    assert late_result.content[0].text == "late:7" and not late_result.is_error


async def test_a_step_shares_the_prior_messages_and_a_hook_that_reads_none_copies_none(scripted, kit, monkeypatch):
    from jupyter_agent.runtime import limits

    copies = []
    real_copy = limits.copy_message
    monkeypatch.setattr(limits, "copy_message", lambda message: copies.append(message) or real_copy(message))
    model = scripted.model()
    prior = [
        UserMessage(content=f"question {n}")
        if n % 2 == 0
        else AssistantMessage(content=[TextContent(text=f"answer {n}")], provider=model.provider, api=model.api, model=model.id)
        for n in range(40)
    ]
    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("done"))
    result = await run_agent(
        model,
        "go",
        tools=[kit.make_tool()],
        messages=prior,
        stream_fn=scripted,
        prepare_step=lambda context: None,
        should_stop=lambda context: context.step_number > 5,
    ).result()
    assert result.reason == "completed"
    # No copy of the transcript per run or per step: the request carries the caller's own messages.
    for request in scripted.requests:
        assert all(sent is given for sent, given in zip(request.context.messages, prior))
    assert copies == []


async def test_a_hook_that_reads_the_messages_gets_its_own_copy(scripted, kit):
    seen = []

    def prepare(context):
        seen.append([m.role for m in context.messages])
        context.messages[0].content = "changed by the hook"
        context.messages.clear()

    scripted.queue(tool_calls(call("echo", {"value": 1})), reply("done"))
    result = await run_agent(scripted.model(), "go", tools=[kit.make_tool()], stream_fn=scripted, prepare_step=prepare).result()
    assert seen == [["user"], ["user", "assistant", "tool_result"]]
    assert result.messages[0].content == "go" and len(result.messages) == 4
