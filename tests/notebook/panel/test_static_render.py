import re

import mistune
import pytest

from jupyter_agent.notebook.panel.markdown import render_markdown
from jupyter_agent.notebook.panel.static_render import StaticRenderer, fenced
from jupyter_agent.notebook.panel.transcript_document import messages_document
from jupyter_agent.runtime.permissions import ToolCallDenied

# What a viewer makes of a saved output's Markdown: its raw HTML kept, as JupyterLab, GitHub and nbconvert do.
viewed = mistune.create_markdown(escape=False, plugins=["table", "strikethrough", "url"])


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


def test_flush_displays_markdown_and_images_in_order(kit):
    shown = []
    renderer = StaticRenderer(model_label="gpt-x", display=shown.append)
    run(renderer, kit)
    assert shown == []  # nothing before flush: nbclient records displays of the executing cell
    renderer.flush()
    assert [sorted(item) for item in shown] == [
        ["text/markdown", "text/plain"],
        ["image/png", "text/plain"],
        ["text/markdown", "text/plain"],
    ]
    first, image, last = shown
    md = first["text/markdown"]
    # One wrapper, its content read as Markdown (blank lines around it); the turn's state on the last one.
    assert md.startswith('<div class="ja-static">\n\nLoading **data**:\n```python\nx = 1\n```')  # the open fence is closed
    assert md.endswith("\n\n</div>") and md.count("<div") == 1
    assert last["text/markdown"].startswith('<div class="ja-static ja-state-done">\n\n')
    assert "<details><summary>python · df.plot() · done</summary>" in md and "```python\ndf.plot()\n```" in md
    assert "output:\n\n````\n```done```\n````" in md
    assert "private musing" not in md
    page = viewed(md)
    assert "<details><summary>python · df.plot() · done</summary>" in page
    assert '<code class="language-python">df.plot()\n</code>' in page
    assert first["text/plain"].startswith("✓ done") and "Loading **data**" in first["text/plain"]
    assert image["image/png"] == kit.image().data
    assert "**You (steer):** use \\*median\\*" in last["text/markdown"]
    assert "Revenue fell in the **north**." in last["text/markdown"]
    assert "<strong>north</strong>" in viewed(last["text/markdown"])
    assert re.search(r"\*✓ done · step 1 · gpt-x · 1\.5k in / 40 out · cost n/a · [\d.]+ s\*\n\n</div>$", last["text/markdown"])
    renderer.flush()
    assert len(shown) == 3  # a second flush shows only what is new


def test_model_html_is_escaped_in_the_static_rendering(kit):
    shown = []
    renderer = StaticRenderer(display=shown.append)
    renderer.handle(kit.event("text_delta", delta="Look: <script>alert(1)</script> <b onclick=x>hi</b>"))
    renderer.handle(kit.event("tool_call", tool_call_id="c", name="<img src=x onerror=y>", args={"code": "</details><script>"}))
    renderer.flush()
    page = viewed(shown[0]["text/markdown"])
    assert "<script" not in page and "<img" not in page and "<b onclick" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and page.count("</details>") == 1


def test_the_saved_markdown_keeps_no_raw_html_or_image_link_of_the_model(kit):
    shown = []
    renderer = StaticRenderer(display=shown.append)
    text = (
        "Look: <script>alert(1)</script> <img src=x onerror=alert(1)> and ![tracker](https://evil.example/p.png)\n\n"
        '<iframe src="https://evil.example"></iframe>\n\n'
        "[run me](javascript:alert(1)), [docs](https://docs.example/a) and **bold** `<code>` stay.\n\n"
        "```html\n<b>in a fence: shown as code</b>\n```"
    )
    renderer.handle(kit.event("text_delta", delta=text))
    renderer.flush()
    markdown = shown[0]["text/markdown"]
    rendered = render_markdown(markdown)  # what JupyterLab, GitHub or nbviewer make of the saved Markdown
    for live in ("<script", "<img", "<iframe", "javascript:"):
        assert live not in rendered
    assert "[tracker](https://evil.example/p.png)" in markdown and "![tracker]" not in markdown  # an image becomes a link
    assert "run me" in markdown and "javascript:" not in markdown
    assert "[docs](https://docs.example/a)" in markdown and "**bold**" in markdown and "`<code>`" in markdown
    assert "```html\n<b>in a fence: shown as code</b>\n```" in markdown
    assert "\\<script>" in markdown  # the model's raw HTML is text now


def test_a_thinking_block_is_a_collapsible_section_in_the_saved_output():
    from jupyter_agent.messages import AssistantMessage, TextContent, ThinkingContent, UserMessage

    messages = [
        UserMessage(content="why?"),
        AssistantMessage(content=[ThinkingContent(thinking="weighing <b>options</b>"), TextContent(text="Because.")]),
    ]
    [bundle] = messages_document(messages, result_chars=1000).bundles()
    page = viewed(bundle["text/markdown"])
    assert "<details><summary>Thinking</summary>" in page and "&lt;details&gt;" not in page
    assert "weighing &lt;b&gt;options&lt;/b&gt;" in page and page.count("</details>") == 1
    assert "<details><summary>Thinking</summary>" in bundle["text/markdown"]


@pytest.mark.anyio
async def test_ask_denies_with_a_note_unless_configured(kit):
    shown = []
    renderer = StaticRenderer(display=shown.append)
    for name in ("bash", "write"):
        # A denial that says why: the model must not read that a user declined.
        with pytest.raises(ToolCallDenied, match=rf'^Tool call "{name}" was denied \(headless run: nobody can approve it\)'):
            await renderer.ask(kit.event("request", tool_name=name, args={}, label=name))
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
    from jupyter_agent.features.delegation.feature import ChildEvent
    from jupyter_agent.features.memory.feature import MemorySavedEvent
    from jupyter_agent.features.memory.store import MemoryStore
    from jupyter_agent.features.plan.feature import PlanChangedEvent
    from jupyter_agent.features.plan.state import PlanState

    renderer = StaticRenderer(model_label="gpt-x", display=lambda obj: None)
    plan = PlanState()
    plan.replace([{"text": "Load", "status": "in_progress"}])
    renderer.handle(PlanChangedEvent(plan))
    plan.update([{"id": "1", "status": "done"}])
    renderer.handle(PlanChangedEvent(plan))
    renderer.handle(ChildEvent("child-1", kit.event("finish", reason="completed")))
    run(renderer, kit)
    renderer.handle(MemorySavedEvent((MemoryStore(tmp_path).write("units", "Revenue is in EUR."),)))
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


def test_a_status_note_that_is_over_leaves_no_line_in_the_saved_output(kit):
    """note("") takes back the last note (Loading litellm…), as the panel clears its note line."""
    shown = []
    renderer = StaticRenderer(display=shown.append)
    renderer.note("Session saved to ipython.agent/main.jsonl")
    renderer.set_state("waiting")
    renderer.set_state("running")  # the turn above ended: this one starts
    renderer.note("Loading litellm (its first use in a kernel takes a few seconds)…")
    renderer.note("")
    renderer.handle(kit.event("text_delta", delta="Hello."))
    renderer.note("")  # nothing left to take back: the session note and the answer stay
    renderer.flush()
    markdown = shown[0]["text/markdown"]
    assert "Loading litellm" not in markdown and "waiting for the turn above" not in markdown
    assert "Session saved to" in markdown and "Hello." in markdown
