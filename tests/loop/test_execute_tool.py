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
