from jupyter_agent.notebook.panel import AgentPanel
from jupyter_agent.notebook.panel.shared import Shared, is_visible, set_visible


def test_widgets_share_one_layout_and_style():
    shared = Shared()
    first, second = shared.html("a"), shared.html("b", "x")
    assert first.layout is second.layout is shared.layout and first.style is second.style
    assert second._dom_classes == ("x",)
    assert shared.button("go").layout is shared.layout


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
    opened = [item.data["state"]["_model_name"] for item in meter.sent if item.msg_type == "comm_open"]
    assert opened.count("LayoutModel") == 1
    assert meter.count()["comm_msg"] == 0  # built in its initial state, no follow-up updates
    # ~6 KB of stylesheet plus ~25 small widgets; unshared layouts made this ~53 KB.
    assert meter.content_bytes < 25_000
