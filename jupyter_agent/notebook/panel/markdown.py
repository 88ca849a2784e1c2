"""Markdown → safe HTML for the panel: the subset models write, with all raw HTML escaped.

Blocks: paragraphs, ATX headings, fenced code, block quotes, (nested) lists, rules and GFM pipe
tables; inline markup is `inline.render_inline`. Raw HTML in the source is shown as text. The
`markdown` package is not a dependency of jupyterlab or nbconvert here, and a renderer we own
lets the streaming transcript render unfinished blocks (an open code fence runs to the end).
"""

from __future__ import annotations

import re

from jupyter_agent.notebook.panel.inline import escape, render_inline

FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`]*?)[ \t]*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
QUOTE = re.compile(r"^ {0,3}> ?(.*)$")
ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*)|[ \t]*)$")
TABLE_DELIMITER = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_LANGUAGE = re.compile(r"[^\w+#.\-]")

# Deeper nesting than this is rendered as plain paragraphs: bounds recursion on hostile input.
_MAX_DEPTH = 8


def render_markdown(source: str) -> str:
    """Render Markdown source to HTML in which only markup made here is live."""
    text = source.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4)
    return _Blocks(text.split("\n"), depth=0).render(tight=False)


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


def is_table_start(lines: list[str], i: int) -> bool:
    return (
        i + 1 < len(lines)
        and "|" in lines[i]
        and "|" in lines[i + 1]
        and TABLE_DELIMITER.match(lines[i + 1]) is not None
    )


def starts_block(line: str) -> bool:
    """Whether a line begins a block that interrupts a running paragraph."""
    return bool(
        FENCE_OPEN.match(line) or HEADING.match(line) or RULE.match(line)
        or QUOTE.match(line) or _item(line)
    )


def _item(line: str) -> re.Match[str] | None:
    match = ITEM.match(line)
    # "-" alone or "1." alone are items; "---" is a rule (checked first by callers).
    return match if match and not RULE.match(line) else None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class _Blocks:
    def __init__(self, lines: list[str], depth: int) -> None:
        self.lines = lines
        self.depth = depth
        self.i = 0

    def render(self, *, tight: bool) -> str:
        out: list[str] = []
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if not line.strip():
                self.i += 1
            elif self.depth >= _MAX_DEPTH:
                out.append(self._paragraph(tight))
            elif match := FENCE_OPEN.match(line):
                out.append(self._fence(match))
            elif match := HEADING.match(line):
                level = len(match.group(1))
                out.append(f"<h{level}>{render_inline(match.group(2) or '')}</h{level}>")
                self.i += 1
            elif RULE.match(line):
                out.append("<hr>")
                self.i += 1
            elif QUOTE.match(line):
                out.append(self._quote())
            elif _item(line):
                out.append(self._list())
            elif is_table_start(self.lines, self.i):
                out.append(self._table())
            else:
                out.append(self._paragraph(tight))
        return "\n".join(out)

    def _fence(self, match: re.Match[str]) -> str:
        indent, marker, info = len(match.group(1)), match.group(2), match.group(3)
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$")
        body: list[str] = []
        self.i += 1
        # An unclosed fence runs to the end: exactly what a streaming code block needs.
        while self.i < len(self.lines) and not closing.match(self.lines[self.i]):
            line = self.lines[self.i]
            body.append(line[min(indent, _indent(line)):])
            self.i += 1
        self.i += 1
        language = _LANGUAGE.sub("", info.split(" ")[0]) if info else ""
        attr = f' class="language-{language}"' if language else ""
        return f"<pre><code{attr}>{escape(chr(10).join(body))}</code></pre>"

    def _quote(self) -> str:
        inner: list[str] = []
        while self.i < len(self.lines) and (match := QUOTE.match(self.lines[self.i])):
            inner.append(match.group(1))
            self.i += 1
        body = _Blocks(inner, self.depth + 1).render(tight=False)
        return f"<blockquote>\n{body}\n</blockquote>"

    def _list(self) -> str:
        first = _item(self.lines[self.i])
        assert first is not None
        marker = first.group(2)
        ordered = marker[-1] in ".)"
        items: list[list[str]] = []
        loose = False
        while self.i < len(self.lines):
            match = _item(self.lines[self.i])
            if not match or not _same_list(marker, match.group(2)) or _indent(self.lines[self.i]) > 3:
                break
            body, blank_inside = self._list_item(match)
            loose = loose or blank_inside
            items.append(body)
            # A blank line between two items makes the list loose (paragraphs in items).
            if self._skip_blank_before_sibling(marker):
                loose = True
            elif self.i < len(self.lines) and not self.lines[self.i].strip():
                break
        rendered = "".join(
            f"<li>{_Blocks(body, self.depth + 1).render(tight=not loose)}</li>" for body in items
        )
        if not ordered:
            return f"<ul>{rendered}</ul>"
        start = int(marker[:-1])
        start_attr = f' start="{start}"' if start != 1 else ""
        return f"<ol{start_attr}>{rendered}</ol>"

    def _list_item(self, match: re.Match[str]) -> tuple[list[str], bool]:
        spacing = match.group(3) or " "
        # Content indent: marker plus its spacing (4+ spaces means indented content: use one).
        gap = len(spacing) if len(spacing) <= 4 else 1
        content_indent = len(match.group(1)) + len(match.group(2)) + gap
        body = [match.group(4) or ""]
        blank_inside = False
        self.i += 1
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if not line.strip():
                following = self._next_nonblank(self.i)
                if following is None or _indent(self.lines[following]) < content_indent:
                    break
                body.extend("" for _ in range(following - self.i))
                blank_inside = True
                self.i = following
            elif _indent(line) >= content_indent:
                body.append(line[content_indent:])
                self.i += 1
            elif _item(line) or starts_block(line):
                break
            else:
                body.append(line.strip())  # lazy continuation of the item's paragraph
                self.i += 1
        return body, blank_inside

    def _skip_blank_before_sibling(self, marker: str) -> bool:
        if self.i >= len(self.lines) or self.lines[self.i].strip():
            return False
        following = self._next_nonblank(self.i)
        if following is None:
            return False
        match = _item(self.lines[following])
        if match and _same_list(marker, match.group(2)) and _indent(self.lines[following]) <= 3:
            self.i = following
            return True
        return False

    def _next_nonblank(self, i: int) -> int | None:
        while i < len(self.lines):
            if self.lines[i].strip():
                return i
            i += 1
        return None

    def _table(self) -> str:
        header = _cells(self.lines[self.i])
        aligns = [_alignment(cell) for cell in _cells(self.lines[self.i + 1])]
        self.i += 2
        rows: list[list[str]] = []
        while self.i < len(self.lines) and "|" in self.lines[self.i] and self.lines[self.i].strip():
            rows.append(_cells(self.lines[self.i]))
            self.i += 1
        width = len(header)

        def row(cells: list[str], tag: str) -> str:
            cells = (cells + [""] * width)[:width]
            return "<tr>" + "".join(
                f"<{tag}{_align_attr(aligns, k)}>{render_inline(cell)}</{tag}>"
                for k, cell in enumerate(cells)
            ) + "</tr>"

        body = "".join(row(cells, "td") for cells in rows)
        return f"<table><thead>{row(header, 'th')}</thead><tbody>{body}</tbody></table>"

    def _paragraph(self, tight: bool) -> str:
        lines = [self.lines[self.i].strip()]
        self.i += 1
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if not line.strip() or starts_block(line) or is_table_start(self.lines, self.i):
                break
            lines.append(line.lstrip())
            self.i += 1
        text = render_inline("\n".join(lines).rstrip(" "))
        return text if tight else f"<p>{text}</p>"


def _same_list(first: str, other: str) -> bool:
    if first[-1] in ".)":
        return other[-1] == first[-1]
    return other == first


def _cells(line: str) -> list[str]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(text)]


def _alignment(cell: str) -> str:
    left, right = cell.startswith(":"), cell.endswith(":")
    return "center" if left and right else "right" if right else "left" if left else ""


def _align_attr(aligns: list[str], k: int) -> str:
    align = aligns[k] if k < len(aligns) else ""
    return f' align="{align}"' if align else ""
