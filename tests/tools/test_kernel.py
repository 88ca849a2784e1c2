import pytest

from jupyter_agent.tools import kernel_tools


def test_names_and_permission_flags(shell):
    tools = kernel_tools(shell)
    assert [tool.name for tool in tools] == ["python", "variables", "inspect"]
    assert {tool.name for tool in tools if tool.read_only} == {"variables", "inspect"}
    assert [list(tool.parameters.model_fields) for tool in tools] == [["code"], [], ["name", "count_rows"]]


def test_policy_is_validated(shell):
    with pytest.raises(ValueError, match="data_policy must be one of"):
        kernel_tools(shell, data_policy="everything")
