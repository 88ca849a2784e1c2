import re

import pytest

from jupyter_agent.notebook.panel.static_render import StaticRenderer, fenced


def run(renderer, kit):
    ev = kit.event
    for event in [
        ev("run_start", step_budget=None),
        ev("step_start", step=1),
        ev("thinking_delta", delta="private musing"),
        ev("text_delta", delta="Loading **data**:\n```python\nx = 1\n"),
        ev("tool_call", tool_call_id="c1", name="python", args={"code": "df.plot()"}),
        ev("tool_result", tool_call_id="c1", name="python", content=[kit.text("```done```"), kit.image()], is_error=False),
        ev("user_message", text="use *median*", delivery="steer", phase="delivered"),
        ev("step_finish", step=1, usage=kit.usage(1500, 20), step_usage=None, model="m"),
        ev("text_delta", delta="Revenue fell in the **north**."),
        ev("finish", reason="completed", text="…", usage=kit.usage(1500, 40)),
    ]:
        renderer.handle(event)


def test_flush_displays_markdown_html_and_images_in_order(kit):
    shown = []
    renderer = StaticRenderer(model_label="gpt-x", display=shown.append)
    run(renderer, kit)
    assert shown == []  # nothing before flush: nbclient records displays of the executing cell
    renderer.flush()
    assert [sorted(item) for item in shown] == [
        ["text/html", "text/markdown", "text/plain"],
        ["image/png", "text/plain"],
        ["text/html", "text/markdown", "text/plain"],
    ]
    first, image, last = shown
    md = first["text/markdown"]
    assert md.startswith("Loading **data**:\n```python\nx = 1\n```")  # the open fence is closed
    assert "<details><summary>python · df.plot() · done</summary>" in md and "```python\ndf.plot()\n```" in md
    assert "output:\n\n````\n```done```\n````" in md
    assert "private musing" not in md
    assert "<details><summary>python · df.plot() · done</summary>" in first["text/html"]
    assert '<code class="language-python">df.plot()</code>' in first["text/html"]
    assert first["text/plain"].startswith("✓ done") and "Loading **data**" in first["text/plain"]
    assert image["image/png"] == kit.image().data
    assert "**You (steer):** use \\*median\\*" in last["text/markdown"]
    assert "Revenue fell in the **north**." in last["text/markdown"]
    assert "<strong>north</strong>" in last["text/html"]
    assert re.search(r"\*✓ done · step 1 · gpt-x · 1\.5k in / 40 out · cost n/a · [\d.]+ s\*$", last["text/markdown"])
    renderer.flush()
    assert len(shown) == 3  # a second flush shows only what is new


def test_model_html_is_escaped_in_the_static_rendering(kit):
    shown = []
    renderer = StaticRenderer(display=shown.append)
    renderer.handle(kit.event("text_delta", delta="Look: <script>alert(1)</script> <b onclick=x>hi</b>"))
    renderer.handle(kit.event("tool_call", tool_call_id="c", name="<img src=x onerror=y>", args={"code": "</details><script>"}))
    renderer.flush()
    page = shown[0]["text/html"]
    assert "<script" not in page and "<img" not in page and "<b onclick" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and page.count("</details>") == 1


@pytest.mark.anyio
async def test_ask_denies_with_a_note_unless_configured(kit):
    shown = []
    renderer = StaticRenderer(display=shown.append)
    assert await renderer.ask(kit.event("request", tool_name="bash", args={}, label="bash")) == "deny"
    assert await renderer.ask(kit.event("request", tool_name="write", args={}, label="write")) == "deny"
    text = renderer.markdown().replace("\\", "")
    assert "bash denied: a headless run cannot show an approval prompt. To allow mutating tools" in text
    assert text.count("To allow mutating tools") == 1 and "write denied (headless run, see above)." in text
    allowing = StaticRenderer(approval="once", display=shown.append)
    assert await allowing.ask(kit.event("request", tool_name="bash", args={}, label="bash")) == "once"


def test_errors_and_notes(kit):
    renderer = StaticRenderer(display=lambda _: None)
    renderer.set_state("waiting")
    renderer.show_error("Traceback\n  boom")
    renderer.handle(kit.event("error", error=ValueError("bad key")))
    text = renderer.markdown()
    assert "*waiting for the turn above*" in text
    assert "**Error**\n\n```\nTraceback\n  boom\n```" in text and "ValueError: bad key" in text


def test_fence_is_longer_than_any_backtick_run():
    assert fenced("a ```` b") == "`````\na ```` b\n`````"
    assert fenced("plain", "json") == "```json\nplain\n```"


def test_a_malformed_event_is_reported_not_raised(kit):
    renderer = StaticRenderer(display=lambda _: None)
    renderer.handle(kit.malformed("tool_call"))
    assert "could not show a tool_call event: AttributeError" in renderer.markdown()


def test_the_final_plan_memory_and_sub_agents_are_recorded(kit, tmp_path):
    from jupyter_agent.features.memory.store import MemoryStore
    from jupyter_agent.features.plan.state import PlanState

    renderer = StaticRenderer(model_label="gpt-x", display=lambda obj: None)
    plan = PlanState()
    plan.replace([{"text": "Load", "status": "in_progress"}])
    renderer.show_plan(plan)
    plan.update([{"id": "1", "status": "done"}])
    renderer.show_plan(plan)
    renderer.child_event("child-1", kit.event("finish", reason="completed"))
    run(renderer, kit)
    renderer.memory_saved(MemoryStore(tmp_path).write("units", "Revenue is in EUR."))
    markdown = renderer.markdown()
    assert markdown.count("**Plan**") == 1 and "**Plan** (1/1 done)\n\n- [x] ~~Load~~" in markdown
    assert "*sub-agent 1 done*" in markdown
    assert "*Memory created: units — Revenue is in EUR. (undo: %agent memory undo units)*" in markdown
    renderer.set_model("gpt-z", 500)
    assert renderer.status.model_label == "gpt-z"


def test_a_call_the_run_was_stopped_in_is_recorded_as_cancelled_not_error(kit):
    renderer = StaticRenderer(display=lambda _: None)
    renderer.handle(kit.event("tool_call", tool_call_id="c1", name="python", args={"code": "slow()"}))
    renderer.handle(
        kit.event(
            "tool_result",
            tool_call_id="c1",
            name="python",
            content=[kit.text("Run cancelled")],
            is_error=True,
            details={"cancelled": True},
        )
    )
    text = renderer.markdown()
    assert "python · slow() · cancelled" in text and "error" not in text
