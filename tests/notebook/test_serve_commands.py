"""``%agent serve`` in an in-process shell (no kernel): what it refuses, and how it reads its options."""

import pytest
from IPython.core.error import UsageError

from jupyter_agent.features.mcp_server.view import NO_LOOP, SERVE_TOOLS


def test_without_an_event_loop_serving_is_refused_with_the_reason(ip):
    with pytest.raises(UsageError) as caught:
        ip.run_line_magic("agent", "serve")
    assert str(caught.value) == NO_LOOP


def test_stop_without_a_server_says_so(ip):
    assert ip.run_line_magic("agent", "serve stop").text == "No MCP server is running in this kernel."


def test_the_help_lists_the_options(ip):
    text = " ".join(ip.run_line_magic("agent", "serve --help").text.split())
    assert text.startswith("usage: %agent serve [--port N] [-p {ask,readonly,yolo}] [--tools LIST] [-s NAME] [-h] [stop]")
    assert "(default: the kernel and notebook tools)" in text and "(default: serve)" in text


def test_the_default_tools_are_the_kernel_and_notebook_tools_without_file_tools():
    assert SERVE_TOOLS == ("variables", "inspect", "python", "notebook_read", "notebook_edit", "notebook_run")


def test_the_site_policy_binds_what_is_served(ip, tmp_path, monkeypatch):
    import argparse
    import json

    from jupyter_agent.features.mcp_server.view import serve_options
    from jupyter_agent.session.site_policy import SITE_CONFIG_ENV, SITE_POLICY, PolicyLocation

    site = tmp_path / "jupyter_agent.json"
    site.write_text(json.dumps({"permissions": {"ceiling": "readonly"}, "data_policy": {"ceiling": "schema"}}))
    monkeypatch.setenv(SITE_CONFIG_ENV, str(site))
    monkeypatch.setattr(SITE_POLICY, "location", PolicyLocation.from_environment({SITE_CONFIG_ENV: str(site)}))  # bound
    magics = ip.find_line_magic("agent").__self__
    args = argparse.Namespace(permissions="yolo", tools=None, session=None)
    settings, names, session = serve_options(magics, args)
    assert (settings.permissions, settings.data_policy, session.name) == ("readonly", "schema", "serve")
    site.write_text("{not json")
    with pytest.raises(UsageError, match="site policy .* cannot be read"):
        serve_options(magics, args)
