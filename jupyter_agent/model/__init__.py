"""The model boundary: models, request context, stream events and the event stream."""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.model.event_stream import (
        STREAM_ENDED_WITHOUT_RESULT,
        AssistantMessageEventStream,
        StreamEndedWithoutResult,
        StreamFn,
        start_producer,
    )
    from jupyter_agent.model.events import (
        AssistantMessageEvent,
        DoneEvent,
        ErrorEvent,
        StartEvent,
        TextDeltaEvent,
        TextEndEvent,
        TextStartEvent,
        ThinkingDeltaEvent,
        ThinkingEndEvent,
        ThinkingStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
    )
    from jupyter_agent.model.transform import transform_for_request, transform_messages, transform_with_origins
    from jupyter_agent.model.types import (
        Context,
        HistorySource,
        Model,
        ModelCost,
        ModelInputMetadata,
        ModelInputSource,
        StreamOptions,
        ToolRepairSource,
        ToolSpec,
    )

__all__ = [
    "STREAM_ENDED_WITHOUT_RESULT",
    "AssistantMessageEvent",
    "AssistantMessageEventStream",
    "Context",
    "DoneEvent",
    "ErrorEvent",
    "HistorySource",
    "Model",
    "ModelCost",
    "ModelInputMetadata",
    "ModelInputSource",
    "StartEvent",
    "StreamEndedWithoutResult",
    "StreamFn",
    "StreamOptions",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolRepairSource",
    "ToolSpec",
    "start_producer",
    "transform_for_request",
    "transform_messages",
    "transform_with_origins",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
