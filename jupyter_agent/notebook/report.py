"""What ``%agent`` subcommands return: Markdown in notebooks, plain text in terminals."""

from __future__ import annotations


class Report:
    """Rich in notebooks (Markdown), readable in terminals (plain text)."""

    def __init__(self, markdown: str, text: str | None = None) -> None:
        self.markdown = markdown
        self.text = text if text is not None else markdown

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __repr__(self) -> str:
        return self.text


__all__ = ["Report"]
