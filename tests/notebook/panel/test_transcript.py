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


def test_frozen_pieces_are_never_updated_again(meter, kit):
    text = kit.answer(4000)
    stream = MarkdownStream(piece_limit=200)
    frozen_seen = {}
    for start in range(0, len(text), 10):
        stream.append(text[start : start + 10])
        stream.render()
        for piece in stream.pieces[:-1]:
            frozen_seen.setdefault(piece.model_id, len(meter.updates_of(piece)))
    stream.close()
    assert frozen_seen
    for piece in stream.pieces[:-1]:
        assert len(meter.updates_of(piece)) == frozen_seen[piece.model_id]


def test_live_piece_renders_markdown_safely():
    stream = MarkdownStream()
    stream.append("**bold** <script>x</script>")
    assert stream.pieces == []  # nothing is sent before render()
    stream.render()
    (piece,) = stream.pieces
    expected = '<div class="ja-md"><p><strong>bold</strong> &lt;script&gt;x&lt;/script&gt;</p></div>'
    assert piece.value == expected


def test_split_paragraph_pieces_carry_seam_classes():
    stream = stream_through("Sentence number one is here. " * 20, render_every=1, limit=100)
    values = [piece.value for piece in stream.pieces]
    assert "ja-seam-text-after" in values[0]
    assert all("ja-seam-text-before" in value for value in values[1:])
    assert all(value.startswith('<div class="ja-md ja-seam-text-before') for value in values[1:])


def test_split_fence_is_closed_and_reopened():
    code = "```python\n" + "".join(f"value_{i} = {i}\n" for i in range(40)) + "```\n"
    stream = stream_through(code, render_every=1, limit=120)
    values = [piece.value for piece in stream.pieces]
    assert len(values) > 2
    assert all(value.count("<pre>") == 1 for value in values)
    assert "ja-seam-block-after" in values[0] and "ja-seam-block-before" in values[1]


def test_shared_layout_and_style_are_reused(meter):
    import ipywidgets as W
    from ipywidgets.widgets.widget_string import HTMLStyle

    layout, style = W.Layout(), HTMLStyle()
    meter.reset()
    stream = MarkdownStream(layout=layout, style=style, piece_limit=30)
    for paragraph in ("Para one is here.\n\n", "Para two is here.\n\n", "Para three is here and more.\n\n"):
        stream.append(paragraph)
        stream.render()
    stream.close()
    opened = [item.data["state"]["_model_name"] for item in meter.sent if item.msg_type == "comm_open"]
    assert "LayoutModel" not in opened and "HTMLStyleModel" not in opened
    assert opened.count("HTMLModel") == len(stream.pieces) >= 2
