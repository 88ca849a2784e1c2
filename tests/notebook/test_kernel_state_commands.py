"""Namespace diff, undo and replay through the magics, in an in-process shell with scripted models."""

import os

import pytest

from jupyter_agent.notebook.model_resolution import register_model, unregister_model
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls


@pytest.fixture
def script():
    names = []

    def register(name, *responses):
        model = ScriptedModel(list(responses))
        register_model(name, model, model.model(name))
        names.append(name)
        return model

    yield register
    for name in names:
        unregister_model(name)


def cell(ip, options, prompt):
    result = ip.run_cell(f"%%agent {options}\n{prompt}")
    assert result.success, result.error_in_exec


def test_diff_and_undo_cover_variables_and_files_of_one_step(ip, script):
    ip.user_ns.update(b=5, tmp=1)
    code = "a = 1; b = 99; del tmp\nopen('out.txt', 'w').write('x')"
    script(
        "ns-writer",
        tool_calls(call("python", {"code": code}), call("write", {"path": "made.txt", "content": "hi\n"})),
        reply("ok"),
    )
    cell(ip, "-m ns-writer -p yolo -s ns-undo", "Change things")
    diff = ip.run_line_magic("agent", "diff -s ns-undo")
    assert "- step 1: `+ a (int)`, `~ b (int)`, `− tmp`" in diff.markdown and "**created**" in diff.markdown
    report = ip.run_line_magic("agent", "undo").markdown
    assert report.startswith("Restored step 1:\n- `") and "made.txt`" in report
    assert "- variable `a`: removed (the step added it)" in report
    assert "a" not in ip.user_ns and ip.user_ns["b"] == 5 and ip.user_ns["tmp"] == 1
    assert not os.path.exists("made.txt")
    assert ip.run_line_magic("agent", "undo").markdown == "Nothing to undo."


def test_undo_refuses_and_names_a_variable_the_user_changed(ip, script):
    ip.user_ns["b"] = 5
    script("ns-rebind", tool_calls(call("python", {"code": "b = 99"})), reply("ok"))
    cell(ip, "-m ns-rebind -p yolo -s ns-refuse", "Rebind b")
    ip.user_ns["b"] = 7
    report = ip.run_line_magic("agent", "undo").markdown
    assert (
        report
        == "Nothing restored: these variables changed since the agent's step 1:\n- `b`: assigned again since the agent's step"
    )
    assert ip.user_ns["b"] == 7


def test_replay_runs_the_recorded_python_again_without_the_model(ip, script):
    model = script("ns-live", tool_calls(call("python", {"code": "made = 6 * 7"})), reply("made is 42."))
    cell(ip, "-m ns-live -p yolo -s ns-replay", "Make a value")
    del ip.user_ns["made"]
    cell(ip, "-m ns-live --replay -s ns-replay", "Make a value")
    assert ip.user_ns["made"] == 42 and len(model.requests) == 2  # no third request
    session = ip.find_line_magic("agent").__self__.sessions.get("ns-replay")
    assert len(session.store.history()) == 4  # the replay adds nothing to the recording


def test_a_recorded_denial_is_denied_again_and_other_tools_replay_their_results(ip, script):
    script(
        "ns-denied",
        tool_calls(call("python", {"code": "secret = 1"}), call("write", {"path": "replayed.txt", "content": "w\n"})),
        reply("done"),
    )
    ip.run_cell("%config AgentMagics.permissions = 'readonly'")
    try:
        cell(ip, "-m ns-denied -s ns-deny", "Try")
    finally:
        ip.run_cell("%config AgentMagics.permissions = None")
    cell(ip, "-m ns-denied --replay -p yolo -s ns-deny", "Try")
    assert "secret" not in ip.user_ns and not os.path.exists("replayed.txt")  # both were denied when recorded


def test_writes_replay_only_with_yolo(ip, script):
    script("ns-write", tool_calls(call("write", {"path": "again.txt", "content": "w\n"})), reply("written"))
    cell(ip, "-m ns-write -p yolo -s ns-yolo", "Write")
    os.remove("again.txt")
    cell(ip, "-m ns-write --replay -s ns-yolo", "Write")
    assert not os.path.exists("again.txt")
    cell(ip, "-m ns-write --replay -p yolo -s ns-yolo", "Write")
    assert open("again.txt").read() == "w\n"


def test_strict_replay_of_an_unrecorded_prompt_fails_and_auto_runs_live(ip, script, capsys):
    model = script("ns-auto", reply("live answer"))
    cell(ip, "-m ns-auto --replay=strict -s ns-strict", "Never recorded")
    assert "--replay=strict: No recorded turn of session 'ns-strict' has this prompt: nothing was run." in capsys.readouterr().out
    assert model.requests == []
    ip.run_cell("%config AgentMagics.replay = 'auto'")
    try:
        cell(ip, "-m ns-auto -s ns-strict", "Never recorded")
    finally:
        ip.run_cell("%config AgentMagics.replay = 'off'")
    assert len(model.requests) == 1
