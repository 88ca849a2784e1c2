import ipywidgets as W
import pytest

from jupyter_agent.notebook.panel import AgentPanel
from jupyter_agent.notebook.panel.coalescer import MIN_INTERVAL
from jupyter_agent.notebook.panel.nodes import HTML, walk
from jupyter_agent.notebook.panel.panel import MAX_LAG
from jupyter_agent.notebook.panel.shared import is_visible
from jupyter_agent.testing.waiting import wait_until


def make_panel(clock, **kwargs):
    options = {"model_label": "test-model", "session": "main", "context_window": 10_000}
    return AgentPanel(**(options | kwargs), clock=clock)


def texts(root):
    return " ".join(node.value for node in walk(root) if isinstance(node, HTML))


def connect(panel):
    """What a page's loader does when the panel's model opens (see turn_widget)."""
    panel.widget._on_message(panel.widget, ["hello", None, True], [])


def test_a_turn_builds_the_transcript_in_order(clock, kit):
    panel = make_panel(clock)
    ev = kit.event
    for event in [
        ev("run_start", step_budget=5),
        ev("step_start", step=1),
        ev("thinking_delta", delta="Let me *look*"),
        ev("text_delta", delta="I will **load** the data."),
        ev("tool_call", tool_call_id="c1", name="python", args={"code": "df = load()\ndf.head()"}),
        ev("tool_result", tool_call_id="c1", name="python", content=[kit.text("   a  b")], is_error=False, details=None),
        ev("step_finish", step=1, usage=kit.usage(1200, 80, last=2500), step_usage=None, model="test-model"),
        ev("step_start", step=2),
        ev("text_delta", delta="Done."),
        ev("finish", reason="completed", text="Done.", usage=kit.usage(2000, 100, last=2600)),
    ]:
        panel.handle(event)
        clock.advance(0.01)
    kinds = [type(widget).__name__ for widget in panel.items]
    assert kinds == ["Accordion", "VBox", "VBox", "VBox"]  # thinking, text, tool card, text
    thinking = panel.items[0]
    assert thinking.selected_index is None and thinking.titles == ("Thinking",)
    assert "<em>look</em>" in texts(thinking)
    assert "<strong>load</strong>" in texts(panel.items[1])
    assert panel.cards[0].title.startswith("✓ python: df = load() df.head() — done")
    assert "Done." in texts(panel.items[3])
    assert panel.state == "done"
    assert "step 2/5" in panel.footer.widget.value and "context 26%" in panel.footer.widget.value
    assert panel.controls.stop_button.disabled and panel.controls.text.disabled


def test_one_widget_per_turn_and_nothing_sent_before_a_page_says_hello(meter, clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("text_delta", delta="hello"))
    panel.handle(kit.event("tool_call", tool_call_id="c", name="bash", args={"command": "ls"}))
    panel.handle(kit.event("tool_result", tool_call_id="c", name="bash", content=[kit.image()], is_error=False))
    panel.flush()
    opened = [item.data["state"]["_model_name"] for item in meter.sent if item.msg_type == "comm_open"]
    assert opened.count("AnyModel") == 1 and len(opened) <= 2  # the panel, and the kernel's one shared Layout
    assert meter.count()["comm_msg"] == 0  # no page yet: nothing to update
    connect(panel)
    panel.handle(kit.event("finish", reason="completed", text="hello", usage=None))
    assert [item.msg_type for item in meter.sent].count("comm_open") == len(opened)  # still one widget
    assert "hello" in texts(panel.root)


def test_a_20kb_answer_over_4s_costs_at_most_2x_its_size(meter, clock, kit):
    answer = kit.answer(20_000)
    panel = make_panel(clock)
    connect(panel)
    panel.handle(kit.event("run_start", step_budget=None))
    meter.reset()
    flush_count_at = {}
    for start in range(0, len(answer), 10):  # 2 000 deltas, one every 2 ms (a 4 s stream)
        panel.handle(kit.event("text_delta", delta=answer[start : start + 10]))
        clock.advance(0.002)
        flush_count_at[round(clock.now(), 3)] = panel._coalescer.flushes
    panel.handle(kit.event("finish", reason="completed", text=answer, usage=None))
    assert meter.content_bytes <= 2 * len(answer.encode())
    rendered = texts(panel.root)
    assert "Finding 1" in rendered and rendered.count("<pre>") >= 10
    per_second = [flush_count_at[float(second + 1)] - flush_count_at.get(float(second), 0) for second in range(4)]
    assert all(1 / MAX_LAG - 2 <= flushes <= 1 / MIN_INTERVAL for flushes in per_second), per_second


def test_naive_rendering_would_cost_far_more(meter, kit):
    answer = kit.answer(4_000)
    html = W.HTML()
    meter.reset()
    for start in range(0, len(answer), 10):
        html.value += answer[start : start + 10]
    assert meter.content_bytes > 100 * len(answer)  # the baseline the panel is measured against


def test_text_waits_for_the_coalescer_and_flush_pushes_it(clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("text_delta", delta="first "))
    panel.handle(kit.event("text_delta", delta="second"))
    assert "second" not in texts(panel.root)
    panel.flush()
    assert "first second" in texts(panel.root)


def test_trailing_text_arrives_by_timer(clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("text_delta", delta="first "))
    panel.handle(kit.event("text_delta", delta="second"))
    clock.advance(1.0)
    assert "first second" in texts(panel.root)


def test_errors_show_escaped_and_do_not_raise(clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("error", error=RuntimeError("<b>provider</b> said no")))
    panel.handle(kit.malformed("tool_result"))  # no tool_call_id
    panel.handle(kit.event("nonsense"))  # unknown events are ignored
    panel.handle(kit.event("message", message=object()))
    error = panel._error
    assert is_visible(error)
    assert "RuntimeError: &lt;b&gt;provider&lt;/b&gt; said no" in error.value
    assert "could not show a tool_result event" in error.value


def test_show_error_note_and_states(clock):
    panel = make_panel(clock)
    panel.set_state("waiting")
    assert "waiting for the turn above" in panel.footer.widget.value
    assert panel.root._dom_classes == ("ja-panel", "ja-state-waiting")
    panel.note("Stop takes effect after the running code returns")
    assert panel._note.value == "Stop takes effect after the running code returns"
    panel.note("")
    assert not is_visible(panel._note)
    panel.set_state("running")
    assert "ja-running" in panel.footer.widget.value and not panel.controls.stop_button.disabled
    panel.show_error("Traceback: boom")
    panel.set_state("error", "the run task failed")
    assert "the run task failed" in panel.footer.widget.value
    assert panel.controls.steer_button.disabled


def test_demo_label(clock):
    panel = make_panel(clock, demo=True)
    assert "offline demo model" in panel.footer.widget.value
    assert "offline demo model" not in make_panel(clock).footer.widget.value


def test_user_messages_queue_then_deliver(clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("user_message", text="use <median>", delivery="steer", phase="queued"))
    assert "queued steer: use &lt;median&gt;" in panel.controls.queue_html.value
    panel.handle(kit.event("user_message", text="use <median>", delivery="steer", phase="delivered"))
    assert panel.controls.queued == []
    assert panel.items[-1].value == "<b>You</b> (steer): use &lt;median&gt;"


def test_compaction_note(clock, kit):
    panel = make_panel(clock)
    panel.handle(
        kit.event("compacted", dropped_messages=12, kept_messages=4, summary_chars=2048, summary="…", first_kept_index=3)
    )
    assert "12 earlier messages summarized (2,048 characters)" in panel.items[-1].value


@pytest.mark.anyio
@pytest.mark.parametrize("decision", ["once", "tool", "call", "deny"])
async def test_ask_shows_the_request_and_resolves_on_click(clock, kit, decision):
    import asyncio

    panel = make_panel(clock)
    request = kit.event("request", tool_name="python", args={"code": "rm -rf /tmp/x"}, label="python")
    panel.handle(kit.event("tool_call", tool_call_id="c1", name="python", args=request.args))
    panel.handle(kit.event("approval_request", request=request))
    assert "waiting for approval" in panel.cards[0].title
    task = asyncio.ensure_future(panel.ask(request))
    await wait_until(lambda: panel.approval.visible, what="the approval bar")
    assert panel.approval.visible and "rm -rf /tmp/x" in panel.approval._args.value
    panel.approval.buttons[decision].click()
    assert await asyncio.wait_for(task, 1) == decision
    assert not panel.approval.visible
    panel.handle(kit.event("approval_response", request=request, decision=decision))
    assert ("denied" in panel.cards[0].title) == (decision == "deny")


def test_set_model_updates_the_footer_and_its_context_gauge(clock, kit):
    panel = make_panel(clock, context_window=None)
    panel.set_model("gpt-test", 1000)
    panel.handle(kit.event("step_finish", step=1, usage=kit.usage(100, 5, last=250), step_usage=None, model=None))
    assert "gpt-test" in panel.footer.widget.value and "context 25%" in panel.footer.widget.value


def test_plan_and_memory_appear_around_the_transcript_only_when_used(clock, kit, tmp_path):
    from jupyter_agent.features.memory.feature import MemorySavedEvent
    from jupyter_agent.features.memory.store import MemoryStore
    from jupyter_agent.features.memory.view import MemoryPanelView
    from jupyter_agent.features.plan.feature import PlanChangedEvent
    from jupyter_agent.features.plan.state import PlanState
    from jupyter_agent.features.plan.view import PlanPanelView

    panel = make_panel(clock)
    before = len(panel.root.children)
    panel.handle(PlanChangedEvent(PlanState()))  # an empty plan adds nothing
    panel.handle(MemorySavedEvent(()))
    plan_view, memory_view = panel.views.of(PlanPanelView), panel.views.of(MemoryPanelView)
    assert len(panel.root.children) == before and plan_view.view is None and memory_view.view is None
    state = PlanState()
    state.replace([{"text": "Load", "status": "in_progress"}])
    panel.handle(PlanChangedEvent(state))
    change = MemoryStore(tmp_path).write("units", "Revenue is in EUR.")
    panel.handle(MemorySavedEvent((change,)))
    children = list(panel.root.children)
    plan, memory = plan_view.view, memory_view.view
    assert children.index(plan.widget) < children.index(panel._body) < children.index(memory.widget)
    assert "Load" in plan.widget.value and memory.rows[0].change is change


def test_a_memory_change_after_the_last_note_was_cleared_stays_in_the_saved_output(clock, tmp_path):
    from jupyter_agent.features.memory.feature import MemorySavedEvent
    from jupyter_agent.features.memory.store import MemoryStore

    panel = make_panel(clock)
    panel.note("Saving what this turn taught to memory…")
    panel.note("")  # the extraction is over
    panel.handle(MemorySavedEvent((MemoryStore(tmp_path).write("units", "Revenue is in EUR."),)))
    markdown = "\n".join(bundle["text/markdown"] for bundle in panel.static_bundles() if "text/markdown" in bundle)
    assert "Memory created: units" in markdown and "%agent memory undo units" in markdown
    assert "Saving what this turn taught" not in markdown


def test_sub_agent_cards_nest_under_their_delegate_call(clock, kit):
    from jupyter_agent.features.delegation.feature import ChildEvent
    from jupyter_agent.features.delegation.view import ChildPanelView

    panel = make_panel(clock)
    ev = kit.event
    panel.handle(ev("tool_call", tool_call_id="d1", name="delegate", args={"tasks": ["count rows"]}))
    panel.handle(ChildEvent("child-1", ev("child_queued", child_id="child-1", task="count rows", index=0)))
    panel.handle(ChildEvent("child-1", ev("child_start", child_id="child-1", max_steps=3, max_spend_usd=None)))
    panel.handle(ChildEvent("child-1", ev("text_delta", delta="There are 42 rows.")))
    child = panel.views.of(ChildPanelView).children.cards["child-1"]
    assert panel.cards[0].nested_widgets == [child.widget]
    panel.flush()
    assert "42 rows" in texts(child.widget)
    panel.handle(ChildEvent("child-1", ev("bogus")))  # unknown events are ignored
    assert panel._errors == []


def test_materialize_button_reports_what_it_did(clock, kit):
    from jupyter_agent.notebook.lab_views import MaterializeOffered, MaterializePanelView

    panel = make_panel(clock)
    assert panel.views.of(MaterializePanelView) is None
    calls = []
    panel.handle(MaterializeOffered(2, lambda: calls.append(1) or "Inserting 2 cells below the agent cell."))
    button = panel.views.of(MaterializePanelView).button
    assert button.description == "Materialize 2 cells" and button in panel.root.children
    button.click()
    assert calls == [1] and "Inserting 2 cells" in panel._note.value


def test_elapsed_time_moves_while_nothing_streams_and_stops_at_the_end(clock, kit):
    from jupyter_agent.notebook.panel.panel import FOOTER_TICK

    panel = make_panel(clock)
    panel.set_state("running")
    panel.handle(kit.event("run_start", step_budget=None))
    clock.advance(FOOTER_TICK * 2 + 0.1)
    assert "10.0 s" in panel.footer.widget.value or "10 s" in panel.footer.widget.value
    panel.set_state("done")
    frozen = panel.footer.widget.value
    clock.advance(FOOTER_TICK * 3)
    assert panel.footer.widget.value == frozen


def test_a_tools_duration_counts_from_its_approval_not_from_the_wait(clock, kit):
    panel = make_panel(clock)
    request = kit.event("request", tool_name="python", args={"code": "df.describe()"}, label="python")
    panel.handle(kit.event("tool_call", tool_call_id="c1", name="python", args=request.args))
    panel.handle(kit.event("approval_request", request=request))
    clock.advance(17)  # the user reads the code before allowing it
    panel.handle(kit.event("approval_response", request=request, decision="once"))
    clock.advance(0.4)
    panel.handle(
        kit.event("tool_result", tool_call_id="c1", name="python", content=[kit.text("ok")], is_error=False, details=None)
    )
    assert panel.cards[0].title.endswith("— done · 0.4 s")


def test_a_call_the_run_was_stopped_in_shows_as_cancelled_not_error(clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("tool_call", tool_call_id="c1", name="python", args={"code": "slow()"}))
    panel.handle(
        kit.event(
            "tool_result",
            tool_call_id="c1",
            name="python",
            content=[kit.text("Run cancelled")],
            is_error=True,
            details={"cancelled": True},
        )
    )
    card = panel.cards[0]
    assert card.title == "■ python: slow() — cancelled" and not card.is_error
    assert '<div class="ja-label">cancelled</div>' in card.output_html
    # Stopped while waiting for approval: the void question says so, and so does the result after it.
    request = kit.event("request", tool_name="bash", args={"command": "make"}, label="bash")
    panel.handle(kit.event("tool_call", tool_call_id="c2", name="bash", args=request.args))
    panel.handle(kit.event("approval_request", request=request))
    panel.handle(kit.event("approval_response", request=request, decision="cancelled"))
    assert panel.cards[1].title.endswith("— cancelled")
    panel.handle(
        kit.event("tool_result", tool_call_id="c2", name="bash", content=[kit.text("Run cancelled")], is_error=True, details=None)
    )
    assert panel.cards[1].title == "■ bash: make — cancelled"


def test_live_output_reaches_the_running_python_card_and_the_clock_moves_without_the_loop(clock, kit):
    panel = make_panel(clock)
    panel.set_state("running")
    panel.handle(kit.event("tool_call", tool_call_id="c1", name="python", args={"code": "loop()"}))
    footer = panel.footer.widget.value
    clock.time += 7  # no loop timer fires while agent-run code blocks the loop
    panel.live_output("tick 1\n")
    assert "tick 1" in panel.cards[0]._body.children[-1].value
    assert panel.footer.widget.value != footer and "7" in panel.footer.widget.value
    clock.time += 2
    panel.tick()
    assert "9" in panel.footer.widget.value


def test_the_last_text_goes_out_when_the_stream_closes_not_at_the_end_of_the_run(meter, clock, kit):
    from types import SimpleNamespace

    panel = make_panel(clock)
    connect(panel)
    panel.handle(kit.event("text_delta", delta="The whole answer."))
    clock.advance(0.01)
    panel.handle(kit.event("text_delta", delta=" Its last words."))  # within the lag bound: held back
    assert "last words" not in texts(panel.root)
    sent = len(meter.sent)
    panel.handle(kit.event("message", message=SimpleNamespace(role="assistant")))  # the stream closed
    assert "The whole answer. Its last words." in texts(panel.root)
    assert len(meter.sent) == sent + 1  # and sent at once, in one message


def test_a_failed_turns_saved_output_shows_its_error_once(clock, kit):
    """The error event reaches the recording once, through the panel as through the static renderer."""
    from jupyter_agent.loop.types import AgentLoopError

    panel = make_panel(clock)
    panel.handle(kit.event("run_start", step_budget=5))
    panel.handle(kit.event("step_start", step=1))
    failure = AgentLoopError("no API key for openai: set OPENAI_API_KEY or %config AgentMagics.api_key")
    panel.handle(kit.event("error", error=failure))
    # The request never reached the provider: its estimated input is no context fill.
    panel.handle(kit.event("finish", reason="error", text="", usage=kit.usage(0, 0, last=320)))
    markdown = "\n".join(bundle["text/markdown"] for bundle in panel.static_bundles() if "text/markdown" in bundle)
    assert markdown.count("**Error**") == 1 and markdown.count("no API key for openai") == 1
    assert "context" not in markdown and "0 in / 0 out" in markdown


def test_a_call_stopped_in_its_work_reads_stopped_and_one_never_run_cancelled(clock, kit):
    panel = make_panel(clock)
    panel.handle(kit.event("tool_call", tool_call_id="c1", name="python", args={"code": "loop()"}))
    stopped = "Stopped after 2.0 s: the user interrupted it (Stop or the kernel's Interrupt)."
    details = {"cancelled": True, "while_running": True}
    panel.handle(
        kit.event("tool_result", tool_call_id="c1", name="python", content=[kit.text(stopped)], is_error=True, details=details)
    )
    card = panel.cards[0]
    assert card.title.startswith("■ python: loop() — stopped · ") and not card.is_error
    assert '<div class="ja-label">output before it stopped</div>' in card.output_html
    markdown = "\n".join(bundle["text/markdown"] for bundle in panel.static_bundles() if "text/markdown" in bundle)
    assert "python · loop() · stopped" in markdown and "· error" not in markdown


def test_a_limited_calls_card_says_its_time_left_in_its_first_title(clock, kit):
    """The first title is what reaches the page before the call's code (or cell) holds the kernel."""
    panel = make_panel(clock)
    panel.handle(kit.event("tool_call", tool_call_id="c1", name="notebook_run", args={"cell_id": "a"}, time_limit=40.0))
    assert panel.cards[0].title.endswith("— running… 40 s left")


@pytest.mark.anyio
async def test_python_waits_once_a_turn_and_at_most_view_wait_for_a_page_to_connect(clock, monkeypatch):
    import asyncio
    import time

    from jupyter_agent.notebook.panel import panel as panel_module

    monkeypatch.setattr(panel_module, "VIEW_WAIT", 0.3)
    panel = make_panel(clock)
    asyncio.get_running_loop().call_later(0.05, connect, panel)  # the page's hello, read by the waiting loop
    started = time.monotonic()
    await panel.before_blocking()
    assert time.monotonic() - started < 0.25  # returned at the hello, not at the limit
    # No page ever connects to another panel: it waits the limit once, then never again.
    lonely = make_panel(clock)
    started = time.monotonic()
    await lonely.before_blocking()
    await lonely.before_blocking()
    assert 0.3 <= time.monotonic() - started < 0.55
