"""``%agent SUBCOMMAND`` in an in-process IPython shell: errors, reports, sessions and branches."""

import pytest


def error_of(ip, code):
    result = ip.run_cell(code)
    assert not result.success
    return result.error_in_exec


def test_unknown_subcommand_names_the_subcommands(ip):
    error = error_of(ip, "%agent frobnicate")
    assert str(error).startswith("unknown subcommand 'frobnicate'\nusage: %agent sessions | usage")


def test_subcommand_argument_errors(ip):
    assert "needs a message" in str(error_of(ip, "%agent steer"))
    assert "no agent turn is running" in str(error_of(ip, "%agent steer go left"))
    assert "takes a step number" in str(error_of(ip, "%agent undo last"))
    assert "unexpected argument" in str(error_of(ip, "%agent usage extra"))


def test_config_shows_settings_but_never_the_key(ip):
    ip.run_cell('%config AgentMagics.api_key = "sk-secret-123"')
    ip.run_cell('%config AgentMagics.model = "demo"')
    try:
        report = ip.run_line_magic("agent", "config")
        assert "sk-secret-123" not in report.text and "AgentMagics.api_key (set)" in report.text
        assert "model in use: demo (from configuration)" in report.text
    finally:
        ip.run_cell('%config AgentMagics.api_key = ""')
        ip.run_cell('%config AgentMagics.model = ""')


def test_model_subcommand_sets_the_sessions_model(ip):
    assert "now uses `openai/gpt-4.1-mini`" in ip.run_line_magic("agent", "model openai/gpt-4.1-mini").markdown
    assert ip.run_line_magic("agent", "model").markdown == "Model: `openai/gpt-4.1-mini` (from session)."
    ip.run_line_magic("agent", "model demo")


def test_empty_session_reports(ip):
    assert "No sessions yet" in ip.run_line_magic("agent", "sessions").markdown
    assert "is empty" in ip.run_line_magic("agent", "history").markdown
    assert "not changed any file" in ip.run_line_magic("agent", "diff").markdown
    assert "Nothing is running" in ip.run_line_magic("agent", "stop").markdown
    assert "help" in repr(ip.run_line_magic("agent", "help"))


@pytest.fixture
def scripted_model(ip):
    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

    model = ScriptedModel(
        [
            tool_calls(call("python", {"code": "print('hi')"})),
            reply("First answer."),
            reply("Second answer."),
            reply("Branch answer."),
        ]
    )
    register_model("scripted", model, model.model("scripted"))
    yield model
    unregister_model("scripted")


def test_turns_new_sessions_branches_and_the_reports(ip, scripted_model, capsys):
    # Terminal IPython runs the turn in the foreground; readonly denies the python call.
    assert ip.run_cell("%%agent -m scripted -p readonly -s notes\nFirst question").success
    assert "First answer." in capsys.readouterr().out
    history = ip.run_line_magic("agent", "history -s notes")
    assert "**You:** First question" in history.markdown and "→ `python`" in history.markdown
    assert "denied (read-only mode)" in history.markdown
    assert "messages 0" not in ip.run_line_magic("agent", "usage -s notes").text

    assert ip.run_cell("%%agent -m scripted --new -s notes\nFresh start").success
    assert ip.run_line_magic("agent", "sessions").markdown.count("(current)") == 1
    assert "notes-2 (current)" in ip.run_line_magic("agent", "sessions").markdown
    assert [m.role for m in scripted_model.requests[2].context.messages] == ["user"]  # a fresh transcript

    assert ip.run_cell("%%agent -m scripted --branch idea\nWhat if?").success
    assert [m.role for m in scripted_model.requests[3].context.messages] == ["user", "assistant", "user"]
    assert "idea (current)" in ip.run_line_magic("agent", "sessions").markdown
    ip.run_cell("%%agent -m scripted --branch idea\nagain")
    assert "already exists" in str(ip.run_cell("%%agent -m scripted --branch idea\nagain").error_in_exec)


def test_diff_and_undo_of_what_the_agent_wrote(ip, tmp_path):
    import os

    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

    target = os.path.join(os.getcwd(), "report.md")
    model = ScriptedModel([tool_calls(call("write", {"path": "report.md", "content": "# Findings\n"})), reply("Written.")])
    register_model("writer", model, model.model("writer"))
    try:
        assert ip.run_cell("%%agent -m writer -p yolo -s files\nWrite a report").success
    finally:
        unregister_model("writer")
    assert open(target).read() == "# Findings\n"
    diff = ip.run_line_magic("agent", "diff -s files")
    assert "**created**" in diff.markdown and "+# Findings" in diff.markdown
    assert "Restored step 1" in ip.run_line_magic("agent", "undo").markdown
    assert not os.path.exists(target)


def test_session_file_moves_the_kernels_sessions(ip, tmp_path):
    sessions = ip.find_line_magic("agent").__self__.sessions
    target = tmp_path / "report.agent" / "nightly.jsonl"
    try:
        report = ip.run_line_magic("agent", f"session-file {target}")
        assert report.text == f"Sessions of this kernel now go to {target.parent}; the current one is nightly ({target})."
        assert ip.run_line_magic("agent", "session-file").text == f"Session nightly: {target}"
        assert f"session: nightly ({target})" in ip.run_line_magic("agent", "config").text
        assert "a session file ends in .jsonl" in str(error_of(ip, "%agent session-file notes.txt"))
        assert "takes one path" in str(error_of(ip, "%agent session-file a.jsonl b.jsonl"))
    finally:
        sessions.chosen_folder = None
        sessions.last_used = None


def test_undo_of_a_notebook_edit_needs_the_extension_and_keeps_the_edit_for_later(ip):
    from jupyter_agent.features.notebook_tools import NotebookEdit, NotebookEditLog

    magics = ip.find_line_magic("agent").__self__
    session = magics.sessions.get("edits")
    magics.sessions.last_used = "edits"
    log = NotebookEditLog.for_session(session.path)
    log.record(NotebookEdit(step=3, op="replace", cell_id="c1", index=0, before={"source": "x = 1"}, after=None))
    report = ip.run_line_magic("agent", "undo")
    assert report.markdown.startswith("Nothing reverted: undoing notebook edits needs the JupyterLab extension")
    assert [edit.step for edit in log.edits()] == [3]  # still there for a connected frontend


def test_every_subcommand_has_its_own_help(ip):
    from jupyter_agent.notebook.subcommands import SUBCOMMANDS

    for name in SUBCOMMANDS.subcommands:
        report = ip.run_line_magic("agent", f"{name} --help")
        assert report.text.startswith(f"usage: %agent {name}"), name
        assert ip.run_line_magic("agent", f"help {name}").text == report.text
    assert "-s NAME, --session NAME" in ip.run_line_magic("agent", "usage -h").text
    assert "STEP" in ip.run_line_magic("agent", "undo --help").text


def test_a_bad_argument_gives_the_subcommands_usage_not_a_traceback(ip):
    error = error_of(ip, "%agent usage -s")
    assert str(error) == (
        "argument -s/--session: expected one argument\nusage: %agent usage [-s NAME] [-h]\nSee %agent usage --help."
    )
    assert str(error_of(ip, "%agent follow-up")).startswith("%agent follow-up needs a message\nusage: %agent follow-up")
    assert "No closing quotation" in str(error_of(ip, "%agent history -s 'open"))
    assert str(error_of(ip, "%agent materialize a b")).startswith("unexpected argument 'b'\nusage: %agent materialize")


def test_model_subcommand_refuses_a_name_litellm_cannot_route(ip):
    from IPython.core.error import UsageError

    ip.run_line_magic("agent", "model demo")
    error = ip.run_cell("%agent model nonexistent/model").error_in_exec
    assert isinstance(error, UsageError)
    assert str(error) == (
        "unknown model 'nonexistent/model': litellm has no provider 'nonexistent'; "
        "see https://docs.litellm.ai/docs/providers\nThe session keeps its model."
    )
    assert ip.run_line_magic("agent", "model").markdown == "Model: `demo` (from session)."


def test_history_keeps_fenced_blocks_whole_where_it_cuts_them(ip, capsys):
    """A long answer cut inside its code fence, and outputs holding backticks, still read as Markdown."""
    import mistune

    from jupyter_agent.notebook.model_resolution import register_model, unregister_model
    from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls

    answer = "Here it is:\n\n```text\n" + "\n".join(f"row {n}" for n in range(20)) + "\n```\n\nThat is all."
    model = ScriptedModel([tool_calls(call("python", {"code": "print('```')"})), reply(answer)])
    register_model("fences", model, model.model("fences"))
    try:
        assert ip.run_cell("%%agent -m fences -p yolo -s fences\nShow the rows").success
        capsys.readouterr()
        history = ip.run_line_magic("agent", "history -s fences").markdown
    finally:
        unregister_model("fences")
    assert "ʼʼʼ" not in history and "print('```')" in history
    html = mistune.html(history)
    # The cut answer's fence is closed: what follows it is Markdown again, not more code.
    assert html.count("<pre>") == 3 and "more lines)" in html.rsplit("</pre>", 1)[1]


def test_diff_lists_the_notebook_edits_that_undo_would_revert(ip):
    from jupyter_agent.features.notebook_tools import NotebookEdit, NotebookEditLog

    magics = ip.find_line_magic("agent").__self__
    session = magics.sessions.get("cell-edits")
    magics.sessions.last_used = "cell-edits"
    log = NotebookEditLog.for_session(session.path)
    before, after = {"source": "df = load()\ndf.head()"}, {"source": "df = load()\ndf.tail()"}
    log.record(NotebookEdit(step=2, op="replace", cell_id="7eb47f37", index=3, before=before, after=after))
    report = ip.run_line_magic("agent", "diff")
    assert "has not changed" not in report.markdown
    assert "- step 2: replace of cell 3 (`7eb47f37`)" in report.markdown
    assert "--- cell 3 (before)\n+++ cell 3 (after)" in report.markdown and "-df.head()\n+df.tail()" in report.markdown
    log.take_step(2)  # what %agent undo does with a connected notebook
    assert "has not changed any file, variable or notebook cell" in ip.run_line_magic("agent", "diff").markdown
