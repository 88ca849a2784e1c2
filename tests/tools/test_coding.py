import subprocess
import sys

import pytest

from jupyter_agent.tools import coding_tools


def test_names_order_and_permission_flags(workspace):
    tools = coding_tools(workspace)
    assert [tool.name for tool in tools] == ["read", "list", "grep", "glob", "edit", "write", "bash"]
    assert {tool.name for tool in tools if tool.read_only} == {"read", "list", "grep", "glob"}


def test_argument_names_match_the_documented_api(workspace):
    params = {tool.name: list(tool.parameters.model_fields) for tool in coding_tools(workspace)}
    assert params == {
        "read": ["path", "offset", "limit"],
        "list": ["path"],
        "grep": ["pattern", "path", "glob"],
        "glob": ["pattern", "path"],
        "edit": ["path", "old_text", "new_text", "replace_all"],
        "write": ["path", "content"],
        "bash": ["command", "timeout"],
    }


def test_schemas_are_json_schemas_with_descriptions(workspace):
    for tool in coding_tools(workspace):
        spec = tool.spec()
        assert spec.parameters["type"] == "object" and spec.description
        assert all("description" in field for field in spec.parameters["properties"].values())


def test_invalid_configuration_raises(tmp_path):
    with pytest.raises(ValueError, match="Workspace is not a directory"):
        coding_tools(tmp_path / "missing")
    with pytest.raises(ValueError, match="bash_timeout must be positive"):
        coding_tools(tmp_path, bash_timeout=0)


def test_importing_the_tools_loads_no_ipython_or_data_libraries():
    code = (
        "import sys, jupyter_agent.tools, jupyter_agent\n"
        "jupyter_agent.coding_tools, jupyter_agent.kernel_tools\n"
        "bad = [m for m in ('IPython', 'ipykernel', 'ipywidgets', 'pandas', 'numpy', 'matplotlib', 'litellm')"
        " if m in sys.modules]\n"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
