from jupyter_agent.notebook.panel import AgentPanel
from jupyter_agent.notebook.panel.shared import Shared, is_visible, set_visible


def test_every_part_belongs_to_the_panels_one_document():
    shared = Shared()
    first, second = shared.html("a"), shared.html("b", "x")
    assert first.document is second.document is shared.document is shared.button("go").document
    assert second._dom_classes == ("x",)
    assert [node.kind for node in shared.document.nodes.values()] == ["html", "html", "button"]


def test_visibility_is_a_class():
    shared = Shared()
    box = shared.vbox([], "ja-body")
    set_visible(box, False)
    set_visible(box, False)
    assert box._dom_classes == ("ja-body", "ja-hide") and not is_visible(box)
    set_visible(box, True)
    assert box._dom_classes == ("ja-body",)


def test_an_empty_panel_is_cheap_to_open(meter):
    AgentPanel(model_label="m", session="main")
    meter.reset()
    panel = AgentPanel(model_label="m", session="main")
    opened = [item.data["state"]["_model_name"] for item in meter.sent if item.msg_type == "comm_open"]
    assert opened == ["AnyModel"]  # the kernel's shared Layout was opened by the first panel
    assert meter.count()["comm_msg"] == 0  # nothing is sent before a page says hello
    assert meter.content_bytes < 2_000  # the loader, not the front end (that is sent once per page)
    panel.widget._on_message(panel.widget, ["hello", panel.widget.__class__.__module__, True], [])
    (snapshot,) = [item for item in meter.sent if item.msg_type == "comm_msg"]
    assert snapshot.content_bytes + snapshot.buffer_bytes < 25_000 and snapshot.data["content"]["rt"]
