"""Consent for servers of a project's .mcp.json: asked in ask mode, remembered, denied for the kernel."""

import pytest

from jupyter_agent.features.mcp import consent
from jupyter_agent.features.mcp.config import CONFIGURED, ServerConfig

pytestmark = pytest.mark.anyio


def server(name="proj", source="/repo/.mcp.json", args=("--x",)):
    return ServerConfig(name=name, source=source, transport="stdio", command="run-me", args=args, env={"TOKEN": "tok-999999"})


@pytest.fixture(autouse=True)
def fresh_denials(monkeypatch):
    monkeypatch.setattr(consent, "_denied", set())
    monkeypatch.setattr(consent, "_allowed", set())


async def test_allow_once_lasts_for_the_kernel_for_every_project_server(tmp_path):
    asked, problems = [], []
    trust = tmp_path / "mcp-trusted.json"
    servers = [server(name=f"proj{n}", args=(f"--n{n}",)) for n in range(4)]

    def ask(request):
        asked.append(request.tool_name)
        return "once"

    for _ in range(3):  # three turns of the kernel
        allowed = await consent.consented(servers, mode="ask", ask=ask, redact=str, problem=problems.append, trust=trust)
        assert [s.name for s in allowed] == ["proj0", "proj1", "proj2", "proj3"]
    assert asked == ["MCP server proj0", "MCP server proj1", "MCP server proj2", "MCP server proj3"]  # 4 clicks, not 12
    assert problems == [] and not trust.exists()  # once is for this kernel only: nothing is written
    changed = server(name="proj0", args=("--other",))
    await consent.consented([changed], mode="ask", ask=ask, redact=str, problem=problems.append, trust=trust)
    assert asked[-1] == "MCP server proj0"  # a changed entry is asked about again


async def test_ask_mode_asks_and_allow_for_this_session_is_remembered(tmp_path):
    asked, problems = [], []
    trust = tmp_path / "mcp-trusted.json"

    def ask(request):
        asked.append(request)
        return "tool"

    allowed = await consent.consented(
        [server()], mode="ask", ask=ask, redact=lambda t: t.replace("tok-999999", "[r]"), problem=problems.append, trust=trust
    )
    assert [s.name for s in allowed] == ["proj"] and problems == []
    [request] = asked
    assert request.tool_name == "MCP server proj" and request.label == "start the MCP server 'proj' defined in /repo/.mcp.json"
    assert request.args == {"command": "run-me", "args": ["--x"], "with": "env TOKEN"}  # names, never values
    again = await consent.consented(
        [server()], mode="ask", ask=lambda r: pytest.fail("asked twice"), redact=str, problem=problems.append, trust=trust
    )
    assert [s.name for s in again] == ["proj"]
    changed = server(args=("--y",))  # another command is another question
    assert (
        await consent.consented([changed], mode="ask", ask=lambda r: "deny", redact=str, problem=problems.append, trust=trust)
        == []
    )


async def test_a_denial_holds_for_the_kernel_and_readonly_never_starts_one(tmp_path):
    problems = []
    trust = tmp_path / "t.json"
    assert (
        await consent.consented([server()], mode="ask", ask=lambda r: "deny", redact=str, problem=problems.append, trust=trust)
        == []
    )
    assert (
        await consent.consented(
            [server()], mode="ask", ask=lambda r: pytest.fail("asked again"), redact=str, problem=problems.append, trust=trust
        )
        == []
    )
    assert problems == ["MCP server 'proj' from /repo/.mcp.json was not started: denied"] * 2
    problems.clear()
    assert (
        await consent.consented([server("other")], mode="readonly", ask=None, redact=str, problem=problems.append, trust=trust)
        == []
    )
    assert problems == ["MCP server 'other' from /repo/.mcp.json was not started: it needs approval (read-only mode)"]
    assert not trust.exists()


async def test_the_users_own_servers_and_yolo_need_no_question(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path))
    mine = [server("configured", source=CONFIGURED), server("user", source=str(tmp_path / "agent" / "mcp.json"))]
    never = lambda r: pytest.fail("asked")  # noqa: E731
    assert len(await consent.consented(mine, mode="ask", ask=never, redact=str, problem=print, trust=tmp_path / "t")) == 2
    assert len(await consent.consented([server()], mode="yolo", ask=never, redact=str, problem=print, trust=tmp_path / "t")) == 1
