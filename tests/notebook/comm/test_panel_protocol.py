"""What the panel really sends, and what a page may send it, follow the panel's schema
(``labextension/protocol/panel.schema.json``, generated from ``panel_protocol``)."""

import base64
import json
import zlib
from pathlib import Path

import jsonschema
import pytest
from panel_streams import record  # the recorder of the front end's test streams, run here live

from jupyter_agent.notebook.comm.schema import PANEL_SCHEMA_PATH
from jupyter_agent.notebook.panel.comm_meter import CommMeter
from jupyter_agent.notebook.panel.nodes import HTML, Accordion, Button, Document, Image, Textarea, VBox
from jupyter_agent.notebook.panel.turn_widget import PanelWidget, primed_decompressor

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / PANEL_SCHEMA_PATH).read_text(encoding="utf-8"))
RECORDED = sorted((ROOT / "labextension" / "test" / "panel_streams").glob("*.json"))


def valid(definition, message):
    schema = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{definition}"}
    return jsonschema.Draft202012Validator(schema).is_valid(message)


def batches(messages):
    """Every batch of operations the messages carry (inflating each stream as a page does)."""
    inflate = None
    for content, buffers in messages:
        assert valid("PanelKernelMessage", content), content
        if isinstance(content, dict):
            fresh = primed_decompressor() if content.get("p") else zlib.decompressobj()
            inflate = fresh if content["s"] else None
            data = inflate.decompress(buffers[0]) if inflate else bytes(buffers[0])
            yield json.loads(data)
        elif content == "z":
            yield json.loads(inflate.decompress(buffers[0]))
        else:
            yield content


def check(recording):
    messages = [(m["content"], [base64.b64decode(b) for b in m["buffers"]]) for m in recording["messages"]]
    sent = list(batches(messages))
    assert len(sent) == len(messages) > 20
    for batch in [*sent, recording["final"]]:
        assert valid("OpBatch", json.loads(json.dumps(batch))), batch


def test_a_turn_of_the_real_panel_sends_only_what_the_schema_allows():
    for recording in (record(), record(can_inflate=False), record(second_hello_at=40)):
        check(recording)


@pytest.mark.parametrize("path", RECORDED, ids=lambda path: path.name)
def test_the_recorded_streams_the_front_end_is_tested_on_follow_the_schema(path):
    check(json.loads(path.read_text(encoding="utf-8")))


def test_there_are_recorded_streams():
    assert [path.name for path in RECORDED] == ["turn-plain.json", "turn-second-page.json", "turn.json"]


def test_every_kind_of_node_and_change_validates():
    with CommMeter() as meter:
        sent = every_kind_of_change()
    codes = {op[0] for batch in batches(sent(meter)) for op in batch}
    assert codes == {"c", "p", "a", "+", "r"}
    header, buffers = sent(meter)[0]
    assert header["rt"] and len(buffers) == 4  # the front end, its stylesheet and its primer came with it


def every_kind_of_change():
    document = Document()
    text = HTML("<p>" + "a long first sentence " * 2 + "</p>", document)
    button = Button("Stop", document, button_style="danger", icon="stop", tooltip="Stop the agent", disabled=True)
    box = Textarea(document, placeholder="Message…", rows=2)
    fold = Accordion([text], document, titles=("Thinking",), selected_index=0)
    image = Image(document, value=b"\x89PNG", format="png")
    root = VBox([fold, button], document, _dom_classes=("ja-panel",))
    document.set_root(root)
    widget = PanelWidget(document)
    widget._on_message(widget, ["hello", None, True], [])
    text.value = text.value[:-4] + " and more</p>"  # a splice
    root.children = (fold, button, box, image)  # an append
    button.disabled = False
    widget.flush()
    return lambda meter: [(s.data["content"], s.buffers) for s in meter.sent if s.msg_type == "comm_msg"]


@pytest.mark.parametrize(
    "message",
    [["hello", None, True], ["hello", "0123456789ab", False], ["click", 3], ["value", 4, "use a bar chart"], ["open", 5, False]],
)
def test_page_messages_the_panel_handles_validate(message):
    assert valid("PanelPageMessage", message)


@pytest.mark.parametrize("message", [["click"], "click", ["click", "x"], ["value", 2, 3], ["open", 5], ["tap", 1]])
def test_what_the_document_ignores_the_schema_refuses(message):
    document = Document()
    clicks = []
    Button("Go", document).on_click(clicks.append)
    document.take()
    document.receive(message)
    assert clicks == [] and document.take() == []
    assert not valid("PanelPageMessage", message)
