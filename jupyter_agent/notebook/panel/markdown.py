"""Markdown → safe HTML with mistune, every piece of raw HTML in the source escaped; and Markdown
→ safe Markdown, for the ``text/markdown`` a saved notebook keeps beside its HTML.

mistune (a dependency of nbconvert, so present wherever JupyterLab is) parses CommonMark with GFM
tables, strikethrough and bare URLs. The renderer below changes what untrusted text could abuse:
raw HTML is shown as text, links open in a new tab and only with a safe scheme, images become
links (the browser must not fetch URLs a model wrote), and a code fence's language cannot break
out of its attribute. A code fence still open at the end (a streaming answer) runs to the end.
``safe_markdown`` makes the same changes in Markdown itself (JupyterLab, GitHub and nbviewer
render a saved ``text/markdown`` with its raw HTML and images): the model's HTML becomes escaped
text, an image a link, a link of another scheme its text.

The block regexes are what ``markdown_split`` needs to cut a streaming answer at block seams.
"""

from __future__ import annotations

import re

import mistune
from mistune.core import BlockState
from mistune.renderers.markdown import MarkdownRenderer

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


_HTML_RENDERER = SafeHTMLRenderer()
_MARKDOWN = mistune.create_markdown(renderer=_HTML_RENDERER, plugins=["table", "strikethrough", "url"])
# Deeper nesting is rendered as text: bounds the work on hostile input.
_MARKDOWN.block.max_nested_level = 8


def render_markdown(source: str) -> str:
    """Render Markdown source to HTML in which only markup made here is live."""
    text = strip_controls(source.replace("\r\n", "\n").replace("\r", "\n"))
    return str(_MARKDOWN(text)).strip()


# A token of mistune's syntax tree ({"type": "link", "attrs": {"url": …}, "children": […]} …): a
# dict, as mistune's renderer methods are declared to take.
Token = dict[str, object]


class SafeMarkdownRenderer(MarkdownRenderer):
    """mistune's Markdown renderer, writing back what ``SafeHTMLRenderer`` would make safe."""

    def inline_html(self, token: Token, state: BlockState) -> str:
        return _literal(str(token["raw"]))

    def block_html(self, token: Token, state: BlockState) -> str:
        return _literal(str(token["raw"]).rstrip("\n")) + "\n\n"

    def link(self, token: Token, state: BlockState) -> str:
        if safe_url(_url(token)) is None:
            return self.render_children(token, state)  # the words stay, the link goes
        return super().link(token, state)

    def image(self, token: Token, state: BlockState) -> str:
        return self.link(token, state) if self.render_children(token, state) else self.link(_titled(token), state)


def _literal(raw: str) -> str:
    # A backslash before "<" and "&" keeps them text in CommonMark: no tag, no entity.
    return raw.replace("\\", "\\\\").replace("<", "\\<").replace("&", "\\&")


def _url(token: Token) -> str:
    """A link's or an image's URL ("" when it has none)."""
    attrs = token.get("attrs")
    return str(attrs.get("url", "")) if isinstance(attrs, dict) else ""


def _titled(token: Token) -> Token:
    """An image without alternative text, as a link whose text is its URL."""
    return {**token, "children": [{"type": "text", "raw": _url(token)}]}


_SAFE_MARKDOWN = mistune.create_markdown(renderer=SafeMarkdownRenderer(), plugins=["table", "strikethrough", "url"])
_SAFE_MARKDOWN.block.max_nested_level = 8
# Markdown with none of these holds no HTML, image or link to make safe: returned as it is.
_MAY_NEED_CARE = re.compile(r"<|\]\(|\]:|!\[|\]\[")


def safe_markdown(source: str) -> str:
    """Markdown in which only markup made here is live: the model's raw HTML escaped, images as
    links, links only with a safe scheme (http, https, mailto or relative)."""
    text = strip_controls(source.replace("\r\n", "\n").replace("\r", "\n"))
    if not _MAY_NEED_CARE.search(text):
        return text
    return str(_SAFE_MARKDOWN(text)).strip("\n")


def render_inline_markdown(text: str) -> str:
    """Inline markup only: a leading ``#`` or ``1.`` stays text (plan items, one-line labels)."""
    tokens = _MARKDOWN.inline(strip_controls(text), {})
    return _HTML_RENDERER.render_tokens(tokens, BlockState())


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


# Inline markers a streaming paragraph may have opened: code spans, strong and emphasis.
_INLINE_MARKER = re.compile(r"`+|\*\*|__|\*|_")


def provisionally_closed(source: str) -> str:
    """``source`` as it streams, with the inline markup its last paragraph left open closed (a
    marker with nothing after it yet is left out): mid-stream ``**Offl`` shows bold, not raw.

    Only openers CommonMark would take count (followed by a non-space, not inside a word for ``_``
    and ``*``): a list's ``* `` or a ``snake_case`` name is text. Inside an open code fence nothing
    changes: a fence renders its text as it is.
    """
    if unclosed_fence(source):
        return source
    start = source.rfind("\n\n") + 1
    tail = source[start:]
    opened: list[tuple[str, int]] = []
    code: tuple[str, int] | None = None  # inside a code span nothing else is markup
    for match in _INLINE_MARKER.finditer(tail):
        marker, at, end = match.group(), match.start(), match.end()
        if code is not None:
            if marker == code[0]:
                code = None
            continue
        if marker[0] == "`":
            code = (marker, at)
            continue
        before = tail[at - 1] if at else " "
        after = tail[end] if end < len(tail) else ""
        if before.isalnum() and after.isalnum():
            continue  # inside a word: 2*3, snake_case
        if opened and opened[-1][0] == marker and not before.isspace():
            opened.pop()
        elif not after.isspace():
            opened.append((marker, at))
    if code is not None:
        opened.append(code)
    if not opened:
        return source
    if opened[-1][1] + len(opened[-1][0]) == len(tail):  # just typed, nothing after it yet
        tail = tail[: opened.pop()[1]].rstrip(" ")
    return source[:start] + tail + "".join(marker for marker, _ in reversed(opened))
