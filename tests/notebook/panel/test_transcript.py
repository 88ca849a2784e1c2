import pytest

from jupyter_agent.notebook.panel.transcript import MarkdownStream


def stream_through(text, *, step=10, render_every=7, limit=200):
    stream = MarkdownStream(piece_limit=limit)
    for index, start in enumerate(range(0, len(text), step)):
        stream.append(text[start : start + step])
        if index % render_every == 0:
            stream.render()
    stream.close()
    return stream


@pytest.mark.parametrize("render_every", [1, 3, 50])
def test_pieces_cover_the_text_exactly(kit, render_every):
    text = kit.answer(6000)
    stream = stream_through(text, render_every=render_every)
    assert "".join(stream.frozen_sources) + stream.live_source == text
    assert stream.text == text
    assert len(stream.pieces) >= 6000 // (4 * 200)


def test_frozen_pieces_are_never_updated_again(kit):
    text = kit.answer(4000)
    stream = MarkdownStream(piece_limit=200)
    document = stream.widget.document
    frozen_ids: set[int] = set()
    for start in range(0, len(text), 10):
        stream.append(text[start : start + 10])
        stream.render()
        touched = {op[1] for op in document.take() if op[0] != "c"}
        assert not touched & frozen_ids
        frozen_ids |= {piece.id for piece in stream.pieces[:-1]}
    assert frozen_ids


def test_a_growing_piece_sends_only_its_new_end(kit):
    stream = MarkdownStream()
    document = stream.widget.document
    stream.append("A first sentence that is long enough to keep. ")
    stream.render()
    document.take()
    stream.append("And more.")
    stream.render()
    (op,) = document.take()
    assert op[0] == "a" and op[3] == " And more.</p>"  # the first sentence is not resent


def test_live_piece_renders_markdown_safely():
    stream = MarkdownStream()
    stream.append("**bold** <script>x</script>")
    assert stream.pieces == []  # nothing is sent before render()
    stream.render()
    (piece,) = stream.pieces
    assert piece.value == "<p><strong>bold</strong> &lt;script&gt;x&lt;/script&gt;</p>"
    assert piece._dom_classes == ("ja-md",)


def test_split_paragraph_pieces_carry_seam_classes():
    stream = stream_through("Sentence number one is here. " * 20, render_every=1, limit=100)
    classes = [piece._dom_classes for piece in stream.pieces]
    assert "ja-seam-text-after" in classes[0]
    assert all(names[:2] == ("ja-md", "ja-seam-text-before") for names in classes[1:])
    assert all(piece.value.startswith(" ") for piece in stream.pieces[1:])  # the split paragraph flows on


def test_split_fence_is_closed_and_reopened():
    code = "```python\n" + "".join(f"value_{i} = {i}\n" for i in range(40)) + "```\n"
    stream = stream_through(code, render_every=1, limit=120)
    values = [piece.value for piece in stream.pieces]
    assert len(values) > 2
    assert all(value.count("<pre>") == 1 for value in values)
    pieces = stream.pieces
    assert "ja-seam-block-after" in pieces[0]._dom_classes and "ja-seam-block-before" in pieces[1]._dom_classes


def test_pieces_are_nodes_of_the_stream(kit):
    stream = MarkdownStream(piece_limit=30)
    for paragraph in ("Para one is here.\n\n", "Para two is here.\n\n", "Para three is here and more.\n\n"):
        stream.append(paragraph)
        stream.render()
    stream.close()
    assert len(stream.pieces) >= 2 and list(stream.widget.children) == stream.pieces


def test_markup_the_stream_has_not_closed_yet_never_shows_raw():
    stream = MarkdownStream()
    stream.append("Status: **Offl")
    stream.render()
    assert stream.pieces[-1].value == "<p>Status: <strong>Offl</strong></p>"  # no raw ** before the bold closes
    stream.append("ine** and `pd.read")
    stream.render()
    assert stream.pieces[-1].value == "<p>Status: <strong>Offline</strong> and <code>pd.read</code></p>"
    stream.append("_csv` **")
    stream.render()
    assert stream.pieces[-1].value == "<p>Status: <strong>Offline</strong> and <code>pd.read_csv</code></p>"
    stream.append("never closed")
    stream.close()  # the answer ended: what it holds is shown as it is
    assert "**never closed" in stream.pieces[-1].value


def test_a_closed_stream_shows_its_text_as_it_is_even_with_nothing_pending():
    stream = MarkdownStream()
    stream.append("a *half")
    stream.render()
    assert "<em>half</em>" in stream.pieces[-1].value
    stream.close()
    assert stream.pieces[-1].value == "<p>a *half</p>"
