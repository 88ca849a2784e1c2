"""Every applied notebook edit, kept beside the session so ``%agent undo`` can revert it.

One JSON line per edit: the step of the turn that made it, the operation, the cell before and
after (nbformat-shaped, ``None`` for an insert's before and a delete's after) and its index.
Undo sends the inverse operations, newest first, to the frontend.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from jupyter_agent.features.frontend import CellJson, EditOperation


@dataclass
class NotebookEdit:
    step: int
    op: str
    cell_id: str
    index: int
    before: CellJson | None
    after: CellJson | None

    def inverse(self) -> EditOperation:
        """The frontend operation that puts the document back."""
        if self.op == "insert":
            return {"op": "delete", "cell_id": self.cell_id}
        if self.op == "delete":
            before = self.before or {}
            return {
                "op": "insert",
                "index": self.index,
                "cell_id": self.cell_id,
                "cell_type": before.get("cell_type", "code"),
                "source": before.get("source", ""),
            }
        before = self.before or {}
        return {
            "op": "replace",
            "cell_id": self.cell_id,
            "cell_type": before.get("cell_type", "code"),
            "source": before.get("source", ""),
        }


def edits_sections(edits: list[NotebookEdit]) -> tuple[str, str]:
    """The edits ``%agent diff`` lists (markdown, text), per step, each as a diff of its cell; empty if none.

    Cells are named by their position when edited (as ``notebook_read`` and ``@cell[N]`` count) and id.
    """
    if not edits:
        return "", ""
    markdown = ["**Notebook cells**, per step:"]
    text = ["notebook cells, per step:"]
    for edit in edits:
        where = f"cell {edit.index} (`{edit.cell_id}`)"
        before = str((edit.before or {}).get("source", ""))
        after = str((edit.after or {}).get("source", ""))
        label = f"cell {edit.index}"
        lines = difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"{label} (before)", f"{label} (after)", lineterm=""
        )
        diff = "\n".join(lines) or f"{label}: no change"
        markdown.append(f"- step {edit.step}: {edit.op} of {where}\n\n```diff\n{diff}\n```")
        text.append(f"  step {edit.step}: {edit.op} of cell {edit.index} ({edit.cell_id})\n{diff}")
    return "\n".join(markdown), "\n".join(text)


class NotebookEditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_session(cls, session_path: Path) -> "NotebookEditLog":
        return cls(session_path.with_name(session_path.stem + ".notebook-edits.jsonl"))

    def record(self, edit: NotebookEdit) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as log:
            log.write(json.dumps({**asdict(edit), "undone": False}) + "\n")

    def edits(self) -> list[NotebookEdit]:
        return [edit for _, edit in self._numbered()]

    def last_step(self) -> int | None:
        edits = self.edits()
        return max(edit.step for edit in edits) if edits else None

    def take_step(self, step: int) -> list[NotebookEdit]:
        """The edits of ``step``, newest first, marked as undone in the log."""
        all_edits = self._numbered()
        chosen = [(n, edit) for n, edit in all_edits if edit.step == step]
        if chosen:
            with self.path.open("a", encoding="utf-8") as log:
                log.write(json.dumps({"undo_of": [n for n, _ in chosen]}) + "\n")
        return [edit for _, edit in reversed(chosen)]

    def _numbered(self) -> list[tuple[int, NotebookEdit]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        undone: set[int] = set()
        found: list[tuple[int, NotebookEdit]] = []
        count = 0
        for line in lines:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if entry.get("undo_of") is not None:
                undone.update(entry["undo_of"])
                continue
            found.append((count, NotebookEdit(**{k: entry[k] for k in ("step", "op", "cell_id", "index", "before", "after")})))
            count += 1
        return [(n, edit) for n, edit in found if n not in undone]
