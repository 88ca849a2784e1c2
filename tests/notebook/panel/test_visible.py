import pytest

from jupyter_agent.notebook.panel.visible import reveal, strip_escapes, terminal_safe

REVEALED = [
    ("a\u202eb", "a⟨U+202E⟩b"),
    ("\u2066x\u2069", "⟨U+2066⟩x⟨U+2069⟩"),
    ("l\u200er\u200f", "l⟨U+200E⟩r⟨U+200F⟩"),
    ("zero\u200b\u200c\u200d\u2060", "zero⟨U+200B⟩⟨U+200C⟩⟨U+200D⟩⟨U+2060⟩"),
    ("\ufeffbom", "⟨U+FEFF⟩bom"),
    ("tag\U000e0041", "tag⟨U+E0041⟩"),
    ("bell\x07", "bell⟨U+0007⟩"),
    ("over\rwrite", "over⟨U+000D⟩write"),
    ("soft\u00adhyphen", "soft⟨U+00AD⟩hyphen"),
    ("esc\x1b[0m", "esc⟨U+001B⟩[0m"),
]


@pytest.mark.parametrize("text, expected", REVEALED)
def test_invisible_and_bidi_characters_are_revealed(text, expected):
    assert reveal(text) == expected


def test_ordinary_text_is_unchanged():
    text = "naïve café — 数据 🙂 tab\tnew\nline crlf\r\n"
    assert reveal(text) == text


def test_escape_sequences_are_stripped_for_a_terminal():
    assert (
        strip_escapes("\x1b[31mred\x1b[0m \x1b]0;title\x07done \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bc")
        == "red done link "
    )
    assert terminal_safe("\x1b[2Kx\x1b") == "x⟨U+001B⟩"
