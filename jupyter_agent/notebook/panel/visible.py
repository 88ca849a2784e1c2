"""What is shown for approval is what runs: no character may hide or reorder the text around it.

``reveal`` writes each invisible or reordering character as its code point, ``⟨U+202E⟩``: bidi
controls (U+202A–202E, U+2066–2069, U+200E/F, U+061C), zero-width and other format characters
(U+200B–200D, U+2060–2064, U+FEFF, U+00AD …), Unicode tag characters (U+E0000–E007F, which can
smuggle text), variation selectors, blank-looking fillers, and control characters other than
newline and tab (a lone carriage return can overwrite a terminal line; ESC starts an escape
sequence). ``strip_escapes`` removes whole terminal escape sequences from text bound for a terminal.
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
    "|\r(?!\n)"
)
# CSI (ESC [ … final, or the one-byte C1 form), OSC/DCS/APC/PM/SOS strings up to BEL or ST, and
# the two-character sequences (ESC followed by one character).
_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[\s\S]*?(?:\x07|\x1b\\|\x9c|$)"
    r"|\x1b[ -~]"
)


def reveal(text: str) -> str:
    """``text`` with every invisible or reordering character written as ``⟨U+XXXX⟩``."""
    return _INVISIBLE.sub(lambda match: f"⟨U+{ord(match.group(0)[0]):04X}⟩", text)


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences (colors, cursor moves, title changes …)."""
    return _ESCAPE_SEQUENCE.sub("", text)


def terminal_safe(text: str) -> str:
    """For a terminal: escape sequences removed, then anything still invisible revealed."""
    return reveal(strip_escapes(text))


__all__ = ["reveal", "strip_escapes", "terminal_safe"]
