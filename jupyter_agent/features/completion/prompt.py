"""The request of one completion: a short system prompt and one user message, capped.

Layout: the live variables the prefix names, an outline of the cells above (their first lines),
then the cell with a ``<CURSOR>`` marker between its prefix and suffix. Every part has a cap, so a
notebook with hundreds of variables and cells gives a request of well under 2 000 tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.features.completion.context import VariableFact
from jupyter_agent.messages import UserMessage
from jupyter_agent.model import Context
from jupyter_agent.model.secrets import redact_secrets

CURSOR = "<CURSOR>"
PREFIX_CHARS = 2_000  # the cell before the cursor: the lines that decide what comes next
SUFFIX_CHARS = 600
OUTLINE_CELLS = 12  # cells above the current one
OUTLINE_LINE_CHARS = 100
OUTLINE_LINES_PER_CELL = 2
MAX_COMPLETION_TOKENS = 128  # a line or a short block: longer answers arrive too late to be useful

SYSTEM_PROMPT = (
    "You complete Python code in a Jupyter notebook cell. Reply with only the text to insert at "
    f"{CURSOR}: no explanation, no Markdown fences, and never repeat the text before or after the cursor. "
    "Prefer the live variables' real column names and attributes listed below. Keep it short: finish "
    "the current line, or at most a few lines. Reply with nothing if no completion is useful."
)


@dataclass(frozen=True)
class CompletionInput:
    """What one request is built from (frozen: built on the loop, read by the stream)."""

    prefix: str
    suffix: str
    variables: tuple[VariableFact, ...] = ()
    cells_above: tuple[str, ...] = ()  # sources of the cells above, nearest last


def completion_context(data: CompletionInput) -> Context:
    return Context(system_prompt=SYSTEM_PROMPT, messages=[UserMessage(content=completion_text(data))])


def completion_text(data: CompletionInput) -> str:
    parts = []
    if data.variables:
        parts.append("Live variables (from the kernel):\n" + "\n".join(fact.text for fact in data.variables))
    outline = _outline(data.cells_above)
    if outline:
        parts.append("Cells above (first lines):\n" + outline)
    prefix = data.prefix[-PREFIX_CHARS:]
    suffix = data.suffix[:SUFFIX_CHARS]
    parts.append(f"The cell:\n{prefix}{CURSOR}{suffix}")
    return redact_secrets("\n\n".join(parts))  # a key typed into a cell must not reach the provider


def _outline(cells: tuple[str, ...]) -> str:
    lines = []
    for source in cells[-OUTLINE_CELLS:]:
        kept = [line for line in source.splitlines() if line.strip()][:OUTLINE_LINES_PER_CELL]
        for line in kept:
            lines.append(line if len(line) <= OUTLINE_LINE_CHARS else line[: OUTLINE_LINE_CHARS - 1] + "…")
        if kept:
            lines.append("---")
    return "\n".join(lines[:-1])


def clean_completion(text: str, prefix: str, suffix: str) -> str:
    """The model's answer as text to insert: without fences and without a repeat of the prefix's line."""
    stripped = text
    if stripped.lstrip().startswith("```"):
        body = stripped.lstrip()[3:]
        body = body.split("\n", 1)[1] if "\n" in body else ""
        stripped = body.rsplit("```", 1)[0] if "```" in body else body
    line = prefix.rsplit("\n", 1)[-1]
    if line.strip() and stripped.startswith(line):
        stripped = stripped[len(line) :]  # the model echoed the current line
    if suffix and stripped.endswith(suffix.split("\n", 1)[0]) and suffix.split("\n", 1)[0].strip():
        stripped = stripped[: -len(suffix.split("\n", 1)[0])]
    return stripped
