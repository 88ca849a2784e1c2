"""A ``CodeWatch`` (``tools/python_tool.py``) that records the code it was shown, for tests."""

from __future__ import annotations

from typing import Any


class RecordingWatch:
    """Says what it saw: the python tool only carries its ``line`` and details through."""

    def __init__(self, line: str = "Namespace: + a (int)") -> None:
        self.line = line
        self.seen: list[str] = []

    def before(self, code: str) -> int:
        self.seen.append(code)
        return len(self.seen)

    def after(self, token: int) -> tuple[str, list[dict[str, Any]]]:
        return self.line, [{"token": token}] if self.line else []


__all__ = ["RecordingWatch"]
