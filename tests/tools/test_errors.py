import pytest

from jupyter_agent import AbortController, AgentTool, ToolCall
from jupyter_agent.loop.execute_tool import execute_tool
from jupyter_agent.tools import ToolError
from jupyter_agent.tools.bash import BashArgs

pytestmark = pytest.mark.anyio


async def test_the_loop_turns_a_tool_error_into_an_error_result_with_exactly_its_message():
    async def execute(args, signal):
        raise ToolError("Path 'x' is outside the workspace.")

    tool = AgentTool(name="t", description="d", parameters=BashArgs, execute=execute)
    result = await execute_tool(ToolCall(id="1", name="t", arguments={"command": "x"}), {"t": tool}, AbortController().signal)
    assert result.is_error and result.content[0].text == "Path 'x' is outside the workspace."
    assert str(ToolError("m")) == "m" and ToolError("m").message == "m"
