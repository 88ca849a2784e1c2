"""Inline Markdown → HTML: code spans, emphasis, links; everything else escaped.

Model text is untrusted: the HTML widget assigns ``innerHTML`` without sanitizing, so every
character of the source is escaped and only the markup produced here reaches the page.
"""

from __future__ import annotations

import html
import re

# Control characters never belong in rendered text; \x00 also marks placeholders below.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")

_ESCAPABLE = r"!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~"
_BACKSLASH = re.compile(rf"\\([{_ESCAPABLE}])")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^\s<>]+)>", re.I)
# [text](url "title") and ![alt](url); one level of nested brackets in the text is enough here.
_LINK = re.compile(
    r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)>?"
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
_BARE_URL = re.compile(r"(?<![\w/\"'=])(https?://[^\s<>\"'`]+[^\s<>\"'`.,;:!?)\]}*_~])")
_HARD_BREAK = re.compile(r"(?: {2,}|\\)\n")

_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.S)
_EM_STAR = re.compile(r"(?<!\*)\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?!\*)", re.S)
# Underscores inside words (snake_case) are not emphasis.
_EM_UNDERSCORE = re.compile(r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])", re.S)
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~", re.S)

_SAFE_SCHEMES = ("http:", "https:", "mailto:")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")


def escape(text: str) -> str:
    """Escape text for HTML element content and attribute values."""
    return _escape(_CONTROL.sub("", text))


def _escape(text: str) -> str:
    # For text already stripped of control characters: keeps the \x00 placeholder marks.
    return html.escape(text, quote=True)


def safe_url(url: str) -> str | None:
    """The URL if following it cannot run script (http, https, mailto or relative), else None."""
    cleaned = re.sub(r"[\x00-\x20]", "", url)
    if _SCHEME.match(cleaned) and not cleaned.lower().startswith(_SAFE_SCHEMES):
        return None
    return cleaned


def render_inline(text: str) -> str:
    """Render one paragraph's (or cell's) inline Markdown to safe HTML."""
    slots: list[str] = []

    def keep(fragment: str) -> str:
        slots.append(fragment)
        return f"\x00{len(slots) - 1}\x00"

    text = _CONTROL.sub("", text)
    # Order matters: code spans win over everything, then escapes, then links.
    text = _CODE_SPAN.sub(lambda m: keep(_code_span(m.group(2))), text)
    text = _BACKSLASH.sub(lambda m: keep(_escape(m.group(1))), text)
    text = _AUTOLINK.sub(lambda m: keep(_anchor(m.group(1), _escape(m.group(1)))), text)
    text = _LINK.sub(lambda m: keep(_link(m)), text)
    text = _BARE_URL.sub(lambda m: keep(_anchor(m.group(1), _escape(m.group(1)))), text)
    out = _emphasis(_escape(text))
    out = _HARD_BREAK.sub("<br>\n", out)
    return _restore(out, slots)


def _emphasis(escaped: str) -> str:
    # Emphasis markers survive HTML escaping, so they can be applied to escaped text.
    escaped = _STRONG.sub(r"<strong>\2</strong>", escaped)
    escaped = _EM_STAR.sub(r"<em>\1</em>", escaped)
    escaped = _EM_UNDERSCORE.sub(r"<em>\1</em>", escaped)
    return _STRIKE.sub(r"<del>\1</del>", escaped)


def _restore(text: str, slots: list[str]) -> str:
    # Slots may contain slots (a link's text with code); resolve until none are left.
    for _ in range(4):
        if "\x00" not in text:
            break
        text = _PLACEHOLDER.sub(lambda m: slots[int(m.group(1))], text)
    return text


def _code_span(body: str) -> str:
    if len(body) > 2 and body.startswith(" ") and body.endswith(" ") and body.strip():
        body = body[1:-1]
    return f"<code>{_escape(body.replace(chr(10), ' '))}</code>"


def _link(match: re.Match[str]) -> str:
    is_image, label, url = match.group(1), match.group(2), match.group(3)
    # Images from model text would make the browser fetch arbitrary URLs: show them as links.
    inner = _escape(label or url) if is_image else _emphasis(_escape(label))
    return _anchor(url, inner, fallback=_escape(match.group(0)))


def _anchor(url: str, inner: str, fallback: str | None = None) -> str:
    href = safe_url(url)
    if href is None:
        return fallback if fallback is not None else inner
    return f'<a href="{_escape(href)}" target="_blank" rel="noopener noreferrer">{inner}</a>'
