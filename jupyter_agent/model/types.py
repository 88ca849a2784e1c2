"""What the loop hands a stream function: the model, the request context and its options."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from jupyter_agent.messages import Message


class ModelCost(BaseModel):
    """USD per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class Model(BaseModel):
    id: str
    name: str = ""
    api: str = "litellm"
    provider: str = "openai"
    base_url: str | None = None
    reasoning: bool = False
    input: list[Literal["text", "image"]] = Field(default_factory=lambda: ["text"])  # type: ignore[arg-type]
    cost: ModelCost = Field(default_factory=ModelCost)
    # Conservative defaults: most current chat models accept at least this much.
    context_window: int = 128_000
    max_tokens: int = 16_384

    def model_post_init(self, __context: Any) -> None:
        if not self.name:
            self.name = self.id

    @property
    def accepts_images(self) -> bool:
        return "image" in self.input

    def same_as(self, other: "Model") -> bool:
        return (self.provider, self.api, self.id) == (other.provider, other.api, other.id)


class ToolSpec(BaseModel):
    """A tool as the provider sees it: never the local execute function. Frozen: a tool hands out
    the same spec to every request."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=dict)


class Context(BaseModel):
    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    # What this one request adds after its last message (the task plan, the memory index): it
    # changes from step to step, so it follows the prefix a provider caches, and it is no message
    # of the history (nobody said it; the next request carries its own).
    step_context: str | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_tokens: int | None = None
    temperature: float | None = None
    tool_choice: str | dict[str, Any] | None = None
    reasoning: str | None = None  # reasoning effort: "low" | "medium" | "high"
    api_key: str | None = None
    api_base: str | None = None
    # Seconds without any data from the provider before the response fails; None:
    # JUPYTER_AGENT_STREAM_TIMEOUT, else 120. It bounds a stall, never a long answer.
    idle_timeout: float | None = Field(default=None, gt=0)
    # Prompt-cache breakpoints in the request; None: for the providers that need them
    # (``cache_breakpoints.takes_cache_breakpoints``), True for an endpoint known to read them.
    cache_breakpoints: bool | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class HistorySource(BaseModel):
    # Frozen, so one instance per index can be shared by every request's metadata.
    model_config = ConfigDict(frozen=True)

    type: Literal["history"] = "history"
    message_index: int


class ToolRepairSource(BaseModel):
    model_config = ConfigDict(frozen=True)

    type: Literal["tool_repair"] = "tool_repair"
    message_index: int
    tool_call_id: str


ModelInputSource = Annotated[Union[HistorySource, ToolRepairSource], Field(discriminator="type")]


class ModelInputMetadata(BaseModel):
    history_message_count: int
    sources: list[ModelInputSource] = Field(default_factory=list)
