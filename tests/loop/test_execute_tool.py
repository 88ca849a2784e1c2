import pytest
from pydantic import BaseModel

from jupyter_agent import AbortController, AgentTool, TextContent, ToolCall, ToolOutput
from jupyter_agent.loop.execute_tool import execute_tool

pytestmark = pytest.mark.anyio


class Args(BaseModel):
    count: int
    label: str = "x"


def tool(execute, name="t"):
    return AgentTool(name=name, description="d", parameters=Args, execute=execute)


async def run(call_args, execute):
    return await execute_tool(ToolCall(id="c", name="t", arguments=call_args), {"t": tool(execute)}, AbortController().signal)


async def test_tool_output_details_and_strings_are_normalized():
    async def execute(args, signal):
        return ToolOutput(content=["plain", TextContent(text="block")], details={"n": args.count})

    result = await run({"count": "3"}, execute)
    assert [b.text for b in result.content] == ["plain", "block"]
    assert result.details == {"n": 3} and not result.is_error


async def test_sync_execute_is_accepted():
    result = await run({"count": 1}, lambda args, signal: [TextContent(text="sync")])
    assert result.content[0].text == "sync"


async def test_bad_output_type_is_an_error_result():
    async def execute(args, signal):
        return [42]

    result = await run({"count": 1}, execute)
    assert result.is_error and result.content[0].text == "Tool output must be text or image blocks, got int"


async def test_missing_argument_is_listed_by_name():
    async def execute(args, signal):
        return []

    result = await run({}, execute)
    assert result.is_error and "  - count: Field required" in result.content[0].text


async def test_exception_without_message_uses_its_type():
    async def execute(args, signal):
        raise KeyError()

    result = await run({"count": 1}, execute)
    assert result.content[0].text == "KeyError"


async def test_never_started_after_abort():
    controller = AbortController()
    controller.abort()
    started = []

    async def execute(args, signal):
        started.append(1)

    from jupyter_agent import RunCancelled

    with pytest.raises(RunCancelled):
        await execute_tool(ToolCall(id="c", name="t", arguments={"count": 1}), {"t": tool(execute)}, controller.signal)
    assert started == []


async def test_a_tool_that_raises_run_cancelled_was_stopped_while_running_not_failed():
    """The notebook's python tool raises it when the user's Stop interrupts the code."""
    from jupyter_agent.loop.abort import RunCancelled, was_cancelled, was_stopped_while_running

    class NoArgs(BaseModel):
        pass

    async def stopped(args, signal):
        raise RunCancelled("Stopped after 2.0 s: the user interrupted it.")

    tool = AgentTool(name="python", description="", parameters=NoArgs, execute=stopped)
    result = await execute_tool(ToolCall(id="c1", name="python", arguments={}), {"python": tool}, AbortController().signal)
    assert result.is_error and result.content[0].text == "Stopped after 2.0 s: the user interrupted it."
    assert was_cancelled(result.details) and was_stopped_while_running(result.details)


async def test_a_huge_invalid_argument_is_echoed_in_part_only():
    result = await run({"count": "y" * 5_000_000}, lambda args, signal: [TextContent(text="never")])
    text = result.content[0].text
    assert result.is_error and text.startswith('Validation failed for tool "t":\n  - count: Input should be a valid integer')
    assert len(text) < 3_000
    assert text.endswith("… (5000017 characters of arguments in all; only their start is shown)")


async def test_a_tool_stopped_while_the_run_stops_too_keeps_its_own_result():
    """Stop aborts the run and interrupts the code: the card keeps what the code printed, not "Run cancelled"."""
    from jupyter_agent.loop.abort import RunCancelled, was_stopped_while_running

    class NoArgs(BaseModel):
        pass

    controller = AbortController()

    async def interrupted(args, signal):
        controller.abort()
        raise RunCancelled("Stopped after 1.0 s: the user interrupted it.\ntick 1")

    tool = AgentTool(name="python", description="", parameters=NoArgs, execute=interrupted)
    result = await execute_tool(ToolCall(id="c1", name="python", arguments={}), {"python": tool}, controller.signal)
    assert result.content[0].text.endswith("tick 1") and was_stopped_while_running(result.details)


async def test_an_exceptions_details_ride_on_its_error_result():
    from jupyter_agent.tools.errors import ToolError

    async def execute(args, signal):
        raise ToolError("failed: [values withheld]", details={"privacy": {"policy": "schema"}})

    result = await run({"count": 1}, execute)
    assert result.is_error and result.content[0].text == "failed: [values withheld]"
    assert result.details == {"privacy": {"policy": "schema"}}
