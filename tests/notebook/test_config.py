from types import SimpleNamespace

import pytest

from jupyter_agent.notebook.config import AgentConfig, choose_permissions, default_workspace, secret_env_names


def magics(**overrides):
    values = dict(
        model="",
        api_base="",
        api_key="",
        permissions="ask",
        session="main",
        max_steps=None,
        max_spend=None,
        tools=[],
        workspace="",
        data_policy="sample",
        sample_rows=5,
        bash_timeout=120.0,
        recent_cells=6,
        wait=False,
    )
    values.update(overrides)
    return SimpleNamespace(**values)


def test_environment_fills_what_configuration_leaves_empty():
    env = {"JUPYTER_AGENT_API_BASE": "http://127.0.0.1:9/v1", "JUPYTER_AGENT_API_KEY": "sk-env"}
    config = AgentConfig.from_magics(magics(), env)
    assert (config.api_base, config.api_key) == ("http://127.0.0.1:9/v1", "sk-env")
    configured = AgentConfig.from_magics(magics(api_key="sk-config"), env)
    assert configured.api_key == "sk-config"


def test_describe_never_shows_the_key():
    text = AgentConfig.from_magics(magics(api_key="sk-very-secret", tools=["python"]), {}).describe()
    assert "sk-very-secret" not in text
    assert "AgentMagics.api_key (set)" in text
    assert "AgentMagics.tools = ('python',)" in text


def test_secret_env_names_lists_names_only():
    assert secret_env_names({"OPENAI_API_KEY": "x", "HOME": "/root", "GH_TOKEN": "y", "EMPTY_KEY": ""}) == [
        "GH_TOKEN",
        "OPENAI_API_KEY",
    ]


def test_default_workspace_is_the_git_root_else_the_folder(tmp_path):
    nested = tmp_path / "repo" / "notebooks"
    nested.mkdir(parents=True)
    assert default_workspace(nested) == nested
    (tmp_path / "repo" / ".git").mkdir()
    assert default_workspace(nested) == tmp_path / "repo"


def test_describe_shows_mcp_server_names_never_their_env_or_headers():
    servers = {
        "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer tok-secret-1"}},
        "files": {"command": "x", "env": {"TOKEN": "env-secret-2"}},
    }
    text = AgentConfig.from_magics(magics(mcp_servers=servers), {}).describe()
    assert "AgentMagics.mcp_servers = ['files', 'web']" in text
    assert "tok-secret-1" not in text and "env-secret-2" not in text


def test_the_stream_timeout_is_configuration_or_none():
    assert AgentConfig.from_magics(magics(), {}).stream_timeout is None  # the model layer's default applies
    assert AgentConfig.from_magics(magics(stream_timeout=30.0), {}).stream_timeout == 30.0


def test_permissions_come_from_the_cell_then_config_then_environment():
    env = {"JUPYTER_AGENT_PERMISSIONS": "readonly"}
    unset = AgentConfig.from_magics(magics(permissions=None), {})
    configured = AgentConfig.from_magics(magics(permissions="ask"), {})
    assert choose_permissions(None, unset, {}) is None  # the frontend decides (headless: deny)
    assert choose_permissions(None, unset, env) == "readonly"
    assert choose_permissions(None, unset, {"JUPYTER_AGENT_PERMISSIONS": " yolo "}) == "yolo"
    assert choose_permissions(None, configured, env) == "ask"
    assert choose_permissions("yolo", configured, env) == "yolo"
    with pytest.raises(ValueError) as error:
        choose_permissions(None, unset, {"JUPYTER_AGENT_PERMISSIONS": "YOLO!"})
    assert str(error.value) == (
        "JUPYTER_AGENT_PERMISSIONS='YOLO!' is not a permission mode: "
        "use JUPYTER_AGENT_PERMISSIONS=yolo, readonly or ask (or unset it)"
    )
    assert choose_permissions("ask", unset, {"JUPYTER_AGENT_PERMISSIONS": "bad"}) == "ask"  # not consulted
    assert "AgentMagics.permissions = None (not set: JUPYTER_AGENT_PERMISSIONS" in unset.describe()
