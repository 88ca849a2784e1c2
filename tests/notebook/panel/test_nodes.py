import pytest

from jupyter_agent.notebook.panel.nodes import (
    HTML,
    Accordion,
    Button,
    Document,
    Image,
    Textarea,
    VBox,
    common_prefix,
    utf16_length,
    walk,
)


def test_creating_a_node_records_one_create_operation_with_its_non_default_properties():
    document = Document()
    button = Button("Stop", document, button_style="danger", _dom_classes=("ja-stop",))
    assert document.take() == [("c", button.id, "button", {"d": "Stop", "s": "danger", "k": ["ja-stop"]})]
    assert document.take() == []


def test_a_growing_value_sends_only_its_new_end_in_utf16_units():
    document = Document()
    node = HTML("<p>🙂 a first sentence, long enough</p>", document)
    document.take()
    node.value = "<p>🙂 a first sentence, long enough to keep</p>"
    [op] = document.take()
    at = op[2]
    assert op[:2] == ("a", node.id) and op[3] == " to keep</p>"
    assert at == utf16_length("<p>🙂 a first sentence, long enough")  # the emoji counts 2, as in JavaScript
    node.value = "<b>x</b>"  # nothing worth keeping: the value is sent whole
    assert document.take() == [("p", node.id, {"v": "<b>x</b>"})]
    node.value = "<b>x</b>"
    assert document.take() == []  # unchanged: nothing to send


def test_a_value_growing_before_its_closing_tags_counts_its_offset_back_from_the_end():
    document = Document()
    head = "<p>🙂" + " word" * 30
    node = HTML(head + "</p>", document)
    document.take()
    node.value = head + " more</p>"
    [op] = document.take()
    assert op == ("a", node.id, -4, " more</p>")  # 4 UTF-16 units back from the end: "</p>"
    assert (head + "</p>")[: op[2]] + op[3] == node.value  # as the front end's slice applies it
    start = "<p>a start to keep"
    node.value = start + "x" * 1000 + "</p>"
    document.take()
    node.value = start + "y</p>"  # far from the end: the offset from the start is the shorter one
    assert document.take() == [("a", node.id, len(start), "y</p>")]


def test_appending_children_sends_only_the_new_ones():
    document = Document()
    first, second, third = HTML("1", document), HTML("2", document), HTML("3", document)
    box = VBox([first], document)
    document.take()
    box.children = (first, second, third)
    assert document.take() == [("+", box.id, 1, [second.id, third.id])]
    box.children = (third,)
    assert document.take() == [("p", box.id, {"n": [third.id]})]


def test_the_snapshot_rebuilds_the_current_state_and_drops_pending_operations():
    document = Document()
    text = HTML("hello", document)
    fold = Accordion([text], document, titles=("Thinking",))
    root = VBox([fold], document)
    document.set_root(root)
    text.value = "hello world"
    snapshot = document.snapshot()
    assert document.take() == []
    assert ("c", text.id, "html", {"v": "hello world"}) in snapshot
    assert ("c", fold.id, "fold", {"t": "Thinking"}) in snapshot
    assert ("p", root.id, {"n": [fold.id]}) in snapshot and snapshot[-1] == ("r", root.id)
    assert [node.id for node in walk(root)] == [root.id, fold.id, text.id]


def test_front_end_events_reach_their_node_without_echo():
    document = Document()
    clicks = []
    button = Button("Go", document)
    button.on_click(clicks.append)
    box = Textarea(document)
    fold = Accordion([], document)
    document.take()
    document.receive(["click", button.id])
    document.receive(["value", box.id, "use a bar chart"])
    document.receive(["open", fold.id, True])
    for malformed in (["click"], "click", ["click", "x"], ["value", box.id, 3], ["click", 999]):
        document.receive(malformed)
    assert clicks == [button] and box.value == "use a bar chart" and fold.selected_index == 0
    assert document.take() == []  # the page already shows what it sent


def test_unknown_properties_are_refused():
    with pytest.raises(TypeError, match=r"HTML has no properties \['layout'\]"):
        HTML("x", layout=None)
    with pytest.raises(AttributeError, match="Button has no property 'colour'"):
        Button("x").colour = "red"


def test_images_travel_as_base64():
    document = Document()
    image = Image(document, value=b"\x89PNG", format="png")
    assert document.take() == [("c", image.id, "image", {"v": "iVBORw=="})]


def test_common_prefix():
    assert common_prefix("abcdef", "abcxyz") == 3
    assert common_prefix("abc", "abcdef") == 3
    assert common_prefix("", "abc") == 0
