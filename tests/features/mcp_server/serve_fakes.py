"""Stand-ins for the serve tests: a recording renderer, a session over a real store, IPython's events, tools."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from jupyter_agent.loop import AgentTool
from jupyter_agent.session import SessionStore


class Renderer:
    """Records what the serve cell's panel is given; ``answer`` decides approvals (a future: a click)."""

    def __init__(self, answer: Any = "once") -> None:
        self.answer = answer
        self.events: list[Any] = []
        self.asked: list[Any] = []
        self.states: list[tuple[str, ...]] = []
        self.errors: list[str] = []
        self.finished = 0

    def handle(self, event: Any) -> None:
        self.events.append(event)

    async def ask(self, request: Any) -> str:
        self.asked.append(request)
        if isinstance(self.answer, asyncio.Future):
            return await self.answer
        return self.answer

    def set_state(self, *state: str) -> None:
        self.states.append(state)

    def show_error(self, text: str) -> None:
        self.errors.append(text)

    def note(self, text: str) -> None:
        pass

    def finish(self) -> None:
        self.finished += 1

    def types(self) -> list[str]:
        return [event.type for event in self.events]


class Session:
    def __init__(self, path: Path, name: str = "serve") -> None:
        self.name = name
        self.path = path
        self.store = SessionStore(path)
        self.snapshots = None
        self.lock = asyncio.Lock()


class Events:
    """IPython's ``shell.events``, for pre_run_cell and post_run_cell."""

    def __init__(self) -> None:
        self.callbacks: dict[str, list[Any]] = {"pre_run_cell": [], "post_run_cell": []}

    def register(self, name: str, callback: Any) -> None:
        self.callbacks[name].append(callback)

    def unregister(self, name: str, callback: Any) -> None:
        self.callbacks[name].remove(callback)

    def trigger(self, name: str) -> None:
        for callback in list(self.callbacks[name]):
            callback(None)


class Shell:
    def __init__(self) -> None:
        self.events = Events()


class CodeArgs(BaseModel):
    code: str


class NoArgs(BaseModel):
    pass


def tools(ran: list[str] | None = None, shell: Shell | None = None) -> list[AgentTool]:
    ran = ran if ran is not None else []

    async def python(args: CodeArgs, signal: Any) -> str:
        if shell is not None:  # the real tool runs a cell: the shell fires its events
            shell.events.trigger("pre_run_cell")
        ran.append(args.code)
        if shell is not None:
            shell.events.trigger("post_run_cell")
        return f"ran {args.code}"

    async def variables(args: NoArgs, signal: Any) -> str:
        return "answer: int = 42"

    return [
        AgentTool("variables", "The namespace.", NoArgs, variables, label="Variables", read_only=True),
        AgentTool("python", "Run code.", CodeArgs, python, label="Python"),
    ]
