import json

import comm
import ipywidgets as W

from jupyter_agent.notebook.panel.comm_meter import WIRE_ENVELOPE_BYTES, CommMeter


def test_counts_opens_and_updates_and_restores():
    original = comm.create_comm
    with CommMeter() as meter:
        html = W.HTML("x")
        opened = meter.messages
        html.value = "héllo"
        update = meter.sent[-1]
    assert comm.create_comm is original
    assert opened == 3  # the HTML, its default layout and style
    assert update.msg_type == "comm_msg" and update.data["state"] == {"value": "héllo"}
    expected = json.dumps({"comm_id": html.model_id, "data": update.data}, ensure_ascii=False)
    assert update.content_bytes == len(expected.encode())
    assert meter.updates_of(html) == [{"value": "héllo"}]
    assert meter.wire_bytes_estimate == meter.content_bytes + WIRE_ENVELOPE_BYTES * meter.messages


def test_binary_buffers_are_counted():
    with CommMeter() as meter:
        image = W.Image(value=b"\x00" * 1000, format="png")
        meter.reset()
        image.value = b"\x01" * 2000
    assert meter.sent[-1].buffer_bytes == 2000
    assert meter.content_bytes >= 2000
