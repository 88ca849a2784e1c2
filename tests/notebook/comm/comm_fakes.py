"""Fakes for the comm tests: a frontend's comm, the integration's handler, a recorded session."""

from __future__ import annotations

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.session import SessionStore


class FakeComm:
    """A frontend-opened comm as the kernel sees it: what the kernel sends is recorded."""

    def __init__(self, comm_id: str = "frontend-1") -> None:
        self.comm_id = comm_id
        self.sent: list[dict] = []
        self.closed = False
        self._on_msg = None
        self._on_close = None

    def send(self, data=None, metadata=None, buffers=None) -> None:
        self.sent.append(data)

    def close(self, data=None, metadata=None, buffers=None) -> None:
        self.closed = True

    def on_msg(self, callback) -> None:
        self._on_msg = callback

    def on_close(self, callback) -> None:
        self._on_close = callback

    # what the frontend does
    def receive(self, data) -> None:
        self._on_msg({"content": {"comm_id": self.comm_id, "data": data}})

    def close_from_frontend(self) -> None:
        self._on_close({"content": {"comm_id": self.comm_id, "data": {}}})

    @property
    def last(self) -> dict:
        return self.sent[-1]


class RecordingHandler:
    def __init__(self, folder) -> None:
        self.folder = folder
        self.calls: list[tuple] = []
        self.refuse: Exception | None = None

    def sessions_folder(self):
        return self.folder

    def stop(self, session):
        self.calls.append(("stop", session))
        if self.refuse:
            raise self.refuse
        return "Stopped the agent."

    def steer(self, text, session):
        self.calls.append(("steer", text, session))
        if self.refuse:
            raise self.refuse
        return "The agent reads it at its next step."


def hello(version: int = 1, client_session: str | None = None) -> dict:
    """A comm_open's message; ``client_session``: the kernel client's (browser tab's) session id."""
    message: dict = {"content": {"data": {"type": "hello", "version": version, "client": "test"}}}
    if client_session is not None:
        message["header"] = {"session": client_session}
    return message


def record_turn(
    store: SessionStore, prompt: str, codes: list[str], *, failing: tuple[int, ...] = (), model: str = "test-model"
) -> None:
    """A turn that ran each code with the python tool (one step each), then answered."""
    store.append(UserMessage(content=prompt))
    for index, code in enumerate(codes):
        call = ToolCall(id=f"{prompt}-{index}", name="python", arguments={"code": code})
        store.append(AssistantMessage(content=[call], model=model, stop_reason="tool_use"))
        store.append(
            ToolResultMessage(
                tool_call_id=call.id, tool_name="python", is_error=index in failing, content=[TextContent(text=f"out {index}")]
            )
        )
    store.append(AssistantMessage(content=[TextContent(text=f"Done: {prompt}")], model=model))
