"""MCP servers in a real kernel: the demo server (the SDK's MCPServer) over stdio and streamable
HTTP, the model behind the fake provider over HTTP, clicks delivered as JupyterLab delivers them.

One kernel for the module (litellm's import takes seconds); the shutdown test runs last.
"""

import html as html_module
import json
import pathlib
import re
import sys

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.features.mcp.config import load_config
from jupyter_agent.features.mcp.consent import TRUST_FILE, remember
from jupyter_agent.features.mcp.process import is_alive
from jupyter_agent.testing import mcp_demo_server
from jupyter_agent.testing.fake_provider import FakeProvider, call, text, tool_calls
from jupyter_agent.testing.waiting import wait_until_blocking

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "features" / "mcp"))
from mcp_servers import HttpDemo  # noqa: E402

pytestmark = pytest.mark.kernel

FIRST_TURN_TIMEOUT = 90  # the first request waits for litellm's import in the kernel
SECRET = "demo-secret-value-4711"


@pytest.fixture(scope="module")
def provider():
    with FakeProvider() as fake:
        yield fake


@pytest.fixture(scope="module")
def web():
    demo = HttpDemo()
    yield demo
    demo.stop()


@pytest.fixture(scope="module")
def kernel(tmp_path_factory, provider, web):
    folder = tmp_path_factory.mktemp("mcp-kernel")
    demo = {"command": sys.executable, "args": [mcp_demo_server.__file__], "env": {"DEMO_SECRET": SECRET}, "callTimeout": 2}
    (folder / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": demo,
                    "web": {"url": web.url, "headers": {"Authorization": "Bearer web-token-123456"}},
                    "stuck": {"command": sys.executable, "args": [mcp_demo_server.__file__, "--never-start"], "startTimeout": 1},
                }
            }
        )
    )
    user_config = folder / "jupyter-config"
    (user_config / "agent").mkdir(parents=True)
    (user_config / "agent" / "mcp.json").write_text('{"mcpServers": {"user": {"command": "x",}}}')  # malformed
    for server in load_config(folder, folder, None, environ={}, user_file=user_config / "agent" / "mcp.json").servers.values():
        remember(server, user_config / "agent" / TRUST_FILE)  # approved earlier; test_a_new_project_server… asks
    harness = notebook_kernel(folder, model="", notebook_name="mcp.ipynb", env={"JUPYTER_CONFIG_DIR": str(user_config)})
    harness.execute(
        f'%config AgentMagics.model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        f'%config AgentMagics.api_key = "sk-fake-key-0000"\n'
        "from jupyter_agent.features.mcp import registry"
    )
    yield harness
    harness.shutdown()


def plain(html):
    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def tool_names(body):
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def tool_messages(body):
    return [message for message in body["messages"] if message["role"] == "tool"]


def session_text(kernel, name):
    return (kernel.folder / "mcp.agent" / f"{name}.jsonl").read_text()


def test_mcp_tools_reach_the_model_and_read_only_ones_run_without_approval(kernel, provider):
    provider.queue(
        tool_calls(call("mcp__demo__echo", {"text": "over stdio"}), call("mcp__web__echo", {"text": "over http"})),
        text("Both echoed."),
    )
    msg_id, _ = kernel.agent_cell("-s reads", "Echo twice")
    kernel.wait_turn("reads", timeout=FIRST_TURN_TIMEOUT)  # "ask" mode: no click was needed
    first, second = provider.requests[-2:]
    assert {"mcp__demo__echo", "mcp__demo__add_note", "mcp__web__echo"} <= set(tool_names(first))
    echo = next(tool for tool in first["tools"] if tool["function"]["name"] == "mcp__demo__echo")["function"]
    assert echo["parameters"]["properties"]["text"]["type"] == "string" and echo["parameters"]["required"] == ["text"]
    assert [m["content"] for m in tool_messages(second)] == ["echo: over stdio", "echo: over http"]
    assert kernel.evaluate("last_turn('reads').result.reason") == "'completed'"
    shown = plain(kernel.widget_text(msg_id))
    assert "MCP server 'stuck' is unavailable: did not start within 1 s" in shown  # the panel's note
    progress = [parent for parent, text in kernel.panel_updates(msg_id) if "starting MCP servers: demo, stuck, web…" in text]
    assert progress  # a cold start shows its progress, not silence
    user_file = kernel.folder / "jupyter-config" / "agent" / "mcp.json"
    assert f"MCP config {user_file}: invalid JSON at line 1 column 41" in shown  # one line; the rest is used
    assert "echo called" not in kernel.outputs_of(msg_id)  # server stderr goes to its log, not the cell
    assert "echo called with 10 characters" in (kernel.folder / "mcp.agent" / "mcp-demo.log").read_text()


def test_a_mutating_tool_waits_for_approval_naming_server_and_tool(kernel, provider):
    provider.queue(tool_calls(call("mcp__demo__add_note", {"text": "remember"})), text("Noted."))
    msg_id, _ = kernel.agent_cell("-s writes", "Take a note")
    allow = kernel.button(msg_id, "Allow once", timeout=FIRST_TURN_TIMEOUT)
    kernel.wait_for(lambda: "add_note on MCP server demo" in plain(kernel.widget_text(msg_id)), 10, "the approval bar")
    assert kernel.evaluate("turn_done('writes')") == "False" and not tool_messages(provider.requests[-1])
    kernel.click(allow.comm_id)
    kernel.wait_turn("writes")
    assert tool_messages(provider.requests[-1])[0]["content"] == "noted (1 notes): remember"


def test_a_hanging_call_times_out_into_an_error_result_and_a_note(kernel, provider):
    provider.queue(tool_calls(call("mcp__demo__hang", {})), text("It hung."))
    msg_id, _ = kernel.agent_cell("-s hangs -p yolo", "Hang")
    kernel.wait_turn("hangs", timeout=30)
    [result] = tool_messages(provider.requests[-1])
    assert result["content"] == "MCP server 'demo' timed out: no answer from 'hang' within 2 s; the call was cancelled"
    assert kernel.evaluate("unpaired_calls('hangs')") == "[]"
    assert "mcp__demo__hang" in plain(kernel.widget_text(msg_id)) and "timed out" in plain(kernel.widget_text(msg_id))
    assert kernel.evaluate("last_turn('hangs').result.reason") == "'completed'"


def test_a_crash_mid_call_is_an_error_result_and_the_next_turn_restarts_the_server(kernel, provider):
    provider.queue(tool_calls(call("mcp__demo__crash", {}), call("mcp__web__echo", {"text": "still up"})), text("It crashed."))
    msg_id, _ = kernel.agent_cell("-s crashes -p yolo", "Crash it")
    kernel.wait_turn("crashes", timeout=30)
    crashed, web = tool_messages(provider.requests[-1])
    assert crashed["content"] == (
        "MCP server 'demo' crashed while running 'crash' (the server closed the connection); "
        "it did not return a result and starts again at the next turn"
    )
    assert web["content"] == "echo: still up"  # the other server goes on
    assert kernel.evaluate("unpaired_calls('crashes')") == "[]"
    assert "mcp__demo__crash" in plain(kernel.widget_text(msg_id))
    assert kernel.evaluate("registry().get('demo').status") == "'crashed'"
    provider.queue(tool_calls(call("mcp__demo__echo", {"text": "back"})), text("Back."))
    kernel.agent_cell("-s crashes", "Again")
    kernel.wait_turn("crashes", timeout=30)
    assert tool_messages(provider.requests[-1])[-1]["content"] == "echo: back"


def test_a_server_that_never_starts_leaves_a_paired_history_and_a_note(kernel, provider):
    provider.queue(tool_calls(call("mcp__stuck__echo", {"text": "x"})), text("No such tool."))
    msg_id, _ = kernel.agent_cell("-s stuck", "Use the stuck server")
    kernel.wait_turn("stuck", timeout=30)
    assert "mcp__stuck__echo" not in tool_names(provider.requests[-2])
    assert "Tool not found: mcp__stuck__echo" in tool_messages(provider.requests[-1])[0]["content"]
    assert "MCP servers unavailable in this turn" in provider.requests[-2]["messages"][0]["content"]
    assert kernel.evaluate("unpaired_calls('stuck')") == "[]"
    assert "'stuck' is unavailable" in plain(kernel.widget_text(msg_id))


def test_env_and_header_secrets_are_in_neither_the_session_file_nor_the_panel(kernel, provider):
    provider.queue(tool_calls(call("mcp__demo__env", {"variable": "DEMO_SECRET"})), text("Got it."))
    msg_id, _ = kernel.agent_cell("-s secrets", "Read the secret")
    kernel.wait_turn("secrets", timeout=30)
    assert tool_messages(provider.requests[-1])[0]["content"] == "[redacted:demo.env.DEMO_SECRET]"
    recorded = session_text(kernel, "secrets")
    assert SECRET not in recorded and "web-token-123456" not in recorded and "[redacted:demo.env.DEMO_SECRET]" in recorded
    assert SECRET not in kernel.widget_text(msg_id)
    listing = kernel.outputs_of(kernel.execute("%agent mcp").msg_id)
    assert SECRET not in listing and "web-token-123456" not in listing and "env: DEMO_SECRET" in listing


def test_agent_mcp_lists_servers_and_a_servers_tools(kernel):
    listing = kernel.outputs_of(kernel.execute("%agent mcp").msg_id)
    assert "| `demo` | running |" in listing and "| `stuck` | failed |" in listing and "did not start within 1 s" in listing
    tools = kernel.outputs_of(kernel.execute("%agent mcp tools demo").msg_id)
    assert "| `echo` | `mcp__demo__echo` | no (read-only) |" in tools and "| `add_note` | `mcp__demo__add_note` | yes |" in tools
    assert "| `echo` | `mcp__web__echo` |" in kernel.outputs_of(kernel.execute("%agent mcp tools web").msg_id)


def test_no_mcp_and_a_selection(kernel, provider):
    provider.queue(text("No tools from MCP."))
    kernel.agent_cell("-s none --no-mcp", "hi")
    kernel.wait_turn("none")
    assert not [name for name in tool_names(provider.requests[-1]) if name.startswith("mcp__")]
    provider.queue(text("Only web."))
    kernel.agent_cell("-s only --mcp web", "hi")
    kernel.wait_turn("only")
    assert {name for name in tool_names(provider.requests[-1]) if name.startswith("mcp__")} == {
        "mcp__web__echo",
        "mcp__web__env",
        "mcp__web__add_note",
        "mcp__web__fail",
        "mcp__web__crash",
        "mcp__web__hang",
        "mcp__web__picture",
        "mcp__web__document",
        "mcp__web__grow",
    }


def test_restart_replaces_the_process(kernel):
    before = int(kernel.evaluate("registry().get('demo').pid"))
    shown = kernel.outputs_of(kernel.execute("%agent mcp restart demo").msg_id)
    assert "Restarting MCP server `demo`" in shown
    kernel.wait_for(
        lambda: (
            kernel.evaluate("registry().get('demo').status") == "'running'"
            and kernel.evaluate("str(registry().get('demo').pid)") not in ("'None'", f"'{before}'")
        ),
        20,
        "the restart",
    )
    assert not is_alive(before)


def test_a_bad_configured_entry_is_one_line_and_the_turn_runs(kernel, provider):
    kernel.execute('%config AgentMagics.mcp_servers = {"broken": {"args": []}}')
    provider.queue(text("Fine."))
    msg_id, _ = kernel.agent_cell("-s bad-config", "hi")
    kernel.wait_turn("bad-config", timeout=30)
    kernel.execute("%config AgentMagics.mcp_servers = {}")
    assert 'MCP config AgentMagics.mcp_servers: server \'broken\': needs either "command" (stdio) or "url"' in plain(
        kernel.widget_text(msg_id)
    )
    assert "mcp__demo__echo" in tool_names(provider.requests[-1])
    assert kernel.evaluate("last_turn('bad-config').result.reason") == "'completed'"


@pytest.mark.parametrize("allowed", [False, True])
def test_sub_agents_see_mcp_tools_only_when_the_parent_allows(kernel, provider, allowed):
    kernel.execute(f"%config AgentMagics.mcp_subagents = {allowed}")
    provider.queue(tool_calls(call("delegate", {"tasks": ["Echo hi"]})), text("The child's report."), text("Done."))
    kernel.agent_cell(f"--delegate -s delegating-{allowed}", "Delegate it")
    kernel.wait_turn(f"delegating-{allowed}", timeout=30)
    kernel.execute("%config AgentMagics.mcp_subagents = False")
    parent, child = provider.requests[-3], provider.requests[-2]
    assert "delegate" in tool_names(parent) and "delegate" not in tool_names(child)
    child_mcp = {name for name in tool_names(child) if name.startswith("mcp__")}
    if allowed:
        assert "mcp__demo__echo" in child_mcp and "mcp__demo__add_note" not in child_mcp  # read-only ones only
    else:
        assert child_mcp == set()


def test_a_new_project_server_waits_for_consent_and_a_denial_holds(kernel, provider):
    config_file = kernel.folder / ".mcp.json"
    original = config_file.read_text()
    servers = json.loads(original)
    servers["mcpServers"]["fresh"] = {"command": sys.executable, "args": [mcp_demo_server.__file__]}
    config_file.write_text(json.dumps(servers))
    try:
        provider.queue(text("Without fresh."))
        before = len(provider.requests)
        msg_id, _ = kernel.agent_cell("-s consent", "hi")
        deny = kernel.button(msg_id, "Deny", timeout=30)
        kernel.wait_for(
            lambda: f"start the MCP server 'fresh' defined in {config_file}" in plain(kernel.widget_text(msg_id)),
            10,
            "the consent question",
        )
        assert len(provider.requests) == before  # the turn waits for the answer before its first request
        kernel.click(deny.comm_id)
        kernel.wait_turn("consent", timeout=30)
        assert not [name for name in tool_names(provider.requests[-1]) if name.startswith("mcp__fresh__")]
        assert f"MCP server 'fresh' from {config_file} was not started: denied" in plain(kernel.widget_text(msg_id))
        provider.queue(text("Still without."))
        msg_id, _ = kernel.agent_cell("-s consent", "again")
        kernel.wait_turn("consent", timeout=30)  # not asked again in this kernel
        assert "was not started: denied" in plain(kernel.widget_text(msg_id))
    finally:
        config_file.write_text(original)


def test_after_the_kernel_is_killed_no_server_process_is_alive(kernel):
    kernel.execute("import json")
    pids = json.loads(
        json.loads(kernel.evaluate("json.dumps([c.pid for c in registry().connections.values() if c.pid])").replace("'", '"'))
    )
    assert pids and all(is_alive(pid) for pid in pids)
    kernel.shutdown()  # SIGKILL of the kernel: no hook runs, the launcher's PR_SET_PDEATHSIG kills them
    wait_until_blocking(lambda: not any(is_alive(pid) for pid in pids), 10, "the server processes to end", every=0.05)
    assert not [pid for pid in pids if is_alive(pid)]
