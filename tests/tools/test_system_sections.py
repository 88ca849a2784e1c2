"""system_sections_hook: the system prompt rebuilt every step from live sections."""

import pytest

from jupyter_agent.runtime import StepContext, StepOverrides, run_agent
from jupyter_agent.testing.scripted import ScriptedModel, reply
from jupyter_agent.tools.system_sections import compose_system, system_sections_hook

pytestmark = pytest.mark.anyio

CONTEXT = StepContext(step_number=1, messages=[], steps=[])


def test_compose_skips_empty_sections():
    assert compose_system("base", [lambda: "", lambda: "  ", lambda: "## Plan\n[ ] a\n"]) == "base\n\n## Plan\n[ ] a"
    assert compose_system(None, [lambda: "only"]) == "only"
    assert compose_system(None, [lambda: ""]) is None
    assert compose_system("base", []) == "base"


async def test_sections_are_read_afresh_every_step():
    live = {"text": "first"}
    hook = system_sections_hook("base", [lambda: live["text"]])
    assert (await hook(CONTEXT)).system == "base\n\nfirst"
    live["text"] = "second"
    assert (await hook(CONTEXT)).system == "base\n\nsecond"


async def test_another_hook_still_decides_and_its_system_replaces_the_base():
    async def then(context):
        return StepOverrides(tool_choice="required", system="other base")

    overrides = await system_sections_hook("base", [lambda: "s"], then=then)(CONTEXT)
    assert (overrides.tool_choice, overrides.system) == ("required", "other base\n\ns")
    overrides = await system_sections_hook("base", [lambda: "s"], then=lambda context: None)(CONTEXT)
    assert overrides.system == "base\n\ns"


async def test_each_request_of_a_run_gets_the_sections_of_its_step():
    scripted = ScriptedModel([reply("one")])
    run = run_agent(
        scripted.model(),
        "hi",
        system="base",
        stream_fn=scripted,
        prepare_step=system_sections_hook("base", [lambda: "## Memory\n- a: b"]),
    )
    await run.result()
    assert scripted.requests[0].context.system_prompt == "base\n\n## Memory\n- a: b"
