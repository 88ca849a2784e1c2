"""Markdown → safe HTML with mistune, every piece of raw HTML in the source escaped.

mistune (a dependency of nbconvert, so present wherever JupyterLab is) parses CommonMark with GFM
tables, strikethrough and bare URLs. The renderer below changes what untrusted text could abuse:
raw HTML is shown as text, links open in a new tab and only with a safe scheme, images become
links (the browser must not fetch URLs a model wrote), and a code fence's language cannot break
out of its attribute. A code fence still open at the end (a streaming answer) runs to the end.

The block regexes are what ``markdown_split`` needs to cut a streaming answer at block seams.
"""

from __future__ import annotations

import re
from typing import Any

import mistune
from mistune.core import BlockState

from jupyter_agent.notebook.panel.inline import escape, safe_url, strip_controls

FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`]*?)[ \t]*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
QUOTE = re.compile(r"^ {0,3}> ?(.*)$")
ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*)|[ \t]*)$")
TABLE_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_LANGUAGE = re.compile(r"[^\w+#.\-]")


class SafeHTMLRenderer(mistune.HTMLRenderer):
    """mistune's HTML renderer with links, images and code languages made safe for untrusted text."""

    def __init__(self) -> None:
        super().__init__(escape=True)

    def link(self, text: str, url: str, title: str | None = None) -> str:
        href = safe_url(url)
        if href is None:
            return text
        return f'<a href="{escape(href)}" target="_blank" rel="noopener noreferrer">{text}</a>'

    def image(self, text: str, url: str, title: str | None = None) -> str:
        return self.link(text or escape(url), url)

    def block_code(self, code: str, info: str | None = None) -> str:
        language = _LANGUAGE.sub("", (info or "").split(None, 1)[0]) if info and info.strip() else ""
        attribute = f' class="language-{language}"' if language else ""
        return f"<pre><code{attribute}>{escape(code.rstrip(chr(10)))}</code></pre>\n"


_MARKDOWN: Any = mistune.create_markdown(renderer=SafeHTMLRenderer(), plugins=["table", "strikethrough", "url"])
# Deeper nesting is rendered as text: bounds the work on hostile input.
_MARKDOWN.block.max_nested_level = 8


def render_markdown(source: str) -> str:
    """Render Markdown source to HTML in which only markup made here is live."""
    text = strip_controls(source.replace("\r\n", "\n").replace("\r", "\n"))
    return str(_MARKDOWN(text)).strip()


def render_inline_markdown(text: str) -> str:
    """Inline markup only: a leading ``#`` or ``1.`` stays text (plan items, one-line labels)."""
    tokens = _MARKDOWN.inline(strip_controls(text), {})
    return str(_MARKDOWN.renderer.render_tokens(tokens, BlockState()))


def unclosed_fence(source: str) -> str:
    """The marker that closes a code fence left open at the end of `source`, else ""."""
    marker = ""
    for line in source.split("\n"):
        if not marker:
            if match := FENCE_OPEN.match(line):
                marker = match.group(2)
        elif re.match(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$", line):
            marker = ""
    return marker
