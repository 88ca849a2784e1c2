"""``Agent``: a small stateful wrapper that owns a history and delegates to ``run_agent_loop``."""

from __future__ import annotations

import inspect
from typing import Callable, Sequence

from jupyter_agent.loop.abort import AbortController
from jupyter_agent.loop.agent_loop import run_agent_loop
from jupyter_agent.loop.types import AgentLoopError, AgentLoopOptions, AgentTool, EventListener, LoopEvent
from jupyter_agent.messages import AssistantMessage, Message, UserContent
from jupyter_agent.model import Model, StreamFn, StreamOptions

ALREADY_RUNNING = "Agent is already running"


class Agent:
    def __init__(
        self,
        model: Model,
        stream_fn: StreamFn,
        system_prompt: str | None = None,
        tools: Sequence[AgentTool] = (),
        stream_options: StreamOptions | None = None,
        max_turns: int | None = None,
    ) -> None:
        self.options = AgentLoopOptions(
            model=model,
            stream_fn=stream_fn,
            system_prompt=system_prompt,
            tools=tuple(tools),
            stream_options=stream_options,
            max_turns=max_turns,
        )
        self.messages: list[Message] = []
        self._listeners: list[EventListener] = []
        self._controller: AbortController | None = None

    @property
    def is_running(self) -> bool:
        return self._controller is not None

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def abort(self, reason: BaseException | None = None) -> None:
        if self._controller is not None:
            self._controller.abort(reason)

    async def prompt(self, content: UserContent | None) -> AssistantMessage:
        if self._controller is not None:
            raise AgentLoopError(ALREADY_RUNNING)
        self._controller = AbortController()
        try:
            return await run_agent_loop(content, self.messages, self.options, self._dispatch, self._controller.signal)
        finally:
            self._controller = None

    async def _dispatch(self, event: LoopEvent) -> None:
        for listener in list(self._listeners):
            outcome = listener(event)
            if inspect.isawaitable(outcome):
                await outcome
