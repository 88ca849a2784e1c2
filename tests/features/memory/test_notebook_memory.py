"""NotebookMemory: off by default (nothing written, no request); on → index, tool and extraction."""

import pytest

from jupyter_agent import AssistantMessage, TextContent, UserMessage
from jupyter_agent.features.memory.notebook_memory import NotebookMemory
from jupyter_agent.runtime import run_agent
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls
from jupyter_agent.tools.step_context import step_context_hook

pytestmark = pytest.mark.anyio

FACT = '{"memories": [{"name": "sales-dates", "summary": "sales.csv dates are day-first", "content": "Parse sales.csv with dayfirst=True."}]}'


def turn():
    return [
        UserMessage(content="Load sales.csv; the dates are day-first, remember that."),
        AssistantMessage(content=[TextContent(text="Loaded with dayfirst=True.")]),
    ]


async def test_memory_is_off_by_default_and_then_writes_nothing(tmp_path):
    memory = NotebookMemory.for_notebook(tmp_path / "analysis.ipynb")
    scripted = ScriptedModel([reply(FACT)])
    assert memory.enabled is False
    assert memory.step_section() == "" and memory.tools() == []
    assert await memory.after_turn(scripted, scripted.model(), turn()) == []
    assert scripted.requests == [] and not (tmp_path / "analysis.agent").exists()


async def test_memory_on_puts_the_index_in_the_next_request(tmp_path):
    memory = NotebookMemory.for_notebook(tmp_path / "analysis.ipynb", enabled=True)
    scripted = ScriptedModel([reply(FACT), reply("ok")])
    changes = await memory.after_turn(scripted, scripted.model(), turn())
    assert [change.name for change in changes] == ["sales-dates"]
    assert (tmp_path / "analysis.agent" / "memory" / "sales-dates.md").exists()
    hook = step_context_hook([memory.step_section])
    await run_agent(
        scripted.model(), "next turn", system="base", tools=memory.tools(), stream_fn=scripted, prepare_step=hook
    ).result()
    context = scripted.requests[-1].context
    assert context.system_prompt == "base" and context.step_context.startswith("## Memory\n")
    assert "- sales-dates: sales.csv dates are day-first" in context.step_context
    assert [tool.name for tool in scripted.requests[-1].context.tools] == ["memory"]


async def test_a_deleted_fact_is_gone_from_the_next_request(tmp_path):
    memory = NotebookMemory.for_notebook(tmp_path / "analysis.ipynb", enabled=True)
    memory.store.write("old-units", "Revenue was in USD.", summary="revenue in USD")
    scripted = ScriptedModel([tool_calls(call("memory", {"action": "delete", "name": "old-units"})), reply("forgotten")])
    hook = step_context_hook([memory.step_section])
    await run_agent(
        scripted.model(), "that is wrong now", system="base", tools=memory.tools(), stream_fn=scripted, prepare_step=hook
    ).result()
    first, second = (request.context.step_context for request in scripted.requests)
    assert "- old-units: revenue in USD" in first
    assert "old-units" not in second and "(no notes saved yet)" in second
