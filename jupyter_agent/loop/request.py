"""One request's settings (the loop's options with that request's overrides) and the ``TurnInfo`` snapshot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from jupyter_agent.loop.types import AgentLoopOptions, AgentTool, RequestPreparation, TurnInfo
from jupyter_agent.messages import AssistantMessage, Message, copy_message
from jupyter_agent.model import Model, StreamFn, StreamOptions, ToolSpec


@dataclass
class RequestSettings:
    model: Model
    stream_fn: StreamFn
    system_prompt: str | None
    tools: Sequence[AgentTool]
    stream_options: StreamOptions | None
    step_context: str | None = None

    @classmethod
    def resolve(cls, options: AgentLoopOptions, preparation: RequestPreparation | None) -> "RequestSettings":
        prep = preparation or RequestPreparation()
        stream_fn = prep.stream_fn or options.stream_fn
        assert stream_fn is not None, "validate_options refuses a loop without a stream_fn"
        return cls(
            model=prep.model or options.model,
            stream_fn=stream_fn,
            system_prompt=prep.system_prompt if prep.system_prompt is not None else options.system_prompt,
            tools=prep.tools if prep.tools is not None else options.tools,
            stream_options=prep.stream_options if prep.stream_options is not None else options.stream_options,
            step_context=prep.step_context,
        )

    @property
    def tools_by_name(self) -> dict[str, AgentTool]:
        return {tool.name: tool for tool in self.tools}

    @property
    def tool_specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self.tools]


class _LazyTurnInfo(TurnInfo):
    """``TurnInfo`` whose history snapshot is deep-copied on first access.

    Most hosts never read it; copying the whole transcript every step would make a long run
    quadratic. Read it during the callback: it is taken from the live history at that moment.
    """

    def __init__(self, message: AssistantMessage, history: list[Message]) -> None:
        self.message = copy_message(message)
        self._live = history
        self._snapshot: list[Message] | None = None

    @property
    def history(self) -> list[Message]:
        if self._snapshot is None:
            self._snapshot = [copy_message(m) for m in self._live]
        return self._snapshot

    @history.setter
    def history(self, value: list[Message]) -> None:
        self._snapshot = value


def snapshot_turn(message: AssistantMessage, history: list[Message]) -> TurnInfo:
    return _LazyTurnInfo(message, history)
