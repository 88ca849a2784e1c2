"""The site policy over a turn's settings: it wins over every user setting, in every direction."""

import json
import os

import pytest
from IPython.core.error import UsageError

from jupyter_agent.notebook.config import AgentConfig
from jupyter_agent.notebook.model_resolution import ModelChoice, check_model_name
from jupyter_agent.notebook.site_limits import site_model
from jupyter_agent.session.site_policy import (
    SITE_CONFIG_ENV,
    SITE_POLICY,
    PolicyLocation,
    SitePolicy,
    SitePolicyError,
    load_site_policy,
    parse_site_policy,
)

SITE = {
    "models": {"allowed": ["litellm_proxy/*", "policy-ok"], "default": "litellm_proxy/team-default"},
    "gateway": {"api_base": "https://llm.example.org"},
    "data_policy": {"ceiling": "schema"},
    "permissions": {"ceiling": "readonly"},
    "max_spend": 1.5,
}
POLICY = parse_site_policy(SITE, "/etc/jupyter/jupyter_agent.json")


def test_configured_settings_are_limited():
    config = AgentConfig(data_policy="full", api_base="https://elsewhere.example.com", max_spend=10.0)
    limited = POLICY.apply(config)
    assert (limited.data_policy, limited.api_base, limited.max_spend) == ("schema", "https://llm.example.org", 1.5)
    assert SitePolicy().apply(config) is config
    assert POLICY.apply(config.turn({"permissions": "yolo"})).permissions == "readonly"


def test_the_site_default_model_comes_before_key_detection_ollama_and_the_demo():
    for source in ("OPENAI_API_KEY", "ollama", "default"):
        assert site_model(ModelChoice("whatever", source), POLICY) == ModelChoice("litellm_proxy/team-default", "site policy")
    assert site_model(ModelChoice("litellm_proxy/mine", "environment"), POLICY).name == "litellm_proxy/mine"


def test_a_model_the_site_does_not_allow_names_who_chose_it():
    with pytest.raises(ValueError) as raised:
        site_model(ModelChoice("openai/gpt-4.1-mini", "option"), POLICY)
    assert str(raised.value) == (
        "model 'openai/gpt-4.1-mini' is not allowed by the site policy /etc/jupyter/jupyter_agent.json "
        "(allowed: litellm_proxy/*, policy-ok) (chosen by the cell's -m)"
    )


def start_kernel_with(monkeypatch, value):
    """As if the kernel had been started with JUPYTER_AGENT_SITE_CONFIG=value (the location is bound once)."""
    monkeypatch.setenv(SITE_CONFIG_ENV, value)
    monkeypatch.setattr(SITE_POLICY, "location", PolicyLocation.from_environment({SITE_CONFIG_ENV: value}))


@pytest.fixture
def site_file(tmp_path, monkeypatch):
    path = tmp_path / "jupyter_agent.json"
    path.write_text(json.dumps(SITE))
    start_kernel_with(monkeypatch, str(path))
    return path


def test_agent_model_refuses_what_the_site_does_not_allow(site_file):
    assert check_model_name("openai/gpt-4.1-mini") == (
        f"model 'openai/gpt-4.1-mini' is not allowed by the site policy {site_file} (allowed: litellm_proxy/*, policy-ok)"
    )


def test_a_cell_cannot_exceed_the_site_policy(ip, site_file):
    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

    result = ip.run_cell("%%agent -m openai/gpt-4.1-mini\nhi")
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec).startswith("model 'openai/gpt-4.1-mini' is not allowed by the site policy")
    ip.user_ns["secret_frame"] = {"salary": 123456}
    calls = tool_calls(call("inspect", {"name": "secret_frame"}), call("python", {"code": "site_pwned = 1"}))
    model = ScriptedModel([calls, reply("ok")])
    register_model("policy-ok", model, model.model("policy-ok"))
    try:
        # The cell asks for yolo and the traitlet for full data: the site's readonly and schema win.
        ip.run_cell("%config AgentMagics.data_policy = 'full'")
        assert ip.run_cell("%%agent -m policy-ok -p yolo -s policy\nwhat is in secret_frame?").success
    finally:
        ip.run_cell("%config AgentMagics.data_policy = 'sample'")
        unregister_model("policy-ok")
    inspected, ran = model.requests[1].context.messages[-2:]
    assert "123456" not in inspected.content[0].text and "values are not shown" in inspected.content[0].text
    assert ran.is_error and "site_pwned" not in ip.user_ns


def test_agent_config_shows_the_policy_in_force(ip, capsys, site_file, monkeypatch):
    assert ip.run_cell("%agent config").success
    out = capsys.readouterr().out
    assert (
        f"  site policy: {site_file} (models litellm_proxy/*, policy-ok; default model litellm_proxy/team-default; "
        "gateway https://llm.example.org; data policy at most schema; permissions at most readonly; max_spend at most 1.5 USD)"
    ) in out
    start_kernel_with(monkeypatch, str(site_file.with_name("none.json")))
    assert ip.run_cell("%agent config").success
    assert f"  site policy: none ({site_file.with_name('none.json')} does not exist)" in capsys.readouterr().out


def test_a_change_of_the_variable_in_the_kernel_is_ignored_with_a_note(ip, capsys, site_file, monkeypatch):
    monkeypatch.setenv(SITE_CONFIG_ENV, "")  # a cell that tries to switch the policy off
    assert ip.run_cell("%agent config").success
    out = capsys.readouterr().out
    assert f"  site policy: {site_file} (models litellm_proxy/*" in out
    assert (
        f"    {SITE_CONFIG_ENV} was set to '' in this kernel: ignored. The site policy is read from {site_file}, "
        "as the kernel was started; a change needs a new kernel started with it."
    ) in out


def test_a_broken_policy_file_refuses_turns_and_config_names_the_problem(ip, capsys, tmp_path, monkeypatch):
    path = tmp_path / "site" / "jupyter_agent.json"
    path.parent.mkdir()
    start_kernel_with(monkeypatch, str(path))
    cases = {
        "a dangling symbolic link": (lambda: path.symlink_to(tmp_path / "gone.json"), "it is a symbolic link to nothing"),
        "a link loop": (lambda: path.symlink_to(path), "it is a symbolic link loop"),
        "a folder": (lambda: path.mkdir(), "it is a folder, not a regular file"),
        "a FIFO": (lambda: os.mkfifo(path), "it is a FIFO, not a regular file"),
        "deep JSON": (lambda: path.write_text("[" * 100_000 + "]" * 100_000), "nested too deeply (more than "),
    }
    for make, reason in cases.values():
        make()
        result = ip.run_cell("%%agent -m demo\nhi")
        assert isinstance(result.error_in_exec, UsageError) and f"site policy {path} cannot be read: {reason}" in str(
            result.error_in_exec
        )
        assert ip.run_cell("%agent config").success
        out = capsys.readouterr().out
        assert f"  site policy: site policy {path} cannot be read: {reason}" in out and "RecursionError" not in out
        path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    (tmp_path / "site").rename(tmp_path / "moved")
    (tmp_path / "site").symlink_to(tmp_path / "gone")  # the folder above the file is a link to nothing
    with pytest.raises(SitePolicyError, match=f"cannot be read: {tmp_path / 'site'} is a symbolic link to nothing"):
        load_site_policy()


def test_agent_fix_holds_the_failing_frame_to_the_site_ceiling(ip, site_file, monkeypatch):
    import sys

    magics = ip.find_line_magic("agent").__self__
    started = []
    monkeypatch.setattr(magics, "start_turn", lambda line, cell, mentions=True: started.append(cell))
    monkeypatch.setattr(sys, "last_value", None, raising=False)
    monkeypatch.setattr(sys, "last_traceback", None, raising=False)
    try:
        {}["ZEBRA-4411"]
    except KeyError:
        sys.last_value, sys.last_traceback = sys.exc_info()[1], sys.exc_info()[2]
    ip.run_cell("%config AgentMagics.data_policy = 'full'")
    try:
        assert ip.run_cell("%agent fix").success
    finally:
        ip.run_cell("%config AgentMagics.data_policy = 'sample'")
    assert started and "ZEBRA-4411" not in started[0] and "its message is withheld" in started[0]
