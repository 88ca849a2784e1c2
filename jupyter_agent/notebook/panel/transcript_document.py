"""A transcript as a static document: the one Markdown writer for every saved form of a turn.

Used for the finished ``%%agent`` cell (a saved notebook keeps every answer; nbconvert, GitHub and
nbviewer show it), for headless runs and for the extension's transcript view of a session file.
Blocks are kept in order: Markdown text, tool cards (a collapsible ``<details>`` with the
arguments and the output), thinking (collapsed the same way) and images. Model and tool text is
untrusted: the model's Markdown is kept as ``safe_markdown`` makes it (its raw HTML escaped,
images as links, links only with a safe scheme) and what this module writes around it is escaped.

A saved output carries ``text/markdown`` and a short ``text/plain``, no ``text/html``: every
viewer that renders HTML renders the Markdown too (JupyterLab, Notebook 7, GitHub, nbviewer,
``nbconvert --to html``), and ``nbconvert --to markdown`` takes ``text/html`` first when there is
one, which made a saved answer raw HTML in the exported ``.md``. The Markdown sits in one
``<div class="ja-static ja-state-…">`` (a blank line on each side, so what it holds is read as
Markdown), which gives styles and tests the turn's state.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from jupyter_agent.notebook.panel import formatting as fmt
from jupyter_agent.notebook.panel.markdown import safe_markdown, unclosed_fence

if TYPE_CHECKING:
    from jupyter_agent.messages import Message

# Tool output in a saved notebook is for reading, not for scrolling through.
STATIC_OUTPUT_CHARS = 4_000
# The text/plain of an output: what a terminal or a notebook diff shows at a glance.
PLAIN_CHARS = 300
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~])")


def fenced(text: str, language: str = "") -> str:
    """A code fence that the content cannot close early."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def escape_markdown(text: str) -> str:
    """Text shown literally, not as Markdown or HTML (notes, the user's own words)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


@dataclass
class Card:
    """One tool call with its result (``None`` while the tool runs or when the turn stopped first)."""

    name: str
    args: object  # as the model gave them (a dict, unless it sent something else)
    result: str | None = None
    is_error: bool = False
    status: str = ""
    withheld: str = ""  # what the model's copy of the result left out (the data policy)

    def title(self) -> str:
        state = self.status or ("error" if self.is_error else "done" if self.result is not None else "no result")
        summary = fmt.args_summary(self.args, width=60)
        return " · ".join(part for part in (self.name, summary, state) if part)

    def body(self) -> str:
        sections = [f"{label}:\n\n{fenced(text, language)}" for label, text, language in fmt.args_sections(self.args)]
        if self.result is None:
            sections.append("*(no result: the turn stopped before the tool finished)*")
        elif self.result:
            sections.append(f"{'error' if self.is_error else 'output'}:\n\n{fenced(self.result)}")
        if self.withheld:
            sections.append(f"*{escape_markdown(self.withheld)}*")
        return "\n\n".join(sections)

    def markdown(self) -> str:
        return _details_markdown(self.title(), self.body())


@dataclass
class Thinking:
    """The model's thinking, collapsed (a session's transcript; a finished cell keeps none)."""

    text: str

    def markdown(self) -> str:
        return _details_markdown("Thinking", fenced(self.text))


def _details_markdown(title: str, body: str) -> str:
    return f"<details><summary>{html.escape(title)}</summary>\n\n{body}\n\n</details>"


@dataclass
class Image:
    data: bytes
    mime: str = "image/png"


Block = str | Card | Thinking | Image  # str: Markdown


@dataclass
class TranscriptDocument:
    """Blocks added in order; ``bundles()`` turns them into notebook outputs."""

    output_chars: int = STATIC_OUTPUT_CHARS
    blocks: list[Block] = field(default_factory=list)
    _cards: dict[str, Card] = field(default_factory=dict)

    def text(self, markdown: str) -> None:
        """Model text: its Markdown is kept, made safe; a code fence it left open is closed here."""
        text = markdown.strip()
        if text:
            marker = unclosed_fence(text)
            self.blocks.append(safe_markdown(f"{text}\n{marker}" if marker else text))

    def markdown_block(self, markdown: str) -> None:
        """Markdown made by this package (already escaped where it holds outside text)."""
        if markdown:
            self.blocks.append(markdown)

    def note(self, text: str) -> str | None:
        """The note's block (for ``retract``), or None when there is no text."""
        if not text.strip():
            return None
        block = f"*{escape_markdown(text.strip())}*"
        self.blocks.append(block)
        return block

    def retract(self, block: Block) -> None:
        """Removes ``block`` (by identity) if it was not taken yet; a block already shown stays."""
        for index, kept in enumerate(self.blocks):
            if kept is block:
                del self.blocks[index]
                return

    def error(self, text: str) -> None:
        self.blocks.append(f"**Error**\n\n{fenced(text)}")

    def user(self, text: str, label: str = "You") -> None:
        self.blocks.append(f"**{label}:** {escape_markdown(text)}")

    def heading(self, text: str) -> None:
        self.blocks.append(f"### {escape_markdown(text)}")

    def thinking(self, text: str) -> None:
        if text.strip():
            self.blocks.append(Thinking(text.strip()))

    def tool_call(self, call_id: str, name: str, args: object) -> Card:
        card = Card(name=name, args=args)
        self._cards[call_id] = card
        self.blocks.append(card)
        return card

    def tool_result(
        self,
        call_id: str,
        name: str,
        content: fmt.ToolContent,
        is_error: bool = False,
        cancelled: bool = False,
        stopped: bool = False,
        withheld: str = "",
    ) -> None:
        """``cancelled``: the run was stopped before or while the call ran, which is no tool error;
        ``stopped``: the call itself was stopped in its work (it reads "stopped").
        ``content`` is what the user sees; ``withheld`` what the model's copy of it left out."""
        card = self._cards.get(call_id) or self.tool_call(call_id, name, {})
        card.result = fmt.truncate(fmt.output_text(content), self.output_chars)
        card.is_error = is_error and not cancelled
        card.withheld = withheld
        if cancelled:
            card.status = "stopped" if stopped else "cancelled"
        for data, mime in fmt.images(content):
            self.blocks.append(Image(data, mime))

    def set_status(self, call_id: str, status: str) -> None:
        if call_id in self._cards:
            self._cards[call_id].status = status

    def markdown(self) -> str:
        """The whole document as Markdown; images as a marker."""
        return "\n\n".join(_markdown_of(block) if not isinstance(block, Image) else "*[image]*" for block in self.blocks)

    def take(self) -> list[Block]:
        """The blocks added since the last ``take`` (an incremental display)."""
        taken, self.blocks = self.blocks, []
        return taken

    def bundles(self, blocks: list[Block] | None = None, summary: str = "", state: str = "") -> list[dict[str, str]]:
        """Notebook output bundles: text runs as Markdown + a short plain text; images as images.

        ``state`` (done, stopped, error, ...) becomes a ``ja-state-*`` class of the last text output's
        wrapper (the one ending with the status line), for styles and tests.
        """
        blocks = self.blocks if blocks is None else blocks
        pieces: list[list[str | Card | Thinking] | Image] = []
        for block in blocks:
            if isinstance(block, Image):
                pieces.append(block)
            elif pieces and isinstance(pieces[-1], list):
                pieces[-1].append(block)
            else:
                pieces.append([block])
        last_text = max((n for n, piece in enumerate(pieces) if isinstance(piece, list)), default=-1)
        out: list[dict[str, str]] = []
        for n, piece in enumerate(pieces):
            if isinstance(piece, Image):
                out.append({piece.mime: base64.b64encode(piece.data).decode("ascii"), "text/plain": "<image>"})
            else:
                out.append(_text_bundle(piece, summary if not out else "", state if n == last_text else ""))
        return out


def _markdown_of(block: str | Card | Thinking) -> str:
    return block if isinstance(block, str) else block.markdown()


def _text_bundle(blocks: list[str | Card | Thinking], summary: str, state: str) -> dict[str, str]:
    markdown = "\n\n".join(_markdown_of(block) for block in blocks)
    classes = f"ja-static ja-state-{html.escape(state)}" if state else "ja-static"
    words = " ".join(block for block in blocks if isinstance(block, str)).split()
    head = " ".join(words)
    head = head if len(head) <= PLAIN_CHARS else head[: PLAIN_CHARS - 1] + "…"
    return {
        "text/markdown": f'<div class="{classes}">\n\n{markdown}\n\n</div>',
        "text/plain": "\n".join(part for part in (summary, head) if part),
    }


def messages_document(messages: Iterable[Message], *, result_chars: int) -> TranscriptDocument:
    """A session's messages as a document: headed prompts and answers, cards with their results."""
    from jupyter_agent.messages import (
        AssistantMessage,
        TextContent,
        ThinkingContent,
        ToolCall,
        ToolResultMessage,
        UserMessage,
        without_turn_context,
    )
    from jupyter_agent.runtime.privacy import local_content, withheld_note

    document = TranscriptDocument(output_chars=result_chars)
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            text = (
                content
                if isinstance(content, str)
                else "\n\n".join(block.text if isinstance(block, TextContent) else "[image]" for block in content)
            )
            document.heading("You")
            document.markdown_block(escape_markdown(without_turn_context(text)))
        elif isinstance(message, AssistantMessage):
            document.heading("Agent" + (f" · {message.model}" if message.model else ""))
            for block in message.content:
                if isinstance(block, TextContent):
                    document.text(block.text)
                elif isinstance(block, ThinkingContent) and not block.redacted:
                    document.thinking(block.thinking)
                elif isinstance(block, ToolCall):
                    document.tool_call(block.id, block.name, block.arguments)
                    result = results.get(block.id)
                    if result is not None:
                        shown = local_content(result.details) or result.content
                        content = [part for part in shown if getattr(part, "type", "") == "text"]
                        document.tool_result(
                            block.id,
                            block.name,
                            content or [{"type": "text", "text": "(no output)"}],
                            result.is_error,
                            withheld=withheld_note(result.details),
                        )
            if message.error_message:
                document.markdown_block(f"**Error:** {escape_markdown(message.error_message)}")
    return document
