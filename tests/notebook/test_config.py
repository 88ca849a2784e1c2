from types import SimpleNamespace

import pytest

from jupyter_agent.notebook.config import AgentConfig, default_workspace, secret_env_names


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


def test_the_stream_timeout_is_configuration_then_its_variable_or_none():
    assert AgentConfig.from_magics(magics(stream_timeout=None), {}).stream_timeout is None  # the model layer's default applies
    assert AgentConfig.from_magics(magics(stream_timeout=30.0), {}).stream_timeout == 30.0
    env = {"JUPYTER_AGENT_STREAM_TIMEOUT": " 45 "}
    assert AgentConfig.from_magics(magics(stream_timeout=None), env).stream_timeout == 45.0
    assert AgentConfig.from_magics(magics(stream_timeout=30.0), env).stream_timeout == 30.0


@pytest.mark.parametrize("value", ["soon", "-1", "0"])
def test_a_bad_stream_timeout_variable_is_said_when_a_turn_falls_back_on_it(value):
    config = AgentConfig.from_magics(magics(stream_timeout=None), {"JUPYTER_AGENT_STREAM_TIMEOUT": value})
    with pytest.raises(ValueError) as raised:
        config.turn()
    assert str(raised.value) == f"JUPYTER_AGENT_STREAM_TIMEOUT must be a positive number of seconds, not {value!r}"
    assert config.turn({"stream_timeout": 10.0}).stream_timeout == 10.0  # the cell's own value needs none


def test_the_model_is_configuration_then_its_variable():
    env = {"JUPYTER_AGENT_MODEL": "openai/env-model"}
    from_env = AgentConfig.from_magics(magics(model=""), env)
    assert (from_env.model, from_env.set_by("model")) == ("openai/env-model", "environment")
    configured = AgentConfig.from_magics(magics(model="openai/mine"), env)
    assert (configured.model, configured.set_by("model")) == ("openai/mine", "configuration")


def test_permissions_come_from_the_cell_then_config_then_environment():
    env = {"JUPYTER_AGENT_PERMISSIONS": "readonly"}

    def chosen(option, traitlet, environment):
        return AgentConfig.from_magics(magics(permissions=traitlet), environment).turn({"permissions": option}).permissions

    unset = AgentConfig.from_magics(magics(permissions=None), {})
    assert chosen(None, None, {}) == "ask"  # nothing chose: ask (a headless renderer, which cannot ask, denies)
    assert chosen(None, None, env) == "readonly"
    assert chosen(None, None, {"JUPYTER_AGENT_PERMISSIONS": " yolo "}) == "yolo"
    assert chosen(None, "ask", env) == "ask"
    assert chosen("yolo", "ask", env) == "yolo"
    with pytest.raises(ValueError) as error:
        chosen(None, None, {"JUPYTER_AGENT_PERMISSIONS": "YOLO!"})
    assert str(error.value) == (
        "JUPYTER_AGENT_PERMISSIONS='YOLO!' is not a permission mode: "
        "use JUPYTER_AGENT_PERMISSIONS=yolo, readonly or ask (or unset it)"
    )
    assert chosen("ask", None, {"JUPYTER_AGENT_PERMISSIONS": "bad"}) == "ask"  # not consulted
    assert "AgentMagics.permissions = None (not set: JUPYTER_AGENT_PERMISSIONS" in unset.describe()


def test_every_setting_has_its_traitlet_options_and_variable_with_the_declared_default_and_help(ip):
    """One declaration per setting (TurnSettings, KernelSettings): the traitlet, the options and
    the variable are built from it, so none can drift from it."""
    from IPython.core.magic_arguments import parse_argstring

    from jupyter_agent.features.settings import DEFAULT, TurnSettings, declared
    from jupyter_agent.notebook.config import KernelSettings
    from jupyter_agent.notebook.magics import AgentMagics

    magic = ip.find_cell_magic("agent")
    help_text = magic.parser.format_help()
    traits = AgentMagics.class_traits(config=True)
    entries = declared(KernelSettings) + declared(TurnSettings)
    assert {name for name in TurnSettings.model_fields} - {name for name, _info, _setting in entries} == {"data_ceiling"}
    assert set(traits) == {name for name, _info, setting in entries if setting.traitlet}  # no traitlet of its own
    flags = set()
    for name, info, setting in entries:
        default = info.get_default(call_default_factory=True)
        if setting.traitlet:
            trait = traits[name]
            expected = default if setting.unset is DEFAULT else setting.unset
            assert trait.default() == (list(expected) if isinstance(expected, tuple) else expected), name
            assert trait.help == info.description and trait.help, name
        else:
            assert setting.options, f"{name} is set by nothing"
        for item in setting.options:
            flags.update(item.flags)
            assert all(flag in help_text for flag in item.flags), item.flags
            assert item.keywords.get("help") and item.keywords["help"] in " ".join(help_text.split()), item.flags
        if setting.env is not None:
            value = {"permissions": "readonly", "stream_timeout": "12.5"}.get(name, "from-the-variable")
            unset = setting.unset if setting.unset is not DEFAULT else default
            config = AgentConfig.from_magics(magics(**{name: unset}), {setting.env: value})
            assert str(getattr(config, name)) == value, name
            assert getattr(AgentConfig.from_magics(magics(**{name: unset}), {}), name) == default, name
    listed = {word.strip(",[]") for word in help_text.split() if word.startswith(("-", "[-"))}
    assert {flag for flag in listed if flag.startswith("-")} - flags == {"-h", "--help"}
    args = parse_argstring(magic, "-m demo --no-memory --no-delegate --no-wait --append -p yolo")
    assert (args.model, args.memory, args.delegate, args.wait, args.append, args.permissions) == (
        "demo",
        False,
        False,
        False,
        True,
        "yolo",
    )


def test_a_cells_options_win_over_the_configuration_and_unset_ones_leave_it():
    config = AgentConfig.from_magics(magics(memory=True, delegate=True, max_steps=4, replay="auto", tools=["python"]), {})
    chosen = config.turn({"memory": False, "delegate": None, "max_steps": None, "replay": "strict", "tools": None})
    assert (chosen.memory, chosen.delegate, chosen.max_steps, chosen.replay, chosen.tools) == (
        False,
        True,
        4,
        "strict",
        ("python",),
    )
    assert config.turn() == config.turn({})


def test_the_table_the_magics_are_built_from_is_the_declarations():
    """settings.json (read at %load_ext, which imports no pydantic) is made from the declarations:
    regenerate it with ``python -m jupyter_agent.notebook.config > jupyter_agent/notebook/settings.json``."""
    import json
    import pathlib

    import jupyter_agent.notebook.config as config_module
    from jupyter_agent.notebook.config import table

    shipped = pathlib.Path(config_module.__file__).with_name("settings.json")
    assert json.loads(shipped.read_text(encoding="utf-8")) == table()
    assert shipped.read_text(encoding="utf-8") == json.dumps(table(), indent=1, ensure_ascii=False) + "\n"
