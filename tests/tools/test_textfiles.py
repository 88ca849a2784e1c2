from pathlib import Path

from jupyter_agent.tools.textfiles import decode_text, has_binary_extension, image_type, looks_binary


def test_binary_sniffing_and_extensions():
    assert looks_binary(b"abc\x00def") and not looks_binary(b"plain text")
    assert has_binary_extension("a.PNG") and has_binary_extension("x.pyc")
    assert not has_binary_extension("a.py") and not has_binary_extension(".bashrc")


def test_image_types_and_lenient_decoding():
    assert image_type(Path("a.JPG")) == "image/jpeg" and image_type(Path("a.svg")) is None
    assert decode_text(b"caf\xe9") == "caf\ufffd"
