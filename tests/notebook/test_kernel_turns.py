"""The product in a real kernel, driven like JupyterLab drives it (scripted models: fast, no litellm).

One kernel serves the module; each test uses its own session so the turns never wait on each other.
"""

import ast
import json
import re
import time

import mistune
import pytest
from kernel_harness import AGENT_TEST_SETUP, notebook_kernel

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("kernel"))
    yield harness
    harness.shutdown()


def squash(text):
    """Widget HTML to plain words."""
    return " ".join(re.sub(r"<[^>]+>", " ", text).split())


def test_cell_replies_before_the_turn_ends_and_text_streams_into_the_cell(kernel):
    words = " ".join(f"word{n}" for n in range(150))
    kernel.execute(f"script('streamer', reply({words!r}, delay=0.01), chunk_size=10)")
    msg_id, reply = kernel.agent_cell("-m streamer -s streaming", "Say many words")
    assert reply.ok
    assert "word149" not in squash(kernel.widget_text(msg_id))  # the cell replied mid-stream
    kernel.wait_for(lambda: "word149" in squash(kernel.widget_text(msg_id)), what="the whole answer")
    updates = [parent for parent, text in kernel.panel_updates(msg_id) if "word" in text]
    assert len(updates) >= 2  # streamed in several updates, not one at the end
    assert set(updates) == {msg_id}
    kernel.wait_turn("streaming")
    assert kernel.evaluate("last_turn('streaming').result.reason") == "'completed'"


def test_a_steer_click_is_delivered_at_the_next_step(kernel):
    kernel.execute(
        "m = script('steerable', tool_calls(call('variables'), text='Looking around first. ' * 12, delay=0.02), reply('noted'))"
    )
    msg_id, _ = kernel.agent_cell("-m steerable -s steering", "Look at my data")
    kernel.wait_for(lambda: "Looking around first" in kernel.widget_text(msg_id), what="the first step streaming")
    box = kernel.wait_for(lambda: next((w for w in kernel.cell_widgets(msg_id) if w.model_name == "TextareaModel"), None))
    kernel.set_state(box.comm_id, value="use a bar chart")
    kernel.click(kernel.button(msg_id, "Steer").comm_id)
    kernel.wait_turn("steering")
    assert kernel.evaluate("m.requests[1].context.messages[-1].content") == "'use a bar chart'"
    assert kernel.evaluate("len(m.requests)") == "2"
    assert "use a bar chart" in squash(kernel.widget_text(msg_id))


def test_stop_ends_the_run_and_pairs_every_tool_call(kernel):
    kernel.execute("script('stoppable', tool_calls(call('bash', {'command': 'sleep 30'}), call('variables')), reply('never'))")
    started = time.monotonic()
    msg_id, _ = kernel.agent_cell("-m stoppable -s stopping -p yolo", "Run a long command")
    kernel.wait_for(lambda: "sleep 30" in kernel.widget_text(msg_id), what="the bash card")
    kernel.click(kernel.button(msg_id, "Stop").comm_id)
    kernel.wait_turn("stopping")
    assert time.monotonic() - started < 15
    assert kernel.evaluate("last_turn('stopping').result.reason") == "'aborted'"
    assert kernel.evaluate("unpaired_calls('stopping')") == "[]"
    assert kernel.evaluate("len(_agent.sessions.get('stopping').store.history())") == "4"  # user, assistant, 2 results


def test_an_approval_click_resolves_the_waiting_tool(kernel):
    kernel.execute("base_value = 6")
    kernel.execute("m4 = script('asking', tool_calls(call('python', {'code': 'approved = 6 * 7'})), reply('done'))")
    msg_id, _ = kernel.agent_cell("-m asking -s approving", "Compute something")
    kernel.wait_for(lambda: "to run?" in kernel.widget_text(msg_id), what="the approval bar")
    assert "approved = 6 * 7" in kernel.widget_text(msg_id)  # the arguments are shown
    kernel.click(kernel.button(msg_id, "Allow once").comm_id)
    kernel.wait_turn("approving")
    assert kernel.evaluate("approved") == "42"
    assert kernel.evaluate("last_turn('approving').result.reason") == "'completed'"
    # The system prompt names the notebook; the recent cells lead the prompt (after the cached prefix).
    system = kernel.evaluate("m4.requests[0].context.system_prompt")
    prompt = "m4.requests[0].context.messages[-1].content"
    assert "analysis.ipynb" in system and "base_value = 6" not in system
    assert kernel.evaluate(f"'base_value = 6' in {prompt} and {prompt}.endswith('Compute something')") == "True"


def test_kernel_interrupt_stops_a_run_waiting_on_the_model(kernel):
    kernel.execute("script('hanging', ScriptedResponse(content=[TextContent(text='Thinking about it')], hang=True))")
    msg_id, _ = kernel.agent_cell("-m hanging -s waiting-model", "Take your time")
    kernel.wait_for(lambda: "Thinking about it" in kernel.widget_text(msg_id), what="the first words")
    kernel.interrupt()
    kernel.wait_turn("waiting-model", timeout=10)
    assert kernel.evaluate("last_turn('waiting-model').result.reason") == "'aborted'"
    assert kernel.is_alive() and kernel.evaluate("1 + 1") == "2"


def test_kernel_interrupt_stops_a_run_that_started_while_its_cell_was_still_executing(kernel):
    # The run's task installs its handler while the cell still executes (the cell awaits after
    # the magic). ipykernel then restores its saved idle handler when the cell ends: only the
    # router that knows the kernel (given the shell at %load_ext) puts its handler there.
    assert (
        kernel.evaluate(
            "__import__('jupyter_agent.notebook.interrupt', fromlist=['x']).interrupt_router().kernel is get_ipython().kernel"
        )
        == "True"
    )
    kernel.execute("script('hanging-late', ScriptedResponse(content=[TextContent(text='Still here')], hang=True))")
    kernel.execute(
        "import asyncio\n"
        "get_ipython().run_cell_magic('agent', '-m hanging-late -s started-in-cell --no-wait', 'Take your time')\n"
        "for _ in range(3000):  # until the run exists (30 s at most)\n"
        "    if _agent.sessions.get('started-in-cell').turns[-1].run:\n"
        "        break\n"
        "    await asyncio.sleep(0.01)"
    )
    kernel.wait_for(lambda: "Still here" in kernel.widget_text(), what="the first words")
    kernel.interrupt()
    kernel.wait_turn("started-in-cell", timeout=10)
    assert kernel.evaluate("last_turn('started-in-cell').result.reason") == "'aborted'"
    assert kernel.is_alive() and kernel.evaluate("3 + 3") == "6"


def test_kernel_interrupt_stops_a_running_python_tool_and_the_kernel_survives(kernel):
    kernel.execute(
        "script('busy', tool_calls(call('python', {'code': 'import pathlib, time\\npathlib.Path(\\'busy.started\\').touch()\\n"
        "for i in range(600):\\n    time.sleep(0.05)'})),"
        " reply('after'))"
    )
    started = time.monotonic()
    msg_id, _ = kernel.agent_cell("-m busy -s busy-python -p yolo", "Work hard")
    # The tool now blocks the kernel's main thread, like a running cell.
    kernel.wait_for(lambda: (kernel.folder / "busy.started").exists(), what="the python tool running")
    kernel.interrupt()
    kernel.wait_turn("busy-python", timeout=20)
    assert time.monotonic() - started < 15  # the 30 s loop was cut short
    assert kernel.evaluate("last_turn('busy-python').result.reason") == "'aborted'"
    result = kernel.evaluate(
        "[m for m in _agent.sessions.get('busy-python').store.history() if m.role == 'tool_result'][0].content[0].text"
    )
    assert "Stopped after" in result and "the user interrupted it" in result
    assert kernel.evaluate("unpaired_calls('busy-python')") == "[]"
    assert kernel.is_alive() and kernel.evaluate("2 + 2") == "4"


def test_a_second_cell_waits_for_the_first(kernel):
    kernel.execute("m2 = script('serial', reply('first answer ' * 20, delay=0.01), reply('second answer'))")
    first, _ = kernel.agent_cell("-m serial -s serial", "first question")
    second, reply = kernel.agent_cell("-m serial -s serial", "second question")
    assert reply.ok  # returned at once, queued behind the first
    # The footer says so until the first turn ends (its update may trail the cell's reply).
    kernel.wait_for(lambda: "waiting for the turn above" in kernel.widget_text(second), timeout=5, what="waiting")
    kernel.wait_turn("serial")
    assert kernel.evaluate("[m.role for m in m2.requests[1].context.messages]") == "['user', 'assistant', 'user']"
    assert "second answer" in kernel.widget_text(second) and "second answer" not in kernel.widget_text(first)


def test_a_failing_model_shows_its_error_in_the_panel(kernel):
    kernel.execute("script('failing', failure('Rate limit reached for model x'))")
    msg_id, _ = kernel.agent_cell("-m failing -s failing", "hello")
    kernel.wait_turn("failing")
    kernel.wait_for(lambda: "Rate limit reached for model x" in kernel.widget_text(msg_id), what="the error")
    assert kernel.evaluate("last_turn('failing').result.reason") == "'error'"


def test_agent_wait_blocks_the_cell_until_the_session_is_idle(kernel):
    kernel.execute("script('waited', reply('slow answer ' * 30, delay=0.01))")
    kernel.agent_cell("-m waited -s waited", "go")
    kernel.execute("%agent wait -s waited\nafter_wait = turn_done('waited')")
    assert kernel.evaluate("after_wait") == "True"


def test_a_wait_cell_replies_only_when_its_turn_has_ended(kernel):
    kernel.execute("script('blocking', reply('patience ' * 40, delay=0.01))")
    msg_id, reply = kernel.agent_cell("--wait -m blocking -s blocking", "go")
    assert reply.ok and reply.elapsed > 0.3  # it streamed for ~0.5 s inside the cell
    assert kernel.evaluate("turn_done('blocking')") == "True"
    assert "patience" in kernel.widget_text(msg_id)  # still the live panel


def test_a_restarted_kernel_resumes_the_session(kernel):
    kernel.execute("script('before', reply('remember the number 7'))")
    kernel.agent_cell("-m before -s resumable", "Remember a number")
    kernel.wait_turn("resumable")
    kernel.restart()
    kernel.execute("%load_ext jupyter_agent")
    kernel.execute(AGENT_TEST_SETUP)
    kernel.execute("m3 = script('after', reply('it was 7'))")
    kernel.agent_cell("-m after -s resumable", "Which number?")
    kernel.wait_turn("resumable")
    sent = kernel.evaluate("[m.role for m in m3.requests[0].context.messages]")
    assert sent == "['user', 'assistant', 'user']"
    assert kernel.evaluate("m3.requests[0].context.messages[1].content[0].text") == "'remember the number 7'"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def test_a_finished_turn_leaves_a_static_rendering_and_closes_its_widgets(kernel):
    kernel.execute(
        "script('static', tool_calls(call('python', {'code': 'print(6 * 7)'}), text='Computing.'),"
        " reply('The answer is **42** <script>alert(1)</script>'))"
    )
    msg_id, _ = kernel.agent_cell("-m static -s static -p yolo", "What is six times seven?")
    kernel.wait_turn("static")
    outputs = kernel.wait_for(
        lambda: [o for o in kernel.cell_outputs(msg_id) if "text/markdown" in o["data"]] and kernel.cell_outputs(msg_id),
        what="the static rendering",
    )
    assert not any(WIDGET_VIEW in output["data"] for output in outputs)
    [answer] = [o["data"] for o in outputs if "text/markdown" in o["data"]]
    assert "text/html" not in answer  # nbconvert --to markdown would take it over the Markdown
    assert answer["text/markdown"].startswith('<div class="ja-static ja-state-done">\n\n')
    assert "The answer is **42**" in answer["text/markdown"]
    page = mistune.html(answer["text/markdown"])  # a viewer's rendering, raw HTML kept
    assert "The answer is <strong>42</strong>" in page
    assert "&lt;script&gt;" in page and "<script" not in page
    assert "<details><summary>python · print(6 * 7) · done</summary>" in page
    assert answer["text/plain"].startswith("✓ done")
    closed = {m["content"]["comm_id"] for m in kernel.messages if m["msg_type"] == "comm_close"}
    opened = {w.comm_id for w in kernel.cell_widgets(msg_id) if "#" not in w.comm_id}  # "#": a node of the panel
    assert len(opened) == 1 and opened <= closed  # one widget for the whole turn, closed
    # Closed: the kernel's widget registry no longer holds it (it would live as long as the kernel).
    kernel.execute("import ipywidgets; _panel = last_turn('static').renderer.widget")
    assert kernel.evaluate("_panel.comm is None and _panel not in ipywidgets.Widget.widgets.values()") == "True"


def test_a_saved_answer_exports_to_markdown_as_markdown_and_to_html_rendered(kernel):
    # nbconvert takes text/html before text/markdown: an answer saved with both exported as HTML soup.
    import nbformat
    from nbconvert import HTMLExporter, MarkdownExporter

    answer = "## Revenue\n\nThe **north** fell.\n\n```python\ndf.groupby('region').sum()\n```"
    kernel.execute(f"script('exported', tool_calls(call('python', {{'code': 'print(6 * 7)'}})), reply({answer!r}))")
    msg_id, _ = kernel.agent_cell("-m exported -s exported -p yolo", "Why did revenue fall?")
    kernel.wait_turn("exported")
    outputs = kernel.wait_for(
        lambda: [o for o in kernel.cell_outputs(msg_id) if "text/markdown" in o["data"]], what="the static rendering"
    )
    cell = nbformat.v4.new_code_cell("%%agent -m exported\nWhy did revenue fall?")
    cell.outputs = [nbformat.v4.new_output("display_data", data=o["data"]) for o in outputs]
    notebook = nbformat.v4.new_notebook(cells=[cell])

    markdown, _ = MarkdownExporter().from_notebook_node(notebook)
    assert "## Revenue" in markdown and "The **north** fell." in markdown
    assert "```python\ndf.groupby('region').sum()\n```" in markdown
    assert "<details><summary>python · print(6 * 7) · done</summary>" in markdown  # a card folds on GitHub too
    for rendered in ("<p>", "<h2", "<strong>", "<pre>", "<code"):
        assert rendered not in markdown
    assert markdown.count("<div") == 1  # the saved output's one wrapper, nothing else

    page, _ = HTMLExporter().from_notebook_node(notebook)
    assert '<div class="ja-static ja-state-done">' in page
    assert "<strong>north</strong>" in page and ">Revenue<" in page
    assert "<details><summary>python · print(6 * 7) · done</summary>" in page


def test_a_finished_turn_releases_its_run_and_widget(kernel):
    # The first turn has what holds callbacks: a tool card, the approval bar clicked, Stop and Steer.
    kernel.execute(
        "script('release', tool_calls(call('python', {'code': 'kept = 6 * 7'})), reply('first answer'), reply('second'))"
    )
    msg_id, _ = kernel.agent_cell("-m release -s release", "one")
    kernel.wait_for(lambda: "to run?" in kernel.widget_text(msg_id), what="the approval bar")
    kernel.click(kernel.button(msg_id, "Allow once").comm_id)
    kernel.wait_turn("release")
    kernel.execute(
        "import gc, weakref\n_t = last_turn('release')\n"
        "_refs = [weakref.ref(x) for x in (_t, _t.run, _t.renderer, _t.renderer.widget, _t.renderer.controls.stop_button)]\n"
        "del _t"
    )
    kernel.agent_cell("-m release -s release", "two")  # the session keeps its newest turn only
    kernel.wait_turn("release")
    kernel.execute("gc.collect()")
    assert kernel.evaluate("[r() is None for r in _refs]") == "[True, True, True, True, True]"


def test_a_session_write_failure_ends_the_turn_with_the_error_in_the_panel(kernel):
    kernel.execute("script('disk-filler', reply('short'), reply('a long answer ' * 400))")
    kernel.agent_cell("-m disk-filler -s disk-full", "first")
    kernel.wait_turn("disk-full")
    path = kernel.folder / "analysis.agent" / "disk-full.jsonl"
    size = path.stat().st_size
    # The kernel may grow no file past the session's size plus room for the prompt: the answer's
    # record then fails with EFBIG, as a full disk fails with ENOSPC.
    kernel.execute(
        "import resource, signal\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "_fsize = resource.getrlimit(resource.RLIMIT_FSIZE)\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({size + 4000}, _fsize[1]))"
    )
    try:
        msg_id, _ = kernel.agent_cell("-m disk-filler -s disk-full", "second")
        kernel.wait_turn("disk-full")
    finally:
        kernel.execute("resource.setrlimit(resource.RLIMIT_FSIZE, _fsize)")
    shown = squash(kernel.widget_text(msg_id))
    assert f"could not write the session file {path}: File too large" in shown
    assert kernel.evaluate("last_turn('disk-full').result.reason") == "'error'"
    assert "a long answer" in shown  # what the file could not keep was still shown
    records = [json.loads(line) for line in path.read_text().splitlines()]
    answers = [r["message"] for r in records if r.get("kind") == "message" and r["message"]["role"] == "assistant"]
    assert not any("a long answer" in json.dumps(answer) for answer in answers)
    assert records[-1]["message"]["content"].endswith("\n\nsecond")  # the prompt, led by the turn's context


LOOPING_CODE = """import time
ticks = 0
while True:
    ticks += 1
    print(f"tick {ticks}", flush=True)
    time.sleep(0.05)
"""


def footer_text(kernel, msg_id, session):
    """The cell's status line (the ``ja-footer`` node: a note such as "This turn starts session …"
    names the session too, and never changes)."""
    return next(
        (
            w.state["value"]
            for w in kernel.cell_widgets(msg_id)
            if "ja-footer" in w.state.get("_dom_classes", ())
            and isinstance(w.state.get("value"), str)
            and f"session {session}" in w.state["value"]
        ),
        "",
    )


def test_stop_clicked_on_a_subshell_interrupts_agent_run_python_whose_output_shows_live(kernel):
    kernel.execute(f"script('looper', tool_calls(call('python', {{'code': {LOOPING_CODE!r}}})), reply('never'))")
    msg_id, _ = kernel.agent_cell("-m looper -s live-stop -p yolo", "Loop forever")
    # The loop's prints reach its card while the call still runs (the event loop is blocked).
    kernel.wait_for(lambda: "tick 3" in kernel.widget_text(msg_id), what="live output of the running code")
    assert "output so far (running" in kernel.widget_text(msg_id) and "done ·" not in kernel.widget_text(msg_id)
    # (No evaluate() until the code stops: the main shell is as blocked as the event loop.)
    # The footer's clock keeps moving meanwhile.
    shown = footer_text(kernel, msg_id, "live-stop")
    kernel.wait_for(lambda: footer_text(kernel, msg_id, "live-stop") not in ("", shown), what="the footer clock to move")
    # JupyterLab sends widget messages on a subshell; the main shell is as blocked as the loop.
    subshell = kernel.create_subshell()
    clicked = time.monotonic()
    kernel.click(kernel.button(msg_id, "Stop").comm_id, subshell_id=subshell)
    kernel.wait_turn("live-stop", timeout=15)
    assert time.monotonic() - clicked < 10  # the loop never ends by itself
    assert kernel.evaluate("last_turn('live-stop').result.reason") == "'aborted'"
    # literal_eval: the repr is double-quoted, the text holding "kernel's"
    result = ast.literal_eval(kernel.evaluate("last_turn('live-stop').result.messages[-1].content[0].text"))
    assert result.startswith("Stopped after") and "the user interrupted it" in result and "tick 1" in result
    # No frame or class of the interrupt machinery in what the card and the model show.
    assert "AgentInterrupted" not in result and "interrupt.py" not in result and "Traceback" not in result
    # Marked stopped while running; since the privacy gate the details also keep what a stopped call keeps of any
    # result (its namespace changes, the data policy it was made under).
    details = "last_turn('live-stop').result.messages[-1].details"
    stopped = kernel.evaluate(f"{{key: {details}[key] for key in ('cancelled', 'while_running')}}")
    assert stopped == "{'cancelled': True, 'while_running': True}"
    assert kernel.evaluate(f"[change['name'] for change in {details}['namespace']]") == "['time', 'ticks']"
    assert kernel.evaluate("unpaired_calls('live-stop')") == "[]"
    assert kernel.is_alive() and kernel.evaluate("ticks > 0") == "True"


# What it prints is not in its source (the card shows both).
SLEEPING_CODE = "import time\nprint('as' + 'leep', flush=True)\ntime.sleep(4)\nprint('aw' + 'ake')"


def test_a_page_that_says_hello_on_the_main_shell_sees_python_that_blocks_the_loop_while_it_runs(kernel):
    # JupyterLab sends a kernel's first widget messages on the main shell, and a fast model's python
    # call may start before the page's hello came: the code must not hold the loop before it is read.
    kernel.execute(f"script('blocker', tool_calls(call('python', {{'code': {SLEEPING_CODE!r}}})), reply('slept'))")
    kernel.hold_hellos = True
    msg_id, _ = kernel.agent_cell("-m blocker -s blocking-hello -p yolo", "Sleep")
    kernel.wait_for(lambda: kernel.held_hellos, what="the panel to open in the page")
    # The model has answered and its python call is ready to run; the page has not said hello yet.
    kernel.assert_quiet_for(0.5, lambda: "asleep" in kernel.widget_text(msg_id), "the card before the hello")
    kernel.release_hellos()
    kernel.wait_for(lambda: "asleep" in kernel.widget_text(msg_id), timeout=3.5, what="the running code's card")
    assert "awake" not in kernel.widget_text(msg_id)  # seen while the code runs, not once it ended
    kernel.wait_turn("blocking-hello", timeout=15)
    assert kernel.evaluate("last_turn('blocking-hello').result.reason") == "'completed'"
