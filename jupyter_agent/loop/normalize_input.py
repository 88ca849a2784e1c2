"""The model's view of history: a normalized copy plus where each message came from."""

from __future__ import annotations

from jupyter_agent.messages import Message
from jupyter_agent.model import Model, ModelInputMetadata, transform_for_request


def build_model_input(history: list[Message], model: Model) -> tuple[list[Message], ModelInputMetadata]:
    messages, sources = transform_for_request(history, model)
    # Built from validated sources; validating a long session's thousands again costs milliseconds a step.
    metadata = ModelInputMetadata.model_construct(history_message_count=len(history), sources=sources)
    return messages, metadata
