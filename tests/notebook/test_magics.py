"""%%agent in an in-process IPython shell: option parsing, errors, help, reloading."""

import pytest
from IPython.core.error import UsageError


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
    for option in ("--model", "--session", "--new", "--branch", "--permissions", "--max-steps",
                   "--max-spend", "--tools", "--wait", "--no-wait"):
        assert option in out


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
