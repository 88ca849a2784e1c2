import pydantic
import pytest

from jupyter_agent.loop.types import AgentTool


class Code(pydantic.BaseModel):
    code: str


class Path(pydantic.BaseModel):
    path: str


async def run(args, signal):
    return "ok"


def test_a_tool_hands_out_one_frozen_spec_until_what_it_is_made_of_changes():
    tool = AgentTool(name="python", description="runs code", parameters=Code, execute=run)
    spec = tool.spec()
    assert tool.spec() is spec
    assert spec.parameters["properties"]["code"]["type"] == "string"
    with pytest.raises(pydantic.ValidationError):
        spec.description = "changed"  # frozen: every request shares it
    tool.description = "runs Python code"
    assert tool.spec().description == "runs Python code"
    tool.parameters = Path
    assert list(tool.spec().parameters["properties"]) == ["path"]
