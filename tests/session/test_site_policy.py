"""The site policy file: parsing, exact errors, and every limit it sets over user choices."""

import json

import pytest

from jupyter_agent.session.site_policy import (
    DEFAULT_SITE_CONFIG,
    SITE_CONFIG_ENV,
    SitePolicy,
    SitePolicyError,
    load_site_policy,
    parse_site_policy,
    site_config_path,
)

SITE = {
    "models": {"allowed": ["litellm_proxy/*"], "default": "litellm_proxy/team-default"},
    "gateway": {"api_base": "https://llm.example.org"},
    "data_policy": {"ceiling": "sample"},
    "permissions": {"ceiling": "ask"},
    "max_spend": 2.0,
    "mcp": {"allowed": ["docs", {"name": "github", "url": "https://mcp.example.org/github"}]},
}


@pytest.fixture
def site_file(tmp_path):
    path = tmp_path / "jupyter_agent.json"
    path.write_text(json.dumps(SITE))
    return path


def test_the_file_is_etc_jupyter_unless_the_variable_names_another(tmp_path):
    assert site_config_path({}) == DEFAULT_SITE_CONFIG
    assert site_config_path({SITE_CONFIG_ENV: str(tmp_path / "x.json")}) == tmp_path / "x.json"
    assert site_config_path({SITE_CONFIG_ENV: ""}) is None
    assert load_site_policy({SITE_CONFIG_ENV: str(tmp_path / "missing.json")}) == SitePolicy()


def test_a_policy_file_is_read(site_file):
    policy = load_site_policy({SITE_CONFIG_ENV: str(site_file)})
    assert policy.active and policy.source == str(site_file)
    assert policy.allowed_models == ("litellm_proxy/*",) and policy.default_model == "litellm_proxy/team-default"
    assert policy.api_base == "https://llm.example.org" and policy.max_spend == 2.0


def test_models_outside_the_allow_list_are_refused(site_file):
    policy = load_site_policy({SITE_CONFIG_ENV: str(site_file)})
    assert policy.model_problem("litellm_proxy/team-model") is None
    assert policy.model_problem("demo") is None  # offline: sends nothing anywhere
    assert policy.model_problem("openai/gpt-4.1-mini") == (
        f"model 'openai/gpt-4.1-mini' is not allowed by the site policy {site_file} (allowed: litellm_proxy/*)"
    )


def test_user_choices_are_lowered_to_the_ceilings():
    policy = parse_site_policy(SITE, "site.json")
    assert [policy.data_policy(mode) for mode in ("schema", "sample", "full")] == ["schema", "sample", "sample"]
    assert [policy.permissions(mode) for mode in ("readonly", "ask", "yolo")] == ["readonly", "ask", "ask"]
    assert (policy.spend(None), policy.spend(5.0), policy.spend(0.5)) == (2.0, 2.0, 0.5)
    unlimited = SitePolicy()
    assert (unlimited.data_policy("full"), unlimited.permissions("yolo"), unlimited.spend(None)) == ("full", "yolo", None)


def test_apply_gives_a_turns_settings_within_the_policy():
    from jupyter_agent.features.settings import TurnSettings

    policy = parse_site_policy(SITE, "site.json")
    chosen = TurnSettings(permissions="yolo", data_policy="full", api_base="http://127.0.0.1:9/v1", max_spend=5.0, memory=True)
    limited = policy.apply(chosen)
    assert isinstance(limited, TurnSettings) and limited.memory  # what the policy does not limit stays
    assert (limited.permissions, limited.data_policy, limited.data_ceiling) == ("ask", "sample", "sample")
    assert (limited.api_base, limited.max_spend) == ("https://llm.example.org", 2.0)
    assert policy.apply(TurnSettings(permissions="readonly", data_policy="schema")).permissions == "readonly"
    assert SitePolicy().apply(chosen) is chosen


def test_mcp_servers_by_name_and_where_given_by_url():
    policy = parse_site_policy(SITE, "site.json")
    assert policy.mcp_problem("docs", "npx docs-server", "") is None
    assert policy.mcp_problem("github", "", "https://mcp.example.org/github") is None
    assert policy.mcp_problem("github", "", "https://evil.example.com/mcp") == (
        "MCP server 'github' is not allowed by the site policy site.json (allowed: docs, github); it is left out"
    )
    assert SitePolicy().mcp_problem("anything", "x", "") is None


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "expected a JSON object"),
        ({"model": {}}, "unknown key 'model' (known: data_policy, gateway, max_spend, mcp, models, permissions)"),
        ({"models": {"allowed": "openai/*"}}, "models.allowed must be a list of model names or patterns (litellm_proxy/*)"),
        (
            {"gateway": {"api_base": "llm.example.org"}},
            "gateway.api_base must be an http:// or https:// URL, got 'llm.example.org'",
        ),
        ({"data_policy": {"ceiling": "some"}}, "data_policy.ceiling must be one of schema, sample, full, got 'some'"),
        ({"permissions": {"ceiling": "all"}}, "permissions.ceiling must be one of readonly, ask, yolo, got 'all'"),
        ({"max_spend": 0}, "max_spend must be a positive number of USD, got 0"),
        ({"mcp": {"allowed": [3]}}, "mcp.allowed entry 3 must be a name or an object with name and command or url"),
        ({"models": {"allowed": ["a/*"], "default": "b/c"}}, "models.default 'b/c' is not in models.allowed"),
    ],
)
def test_a_broken_policy_is_an_exact_error(data, message):
    with pytest.raises(SitePolicyError) as raised:
        parse_site_policy(data, "/etc/jupyter/jupyter_agent.json")
    assert str(raised.value) == f"site policy /etc/jupyter/jupyter_agent.json: {message}"


def test_an_unreadable_file_is_an_error_not_no_policy(tmp_path):
    path = tmp_path / "jupyter_agent.json"
    path.write_text("{not json")
    with pytest.raises(SitePolicyError, match=rf"^site policy {path} cannot be read: Expecting property name"):
        load_site_policy({SITE_CONFIG_ENV: str(path)})


def test_the_location_is_the_one_the_process_started_with_and_binds_once(monkeypatch, tmp_path):
    from jupyter_agent.session.site_policy import PolicyLocation, PolicySource, startup_environment

    monkeypatch.setenv("JUPYTER_AGENT_TEST_SET_LATE", "1")  # as a cell would: not how the process started
    started = startup_environment()
    assert "JUPYTER_AGENT_TEST_SET_LATE" not in started and started["PATH"]
    source = PolicySource()
    first = source.bind({SITE_CONFIG_ENV: str(tmp_path / "site.json")})
    assert first == PolicyLocation(tmp_path / "site.json", str(tmp_path / "site.json"))
    assert source.bind({SITE_CONFIG_ENV: ""}) is first  # the first binding wins
    assert first.change_note({SITE_CONFIG_ENV: str(tmp_path / "site.json")}) == ""
    assert first.change_note({}) == (
        f"{SITE_CONFIG_ENV} was unset in this kernel: ignored. The site policy is read from {tmp_path / 'site.json'}, "
        "as the kernel was started; a change needs a new kernel started with it."
    )
    assert PolicyLocation.from_environment({}) == PolicyLocation(DEFAULT_SITE_CONFIG)
    assert PolicyLocation.from_environment({SITE_CONFIG_ENV: " "}).path is None


def test_a_file_the_kernel_may_not_read_is_a_broken_policy_not_no_policy(tmp_path, monkeypatch):
    import errno
    import os

    path = tmp_path / "jupyter_agent.json"
    path.write_text(json.dumps(SITE))
    os.chmod(path, 0)
    real_open = os.open

    def as_an_unprivileged_user(file, flags, *args, **kwargs):
        # chmod 0 does not stop root (this sandbox); a user's kernel gets EACCES here.
        if os.fspath(file) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", as_an_unprivileged_user)
    with pytest.raises(SitePolicyError) as refused:
        load_site_policy({SITE_CONFIG_ENV: str(path)})
    assert str(refused.value) == f"site policy {path} cannot be read: Permission denied"
