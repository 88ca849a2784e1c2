"""The task plan: an ordered checklist the model keeps with the ``plan`` tool.

``PlanState`` holds the items (id, text, status) and tells ``on_change`` listeners (the session's
plan file, the panel) after every accepted change. The model either replaces the whole list
(``items``) or patches items by id (``updates``); a change that would leave two items in
progress is refused as a whole, so a half-applied update never exists.

Text forms: ``render_plan_text`` (``%agent plan``, the tool's result, the system prompt) and
``plan_markdown`` (the static and terminal renderers).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Literal, Sequence, TypedDict

from jupyter_agent.errors import JupyterAgentError
from jupyter_agent.messages import JsonObject

Status = Literal["pending", "in_progress", "done"]
STATUSES = ("pending", "in_progress", "done")
# The plan is re-sent with every request: a checklist, not a document.
MAX_ITEMS = 30
MAX_TEXT_CHARS = 200

_MARKS = {"pending": "[ ]", "in_progress": "[>]", "done": "[x]"}
_log = logging.getLogger(__name__)


class PlanError(ValueError, JupyterAgentError):
    """A change the plan refuses; the message is written for the model."""


@dataclass(frozen=True)
class PlanItem:
    id: str
    text: str
    status: Status = "pending"


class PlanItemFields(TypedDict, total=False):
    """An item as the plan tool gives it (``replace``) or a change to one (``update``)."""

    id: str | None
    text: str
    status: Status


def two_in_progress(first: PlanItem, second: PlanItem) -> str:
    return (
        f"Only one item can be in progress at a time: {first.id} ({first.text!r}) and {second.id} "
        f"({second.text!r}) would both be in_progress. Mark the finished one done (or pending) in "
        "the same call. The plan was not changed."
    )


class PlanState:
    def __init__(self, items: list[PlanItem] | None = None) -> None:
        self._items: list[PlanItem] = []
        self._listeners: list[Callable[["PlanState"], object]] = []
        if items:
            self._items = _checked(list(items))

    @property
    def items(self) -> list[PlanItem]:
        return list(self._items)

    @property
    def in_progress(self) -> PlanItem | None:
        return next((item for item in self._items if item.status == "in_progress"), None)

    def __bool__(self) -> bool:
        return bool(self._items)

    def on_change(self, listener: Callable[["PlanState"], object]) -> Callable[[], None]:
        """Calls ``listener(state)`` after every accepted change; returns how to stop listening."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def replace(self, items: Sequence[PlanItemFields | PlanItem]) -> None:
        """The whole checklist; items without an id are numbered by position."""
        built = []
        for position, item in enumerate(items, start=1):
            if isinstance(item, dict):
                item = PlanItem(
                    id=str(item.get("id") or position), text=item.get("text", ""), status=item.get("status", "pending")
                )
            built.append(item)
        self._commit(_checked(built))

    def update(self, changes: Sequence[PlanItemFields]) -> None:
        """Patches items by id (``{"id", "status"?, "text"?}``); all or nothing."""
        items = {item.id: item for item in self._items}
        for change in changes:
            item_id = str(change.get("id", ""))
            if item_id not in items:
                known = ", ".join(items) or "none (set the plan with items first)"
                raise PlanError(f"No plan item with id {item_id!r}. Item ids: {known}. The plan was not changed.")
            current = items[item_id]
            items[item_id] = PlanItem(
                id=item_id, text=change.get("text") or current.text, status=change.get("status") or current.status
            )
        self._commit(_checked([items[item.id] for item in self._items]))

    def clear(self) -> None:
        self._commit([])

    def to_json(self) -> JsonObject:
        return {"items": [{"id": item.id, "text": item.text, "status": item.status} for item in self._items]}

    @classmethod
    def from_json(cls, data: object) -> "PlanState":
        """Raises ``PlanError`` for a document that is not a valid plan."""
        if not isinstance(data, dict) or not isinstance(data.get("items"), list):
            raise PlanError("a plan document is an object with an 'items' list")
        items = []
        for raw in data["items"]:
            if not isinstance(raw, dict):
                raise PlanError("every plan item is an object with id, text and status")
            items.append(PlanItem(id=str(raw.get("id", "")), text=str(raw.get("text", "")), status=raw.get("status", "pending")))
        return cls(items)

    def _commit(self, items: list[PlanItem]) -> None:
        self._items = items
        for listener in list(self._listeners):
            try:
                listener(self)
            except Exception:  # noqa: BLE001 - a broken display must not undo the model's change
                _log.exception("plan on_change listener failed")


def _checked(items: list[PlanItem]) -> list[PlanItem]:
    if len(items) > MAX_ITEMS:
        raise PlanError(f"A plan has at most {MAX_ITEMS} items ({len(items)} given): group the work into larger steps.")
    seen: set[str] = set()
    running: PlanItem | None = None
    cleaned = []
    for item in items:
        text = " ".join(str(item.text).split())
        if not item.id.strip():
            raise PlanError("Every plan item needs a non-empty id.")
        if not text:
            raise PlanError(f"Plan item {item.id} has no text.")
        if len(text) > MAX_TEXT_CHARS:
            raise PlanError(f"Plan item {item.id} is {len(text)} characters; keep each item under {MAX_TEXT_CHARS}.")
        if item.status not in STATUSES:
            raise PlanError(f"Plan item {item.id} has status {item.status!r}; use pending, in_progress or done.")
        if item.id in seen:
            raise PlanError(f"Two plan items have the id {item.id!r}; ids must be unique.")
        seen.add(item.id)
        item = PlanItem(id=item.id.strip(), text=text, status=item.status)
        if item.status == "in_progress":
            if running is not None:
                raise PlanError(two_in_progress(running, item))
            running = item
        cleaned.append(item)
    return cleaned


# -- rendering --------------------------------------------------------------------------------


def render_plan_text(state: PlanState) -> str:
    """The checklist as plain text (``%agent plan``, the tool's result)."""
    items = state.items
    if not items:
        return "No plan yet."
    done = sum(item.status == "done" for item in items)
    lines = [f"Plan ({done}/{len(items)} done):"]
    lines += [f"{_MARKS[item.status]} {item.id}. {item.text}" for item in items]
    return "\n".join(lines)


def plan_markdown(state: PlanState) -> str:
    """The checklist as a Markdown task list for the panel; the item in progress in bold."""
    lines = []
    for item in state.items:
        text = _escape_markdown(item.text)
        if item.status == "done":
            lines.append(f"- [x] ~~{text}~~")
        elif item.status == "in_progress":
            lines.append(f"- [ ] **{text}** *(in progress)*")
        else:
            lines.append(f"- [ ] {text}")
    return "\n".join(lines)


def _escape_markdown(text: str) -> str:
    for char in "\\`*_[]<>~":
        text = text.replace(char, "\\" + char)
    return text


__all__ = [
    "MAX_ITEMS",
    "STATUSES",
    "PlanError",
    "PlanItem",
    "PlanState",
    "Status",
    "plan_markdown",
    "render_plan_text",
]
