from panel_page import PanelPage

from jupyter_agent.notebook.panel.nodes import HTML, Button, Document, Textarea, VBox
from jupyter_agent.notebook.panel.turn_widget import FRONT_END, PRIMER, VERSION, PanelWidget


class Page:
    """A panel widget shown in a page by its real front end (panel_page): the widget's loader says
    hello as its model opens, and what the widget sends (the meter's messages) is shown."""

    def __init__(self, widget, meter, page=None, decompression=True):
        self.page = page or PanelPage(decompression=decompression)
        self.widget, self.meter, self.seen = widget, meter, len(meter.sent)
        self.nodes = {}
        self.answered(self.page.open(widget.model_id, {"_esm": widget._esm, "_panel_id": widget._panel_id}))
        self.read()

    def answered(self, answer):
        for _, content in answer.sent:  # the page's hello, clicks: to the widget, as its comm delivers them
            self.widget._on_message(self.widget, content, [])
        for node, state in answer.nodes.items():
            self.nodes.setdefault(node, {}).update(state)

    def read(self):
        for sent in self.meter.sent[self.seen :]:
            if sent.comm_id == self.widget.model_id and sent.msg_type == "comm_msg" and sent.data.get("method") == "custom":
                self.answered(self.page.message(sent.comm_id, sent.data["content"], sent.buffers))
        self.seen = len(self.meter.sent)

    def click(self, node):
        self.answered(self.page.click(self.widget.model_id, node.id))

    def value(self, node):
        return self.nodes[node.id].get("value")


def panel(meter, first="<p>first</p>"):
    document = Document()
    text = HTML(first, document)
    button = Button("Stop", document)
    root = VBox([text, button], document, _dom_classes=("ja-panel",))
    document.set_root(root)
    return document, text, button, PanelWidget(document)


def test_nothing_is_sent_before_a_page_says_hello(meter):
    document, text, _, widget = panel(meter)
    text.value = "<p>first and more</p>"
    widget.flush()
    assert [sent.msg_type for sent in meter.sent].count("comm_msg") == 0
    assert document.take() == []  # dropped: the hello's snapshot will carry the state


def test_the_first_hello_of_a_page_gets_the_state_and_the_front_end_once(meter):
    _, text, _, widget = panel(meter)
    page = Page(widget, meter)
    snapshot = meter.sent[-1]
    assert snapshot.data["content"] == {"s": True, "p": True, "rt": VERSION}
    assert bytes(snapshot.buffers[1]).decode() == FRONT_END and b".ja-panel{" in bytes(snapshot.buffers[2])
    assert bytes(snapshot.buffers[3]) == PRIMER
    assert page.value(text) == "<p>first</p>"
    _, later_text, _, later = panel(meter, "<p>the next turn</p>")
    next_turn = Page(later, meter, page=page.page)  # the page has the front end already: its loader says so
    assert meter.sent[-1].data["content"] == {"s": True, "p": True, "rt": None} and len(meter.sent[-1].buffers) == 1
    assert next_turn.value(later_text) == "<p>the next turn</p>"


def test_changes_go_out_compressed_and_append_only(meter):
    _, text, _, widget = panel(meter)
    page = Page(widget, meter)
    prose = "<p>first" + " and then the panel streams a long answer" * 50
    for end in range(100, len(prose), 100):
        text.value = prose[:end] + "</p>"
        widget.flush()
    page.read()
    assert page.value(text) == prose[:end] + "</p>"
    updates = [sent for sent in meter.sent[-len(range(100, len(prose), 100)) :]]
    assert all(sent.data["content"] == "z" for sent in updates)
    assert sum(sent.buffer_bytes + sent.content_bytes for sent in updates) < len(prose)  # less than the text itself


def test_a_fresh_panels_snapshot_costs_little_after_the_primer(meter):
    # The page inflated the primer before the stream: what the primer holds is a few bytes of reference.
    from types import SimpleNamespace

    from jupyter_agent.notebook.panel import AgentPanel

    agent = AgentPanel(model_label="demo", session="main", context_window=128_000)
    agent.handle(SimpleNamespace(type="run_start", step_budget=None))
    page = Page(agent.widget, meter)
    snapshot = meter.sent[-1]
    assert len(snapshot.buffers[0]) < 200  # ~540 bytes deflated without the primer
    agent.handle(SimpleNamespace(type="text_delta", delta="The **north** fell."))
    agent.flush()
    page.read()
    assert "<strong>north</strong>" in "".join(str(node.get("value", "")) for node in page.nodes.values())


def test_a_page_without_decompression_gets_plain_operations(meter):
    _, text, _, widget = panel(meter)
    page = Page(widget, meter, decompression=False)
    text.value = "<p>first, then plain</p>"
    widget.flush()
    page.read()
    assert isinstance(meter.sent[-1].data["content"], list) and page.value(text) == "<p>first, then plain</p>"


def test_a_second_page_restarts_the_stream_for_both(meter):
    _, text, _, widget = panel(meter)
    first = Page(widget, meter)
    second = Page(widget, meter)  # another browser tab: its hello restarts the stream
    first.read()
    text.value = "<p>first, seen by both pages</p>"
    widget.flush()
    first.read()
    second.read()
    assert first.value(text) == second.value(text) == "<p>first, seen by both pages</p>"


def test_clicks_reach_their_button_and_what_they_change_is_sent(meter):
    document, text, button, widget = panel(meter)
    page = Page(widget, meter)
    button.on_click(lambda _: setattr(text, "value", "<p>stopping</p>"))
    page.click(button)  # no loop here: handled at once
    page.read()
    assert page.value(text) == "<p>stopping</p>"
    widget.immediate.add(button.id)
    button.on_click(lambda _: setattr(text, "value", "<p>stopped</p>"))
    page.click(button)  # on the thread it arrived on; sent with the next flush
    assert text.value == "<p>stopped</p>"


def test_typed_text_and_clicks_of_immediate_nodes_are_handled_and_sent_where_they_arrive(meter):
    import asyncio
    import threading

    document, text, button, widget = panel(meter)
    box = Textarea(document)
    page = Page(widget, meter)
    # The kernel's loop, blocked by agent-run Python: what is handed to it waits.
    loop, release = asyncio.new_event_loop(), threading.Event()
    running = threading.Thread(target=loop.run_forever)
    running.start()
    try:
        loop.call_soon_threadsafe(release.wait, 30)
        widget._loop = loop
        widget.immediate.update({box.id, button.id})
        button.on_click(lambda _: setattr(text, "value", f"<p>sent {box.value}</p>"))
        widget._on_message(widget, ["value", box.id, "use the median"], [])
        widget._on_message(widget, ["click", button.id], [])
        page.read()  # sent already, while the loop is still blocked
        assert page.value(text) == "<p>sent use the median</p>"
    finally:
        release.set()
        loop.call_soon_threadsafe(loop.stop)
        running.join(30)
        loop.close()


def test_a_panel_is_an_anywidget_of_its_own_class_with_the_loader_and_id_anywidget_gives():
    import anywidget

    class Plain(anywidget.AnyWidget):  # what AnyWidget makes of a class that only names its loader
        _esm = PanelWidget._esm.default_value

    widget, plain = PanelWidget(Document()), Plain()
    try:
        assert type(widget) is PanelWidget  # no class made per panel (AnyWidget's add_traits would)
        state, expected = widget.get_state(), plain.get_state()
        assert state["_esm"] == expected["_esm"]
        assert state["_anywidget_id"] == "jupyter_agent.notebook.panel.turn_widget.PanelWidget"
        assert expected["_anywidget_id"].endswith(".Plain")  # the same form: module, then class
        assert {key: state[key] for key in ("_model_name", "_model_module", "_view_name", "_view_module")} == {
            key: expected[key] for key in ("_model_name", "_model_module", "_view_name", "_view_module")
        }
        assert len(widget.keys) == len(set(widget.keys))
    finally:
        widget.close()
        plain.close()
