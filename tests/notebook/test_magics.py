"""%%agent in an in-process IPython shell: option parsing, errors, help, reloading; the cell transformer."""

import pathlib
from types import SimpleNamespace

from IPython.core.async_helpers import _asyncio_runner
from IPython.core.error import UsageError

from jupyter_agent.notebook.magics import CellTransformer


def error_of(ip, code):
    result = ip.run_cell(code)
    assert not result.success
    return result.error_in_exec


def test_bad_options_give_a_short_error_with_the_usage(ip):
    error = error_of(ip, "%%agent --bogus\nhello")
    assert isinstance(error, UsageError)
    assert str(error).startswith("unrecognized arguments: --bogus\nusage: %%agent [-m MODEL]")
    assert str(error).endswith("See %%agent --help.")
    assert isinstance(error_of(ip, "%%agent -p sometimes\nhi"), UsageError)
    assert isinstance(error_of(ip, "%%agent --max-steps many\nhi"), UsageError)
    assert str(error_of(ip, "%%agent --max-steps 0\nhi")).startswith("--max-steps must be at least 1, got 0")
    assert str(error_of(ip, "%%agent --max-spend -1\nhi")).startswith("--max-spend must be a positive amount")


def test_an_empty_prompt_is_a_usage_error(ip):
    assert "needs a prompt" in str(error_of(ip, "%%agent\n   \n"))


def test_unknown_tools_and_bad_session_names_are_usage_errors(ip):
    assert "unknown tool(s): shovel" in str(error_of(ip, "%%agent --tools python,shovel\nhi"))
    assert "invalid session name" in str(error_of(ip, "%%agent -s ../escape\nhi"))


def test_help_lists_every_option(ip, capsys):
    assert ip.run_cell("%%agent --help\nignored").success
    out = capsys.readouterr().out
    assert out.startswith("usage: %%agent")
    for option in (
        "--model",
        "--session",
        "--new",
        "--branch",
        "--permissions",
        "--max-steps",
        "--max-spend",
        "--tools",
        "--wait",
        "--no-wait",
        "--memory",
        "--no-memory",
        "--delegate",
        "--no-delegate",
    ):
        assert option in out


def test_help_alone_in_the_cell_prints_the_help(ip, capsys, monkeypatch):
    # As in JupyterLab: a kernel with a server session, where the cell does not wait for the turn.
    monkeypatch.setattr(ip, "kernel", object(), raising=False)
    monkeypatch.setitem(ip.user_ns, "__session__", "/x/analysis.ipynb")
    for cell in ("%%agent --help", "%%agent -h\n\n"):
        assert ip.run_cell(cell).success
        assert capsys.readouterr().out.startswith("usage: %%agent")


def test_a_cell_without_a_prompt_says_what_is_missing(ip):
    assert "%%agent needs a prompt" in str(error_of(ip, "%%agent -m demo"))


def test_reload_does_not_stack_transformers(ip):
    ip.run_cell("%reload_ext jupyter_agent")
    names = [type(t).__name__ for t in ip.input_transformers_cleanup]
    assert names.count("CellTransformer") == 1


def test_a_session_another_writer_holds_is_a_short_error(ip):
    import pathlib

    from jupyter_agent.messages import UserMessage
    from jupyter_agent.session import SessionStore

    holder = SessionStore(pathlib.Path.cwd() / "ipython.agent" / "held.jsonl")  # e.g. another kernel
    holder.append(UserMessage(content="mine"))
    try:
        error = error_of(ip, "%%agent -s held\nhello")
        assert isinstance(error, UsageError) and "already open for writing" in str(error)
    finally:
        holder.close()


def test_memory_and_delegation_follow_the_traitlets_unless_a_cell_says_otherwise(ip, capsys):
    import json

    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.testing.scripted import ScriptedModel, reply

    fact = {"memories": [{"name": "colors", "summary": "The user likes green plots", "content": "Plot in green."}]}
    model = ScriptedModel([reply("Noted."), reply(json.dumps(fact)), reply("Not remembered."), reply("Plain.")])
    register_model("traits", model, model.model("traits"))
    ip.run_cell("%config AgentMagics.memory = True")
    ip.run_cell("%config AgentMagics.delegate = True")
    try:
        assert ip.run_cell("%%agent -m traits -s traits\nI like green plots").success
        assert ip.run_cell("%%agent -m traits -s traits --no-memory --no-delegate\nAnd now?").success
    finally:
        ip.run_cell("%config AgentMagics.memory = False")
        ip.run_cell("%config AgentMagics.delegate = False")
        unregister_model("traits")
    tools = [[tool.name for tool in request.context.tools] for request in model.requests]
    assert "memory" in tools[0] and "delegate" in tools[0]
    assert "memory" not in tools[2] and "delegate" not in tools[2] and len(model.requests) == 3
    assert "colors: The user likes green plots" in ip.run_line_magic("agent", "memory").text
    assert "memory created: colors" in capsys.readouterr().out  # the terminal renderer says what it saved
    ip.run_line_magic("agent", "memory delete colors")


def test_the_permissions_environment_variable_applies_interactively_below_config(ip, monkeypatch, tmp_path):
    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

    def writer(name, target):
        model = ScriptedModel([tool_calls(call("write", {"path": str(target), "content": "x"})), reply("ok")])
        register_model(name, model, model.model(name))

    monkeypatch.setenv("JUPYTER_AGENT_PERMISSIONS", "yolo")
    allowed, denied = pathlib.Path.cwd() / "env-allowed.txt", pathlib.Path.cwd() / "config-denied.txt"
    writer("env-writer", allowed)
    writer("config-writer", denied)
    try:
        assert ip.run_cell("%%agent -m env-writer -s env-perm\nWrite").success
        ip.run_cell('%config AgentMagics.permissions = "readonly"')
        assert ip.run_cell("%%agent -m config-writer -s config-perm\nWrite").success
    finally:
        ip.run_cell("%config AgentMagics.permissions = None")
        unregister_model("env-writer")
        unregister_model("config-writer")
    assert allowed.read_text() == "x" and not denied.exists()
    monkeypatch.setenv("JUPYTER_AGENT_PERMISSIONS", "sometimes")
    assert "JUPYTER_AGENT_PERMISSIONS='sometimes' is not a permission mode" in str(error_of(ip, "%%agent\nhi"))


def test_a_cell_model_litellm_cannot_route_is_said_before_any_request(ip, capsys):
    assert ip.run_cell("%%agent -m nonexistent/model -s unknown-model\nhi").success
    out = capsys.readouterr().out
    assert (
        "error: unknown model 'nonexistent/model': litellm has no provider 'nonexistent'; "
        "see https://docs.litellm.ai/docs/providers (chosen by the cell's -m)"
    ) in out


def test_no_api_key_is_said_as_such_in_a_notebook(ip, capsys, monkeypatch):
    for name in ("OPENAI_API_KEY", "JUPYTER_AGENT_API_KEY", "JUPYTER_AGENT_API_BASE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    assert ip.run_cell("%%agent -m openai/gpt-4.1-mini -s no-key\nhi").success
    out = capsys.readouterr().out
    assert "no API key for openai: set OPENAI_API_KEY or %config AgentMagics.api_key" in out
    assert "server error" not in out


# -- the cell transformer ------------------------------------------------------------------
def fake_shell(kind="panel", autoawait=True):
    user_ns = {"__session__": "/x/a.ipynb"} if kind == "panel" else {}
    fake = SimpleNamespace(user_ns=user_ns, autoawait=autoawait, loop_runner=_asyncio_runner)
    if kind != "terminal":
        fake.kernel = object()
    return fake


def transformer(kind="panel", wait=False, autoawait=True):
    return CellTransformer(fake_shell(kind, autoawait), SimpleNamespace(wait=wait, raise_on_error="auto"))


def test_a_background_cell_is_left_to_the_magic():
    lines = ["%%agent -m demo\n", "hello\n"]
    assert transformer("panel")(lines) == lines


def test_a_waiting_cell_awaits_the_magic():
    lines = ["%%agent --wait -s other\n", "hello\n", "world\n"]
    assert transformer("panel")(lines) == [
        "await get_ipython().find_cell_magic('agent').__self__.run_blocking('--wait -s other', 'hello\\nworld\\n')\n"
    ]
    assert transformer("static")(["%%agent\n", "hi\n"])[0].startswith("await ")
    assert transformer("panel", wait=True)(["%%agent\n", "hi\n"])[0].startswith("await ")


def test_wait_lines_await_and_other_lines_stay():
    lines = ["x = 1\n", "%agent wait\n", "  %agent wait\n", "%agent waiting\n", "%agent wait -s b"]
    assert transformer()(lines) == [
        "x = 1\n",
        "await get_ipython().find_line_magic('agent').__self__.wait_async('')\n",
        "  %agent wait\n",
        "%agent waiting\n",
        "await get_ipython().find_line_magic('agent').__self__.wait_async('-s b')",
    ]


def test_nothing_is_rewritten_without_autoawait_or_inside_other_cell_magics():
    assert transformer(autoawait=False)(["%agent wait\n"]) == ["%agent wait\n"]
    assert transformer()(["%%time\n", "%agent wait\n"]) == ["%%time\n", "%agent wait\n"]
    assert transformer("static")(["%%agentx\n", "hi\n"]) == ["%%agentx\n", "hi\n"]


def test_a_bodiless_agent_cell_reaches_the_magic_even_without_autoawait():
    expected = ["get_ipython().find_cell_magic('agent')('--help', '')\n"]
    assert transformer("panel")(["%%agent --help"]) == expected
    assert transformer("panel", autoawait=False)(["%%agent --help\n", "  \n"]) == expected
    assert transformer("static")(["%%agent\n"]) == ["get_ipython().find_cell_magic('agent')('', '')\n"]
