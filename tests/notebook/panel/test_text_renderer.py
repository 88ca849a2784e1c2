import io

import pytest

from jupyter_agent.notebook.panel.text_renderer import TextRenderer


def renderer_with(answers=()):
    out = io.StringIO()
    pending = list(answers)
    prompts = []

    def fake_input(prompt):
        prompts.append(prompt)
        if not pending:
            raise EOFError
        return pending.pop(0)

    return TextRenderer(model_label="gpt-x", stream=out, input_fn=fake_input), out, prompts


def test_text_streams_as_it_comes(kit):
    renderer, out, _ = renderer_with()
    renderer.handle(kit.event("text_delta", delta="Hel"))
    assert out.getvalue() == "Hel"
    renderer.handle(kit.event("text_delta", delta="lo"))
    assert out.getvalue() == "Hello"
    renderer.handle(kit.event("tool_call", tool_call_id="c", name="python", args={"code": "1+1"}))
    lines = "".join([f"{i}\n" for i in range(30)])
    renderer.handle(
        kit.event("tool_result", tool_call_id="c", name="python", content=[kit.text(lines), kit.image()], is_error=False)
    )
    renderer.handle(kit.event("finish", reason="max_steps", text="", usage=kit.usage(10, 2)))
    text = out.getvalue()
    assert text.startswith("Hello\n▸ python 1+1\n  ✓ python\n  │ 0\n")
    assert "  │ … 10 more lines" in text and "[1 image(s) not shown in a terminal]" in text
    assert "done — step limit reached" in text and "\x1b[" not in text  # no colors off a tty


@pytest.mark.anyio
@pytest.mark.parametrize(("answer", "decision"), [("y", "once"), ("a", "tool"), ("A", "call"), ("n", "deny")])
async def test_prompt_answers(kit, answer, decision):
    renderer, out, prompts = renderer_with([answer])
    request = kit.event("request", tool_name="bash", args={"command": "make clean"}, label="bash")
    assert await renderer.ask(request) == decision
    assert prompts[0].startswith("allow bash? [y/n/a/A]")
    assert "bash wants to run" in out.getvalue() and "make clean" in out.getvalue()


@pytest.mark.anyio
async def test_a_complete_preview_is_what_the_terminal_asks_about(kit):
    from jupyter_agent.loop import ApprovalPreview
    from jupyter_agent.runtime.permissions import ApprovalRequest

    renderer, out, _ = renderer_with(["n"])
    preview = ApprovalPreview("--- cell c1 (before)\n+++ cell c1 (after)\n-x = 1\n+x = 2", kind="diff", complete=True)
    args = {"op": "replace", "cell_id": "c1", "source": "x = 2 # ARGS-MARKER"}
    assert await renderer.ask(ApprovalRequest("notebook_edit", args, "notebook_edit", preview=preview)) == "deny"
    assert "  -x = 1\n  +x = 2\n" in out.getvalue() and "ARGS-MARKER" not in out.getvalue()
    partial, shown, _ = renderer_with(["n"])
    await partial.ask(ApprovalRequest("notebook_edit", args, "notebook_edit", preview=ApprovalPreview("cell [3]")))
    assert "  cell [3]\n" in shown.getvalue() and "ARGS-MARKER" in shown.getvalue()


@pytest.mark.anyio
async def test_other_answers_ask_again_and_end_of_input_denies(kit):
    renderer, out, prompts = renderer_with(["yes", "", "a"])
    request = kit.event("request", tool_name="bash", args={}, label="bash")
    assert await renderer.ask(request) == "tool"
    assert len(prompts) == 3 and out.getvalue().count("please answer y, n, a or A") == 2
    silent, _, _ = renderer_with([])
    assert await silent.ask(request) == "deny"


def test_messages_notes_and_errors(kit):
    renderer, out, _ = renderer_with()
    renderer.handle(kit.event("thinking_delta", delta="hmm"))
    renderer.handle(kit.event("user_message", text="faster", delivery="steer", phase="queued"))
    renderer.handle(kit.event("user_message", text="faster", delivery="steer", phase="delivered"))
    renderer.set_state("waiting")
    renderer.show_error("boom")
    assert out.getvalue() == (
        "thinking: hmm\n(queued steer: faster)\n» you (steer): faster\n(waiting for the turn above)\nerror: boom\n"
    )


def test_terminal_renderer_does_not_import_ipywidgets():
    import subprocess
    import sys

    code = "import sys; from jupyter_agent.notebook.panel import TextRenderer; print('ipywidgets' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_a_malformed_event_is_reported_not_raised(kit):
    renderer, out, _ = renderer_with()
    renderer.handle(kit.malformed("tool_result"))
    assert out.getvalue().startswith("error: could not show a tool_result event: AttributeError")


def test_plan_memory_sub_agents_and_model(kit, tmp_path):
    from jupyter_agent.features.delegation.feature import ChildEvent
    from jupyter_agent.features.memory.feature import MemorySavedEvent
    from jupyter_agent.features.memory.store import MemoryStore
    from jupyter_agent.features.plan.feature import PlanChangedEvent
    from jupyter_agent.features.plan.state import PlanState

    renderer, out, _ = renderer_with()
    renderer.set_model("gpt-y", 1000)
    assert renderer.status.model_label == "gpt-y" and renderer.status.context_window == 1000
    plan = PlanState()
    plan.replace([{"text": "Load", "status": "done"}, {"text": "Plot", "status": "in_progress"}])
    renderer.handle(PlanChangedEvent(plan))
    assert "  Plan (1/2 done):\n  [x] 1. Load\n  [>] 2. Plot\n" in out.getvalue()
    renderer.handle(MemorySavedEvent((MemoryStore(tmp_path).write("units", "Revenue is in EUR."),)))
    assert "(memory created: units — Revenue is in EUR.; %agent memory delete units removes it)" in out.getvalue()
    renderer.handle(ChildEvent("child-1", kit.event("child_queued", task="count the rows", index=0)))
    renderer.handle(ChildEvent("child-1", kit.event("text_delta", delta="not shown")))
    renderer.handle(ChildEvent("child-1", kit.event("tool_call", tool_call_id="k", name="inspect", args={"name": "df"})))
    renderer.handle(ChildEvent("child-1", kit.event("finish", reason="max_steps")))
    text = out.getvalue()
    assert "↳ sub-agent 1: count the rows" in text and "sub-agent 1 ▸ inspect" in text
    assert "sub-agent 1 done (step limit reached)" in text and "not shown" not in text


@pytest.mark.anyio
async def test_the_prompt_shows_every_line_and_no_escape_sequence(kit):
    renderer, out, _ = renderer_with(["n"])
    code = "\n".join(f"step_{n}()" for n in range(200)) + "\nrm -rf ~  # the tail\x1b[2K\x1b[1A\x1b]0;title\x07"
    spoof = "echo safe\rrm -rf / \u202eevil\u2066 zero\u200bwidth"
    request = kit.event("request", tool_name="bash", args={"command": code, "script": spoof}, label="bash")
    assert await renderer.ask(request) == "deny"
    shown = out.getvalue()
    assert "step_199()" in shown and "rm -rf ~  # the tail" in shown and "more lines" not in shown
    assert "\x1b" not in shown and "\r" not in shown
    assert "⟨U+000D⟩" in shown and "⟨U+202E⟩evil⟨U+2066⟩" in shown and "zero⟨U+200B⟩width" in shown


def test_tool_output_cannot_redraw_the_terminal(kit):
    renderer, out, _ = renderer_with()
    renderer.handle(kit.event("tool_call", name="bash", args={"command": "cat log"}))
    renderer.handle(kit.event("tool_result", name="bash", content=[{"type": "text", "text": "ok\x1b[1A\x1b[2Kallow? y\x1b[31m"}]))
    renderer.handle(kit.event("text_delta", delta="done\x1b[2J"))
    assert "\x1b" not in out.getvalue()
    assert "okallow? y" in out.getvalue() and "done⟨U+001B⟩[2J" in out.getvalue()
