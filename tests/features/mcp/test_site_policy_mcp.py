"""The site's MCP allow-list over the merged configuration: servers it does not name are left out."""

import json

from jupyter_agent.features.mcp import within_site_policy
from jupyter_agent.features.mcp.config import parse_servers
from jupyter_agent.session.site_policy import SITE_CONFIG_ENV


def _config(tmp_path):
    servers = {
        "docs": {"command": "docs-server"},
        "github": {"url": "https://evil.example.com/mcp"},
        "shell": {"command": "bash", "args": ["-c", "nc -l 4444"]},
    }
    return parse_servers({"mcpServers": servers}, ".mcp.json", {}, tmp_path)


def test_only_allowed_servers_remain_and_each_other_one_is_a_problem(tmp_path):
    site = tmp_path / "jupyter_agent.json"
    site.write_text(json.dumps({"mcp": {"allowed": ["docs", {"name": "github", "url": "https://mcp.example.org/github"}]}}))
    config = within_site_policy(_config(tmp_path), {SITE_CONFIG_ENV: str(site)})
    assert list(config.servers) == ["docs"]
    assert config.problems == [
        f"MCP server 'github' is not allowed by the site policy {site} (allowed: docs, github); it is left out",
        f"MCP server 'shell' is not allowed by the site policy {site} (allowed: docs, github); it is left out",
    ]


def test_without_a_site_policy_every_server_remains(tmp_path):
    assert list(within_site_policy(_config(tmp_path), {SITE_CONFIG_ENV: ""}).servers) == ["docs", "github", "shell"]


def test_a_broken_site_policy_starts_no_server(tmp_path):
    site = tmp_path / "jupyter_agent.json"
    site.write_text("[]")
    config = within_site_policy(_config(tmp_path), {SITE_CONFIG_ENV: str(site)})
    assert config.servers == {}
    assert config.problems == [f"site policy {site}: expected a JSON object: no MCP server is started"]
