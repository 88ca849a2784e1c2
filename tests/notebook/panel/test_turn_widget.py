from panel_mirror import PanelMirror

from jupyter_agent.notebook.panel.nodes import HTML, Button, Document, VBox
from jupyter_agent.notebook.panel.turn_widget import FRONT_END, VERSION, PanelWidget


class Page:
    """A page's side of one panel widget: says hello, decodes what it gets (panel_mirror)."""

    def __init__(self, widget, meter, version=None, inflate=True):
        self.widgets = {}
        self.mirror = PanelMirror(widget.model_id, "cell", self._node)
        self.meter, self.seen = meter, len(meter.sent)
        widget._on_message(widget, ["hello", version, inflate], [])
        self.read()

    def _node(self, comm_id):
        return self.widgets.setdefault(comm_id, type("Node", (), {"state": {}})())

    def read(self):
        for sent in self.meter.sent[self.seen :]:
            if sent.msg_type == "comm_msg" and sent.data.get("method") == "custom":
                self.mirror.receive(sent.data["content"], sent.buffers)
        self.seen = len(self.meter.sent)

    def value(self, node):
        return self.widgets[self.mirror.node_comm(node.id)].state.get("value")


def panel(meter):
    document = Document()
    text = HTML("<p>first</p>", document)
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
    assert snapshot.data["content"] == {"s": True, "rt": VERSION}
    assert bytes(snapshot.buffers[1]).decode() == FRONT_END and b".ja-panel{" in bytes(snapshot.buffers[2])
    assert page.value(text) == "<p>first</p>"
    Page(widget, meter, version=VERSION)  # a page that has the front end already
    assert meter.sent[-1].data["content"] == {"s": True, "rt": None} and len(meter.sent[-1].buffers) == 1


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


def test_a_page_without_decompression_gets_plain_operations(meter):
    _, text, _, widget = panel(meter)
    page = Page(widget, meter, inflate=False)
    text.value = "<p>first, then plain</p>"
    widget.flush()
    page.read()
    assert isinstance(meter.sent[-1].data["content"], list) and page.value(text) == "<p>first, then plain</p>"


def test_a_second_page_restarts_the_stream_for_both(meter):
    _, text, _, widget = panel(meter)
    first = Page(widget, meter)
    second = Page(widget, meter, version=VERSION)
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
    widget._on_message(widget, ["click", button.id], [])  # no loop here: handled at once
    page.read()
    assert page.value(text) == "<p>stopping</p>"
    widget.immediate.add(button.id)
    button.on_click(lambda _: setattr(text, "value", "<p>stopped</p>"))
    widget._on_message(widget, ["click", button.id], [])  # on the thread it arrived on; sent with the next flush
    assert text.value == "<p>stopped</p>"
