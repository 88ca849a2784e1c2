"""step_context_hook: every step's context built from live sections, the system prompt left alone."""

import pytest

from jupyter_agent.runtime import StepContext, StepOverrides, run_agent
from jupyter_agent.testing.scripted import ScriptedModel, reply
from jupyter_agent.tools.step_context import NOT_STEP_OVERRIDES, compose_sections, step_context_hook

pytestmark = pytest.mark.anyio

CONTEXT = StepContext(step_number=1, messages=[], steps=[])


def test_compose_skips_empty_sections():
    assert compose_sections([lambda: "", lambda: "  ", lambda: "## Plan\n[ ] a\n"], "first") == "first\n\n## Plan\n[ ] a"
    assert compose_sections([lambda: "only"]) == "only"
    assert compose_sections([lambda: ""]) is None
    assert compose_sections([], "  ") is None


async def test_sections_are_read_afresh_every_step():
    live = {"text": "first"}
    hook = step_context_hook([lambda: live["text"]])
    assert (await hook(CONTEXT)).step_context == "first"
    live["text"] = "second"
    overrides = await hook(CONTEXT)
    assert (overrides.step_context, overrides.system) == ("second", None)


async def test_another_hook_still_decides_and_its_step_context_comes_first():
    async def then(context):
        return StepOverrides(tool_choice="required", system="other base", step_context="theirs")

    overrides = await step_context_hook([lambda: "s"], then=then)(CONTEXT)
    assert (overrides.tool_choice, overrides.system, overrides.step_context) == ("required", "other base", "theirs\n\ns")
    overrides = await step_context_hook([lambda: "s"], then=lambda context: None)(CONTEXT)
    assert (overrides.system, overrides.step_context) == (None, "s")


async def test_another_hook_answering_something_else_is_the_callers_error():
    with pytest.raises(ValueError) as raised:
        await step_context_hook([lambda: "s"], then=lambda context: {"system": "x"})(CONTEXT)
    assert str(raised.value) == NOT_STEP_OVERRIDES == "prepare_step must return StepOverrides or None"


async def test_each_request_gets_its_steps_sections_after_the_history_and_the_system_prompt_stays():
    scripted = ScriptedModel([reply("one")])
    run = run_agent(
        scripted.model(),
        "hi",
        system="base",
        stream_fn=scripted,
        prepare_step=step_context_hook([lambda: "## Memory\n- a: b"]),
    )
    result = await run.result()
    context = scripted.requests[0].context
    assert (context.system_prompt, context.step_context) == ("base", "## Memory\n- a: b")
    assert "## Memory" not in str([message.model_dump() for message in result.messages])  # never in the history


async def test_all_sections_empty_means_no_step_context():
    scripted = ScriptedModel([reply("one")])
    await run_agent(scripted.model(), "hi", stream_fn=scripted, prepare_step=step_context_hook([lambda: ""])).result()
    assert scripted.requests[0].context.step_context is None


@pytest.fixture(scope="module")
def litellm():
    from jupyter_agent.model.litellm_loader import litellm_module_sync

    return litellm_module_sync()


async def test_over_http_the_step_context_ends_each_request_and_the_next_one_reads_the_rest_from_the_cache(litellm):
    from pydantic import BaseModel

    from jupyter_agent.loop import AgentTool
    from jupyter_agent.model import Model, StreamOptions
    from jupyter_agent.testing.fake_provider import FakeProvider, call, text, tool_calls
    from jupyter_agent.testing.prompt_cache import estimate_tokens, request_segments

    class Tick(BaseModel):
        item: str

    plan = {"items": "[>] 1. load"}

    async def tick(args, signal):
        plan["items"] = f"[x] 1. {args.item}"
        return "ticked"

    tool = AgentTool(name="tick", description="ticks an item off", parameters=Tick, execute=tick, read_only=True)
    with FakeProvider([tool_calls(call("tick", {"item": "load"})), text("done")], prompt_cache=True) as provider:
        model = Model(id="fake-model", provider="openai", base_url=provider.api_base)
        result = await run_agent(
            model,
            "load it",
            system="base",
            tools=[tool],
            stream_options=StreamOptions(api_key="no-key", cache_breakpoints=True),
            prepare_step=step_context_hook([lambda: f"## Plan\n{plan['items']}"]),
        ).result()
        first, second = provider.requests
        uses = provider.cache.uses
    assert result.reason == "completed"
    assert [body["messages"][-1] for body in (first, second)] == [
        {"role": "user", "content": "<step-context>\n## Plan\n[>] 1. load\n</step-context>"},
        {"role": "user", "content": "<step-context>\n## Plan\n[x] 1. load\n</step-context>"},
    ]
    assert first["messages"][0] == second["messages"][0]  # the system prompt, marked the same
    assert second["messages"][-2]["role"] == "tool" and second["messages"][-2]["cache_control"] == {"type": "ephemeral"}
    # The second request read everything the first sent but its step context from the cache.
    before_context = sum(estimate_tokens(segment) for segment, _ in request_segments(first)[:-1])
    assert uses[1].cached_tokens == before_context
    assert "<step-context>" not in str([message.model_dump() for message in result.messages])
