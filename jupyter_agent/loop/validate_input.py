"""Input validation, done before history changes so a refused prompt leaves no trace."""

from __future__ import annotations

import math

from pydantic import ValidationError

from jupyter_agent.loop.types import AgentLoopOptions
from jupyter_agent.messages import ImageContent, Message, TextContent, UserContent, UserMessage

PROMPT_REQUIRED = "Prompt is required"
INVALID_PROMPT_CONTENT = "Invalid prompt content"
STREAM_FN_REQUIRED = "stream_fn is required"
MAX_TURNS_INVALID = "max_turns must be a positive integer"


def image_not_supported(model_id: str) -> str:
    return f"Model {model_id} does not support image input"


def validate_loop_input(content: UserContent | None, history: list[Message], options: AgentLoopOptions) -> UserMessage | None:
    """Returns the user message to append (``None`` when continuing history) or raises ``ValueError``."""
    if options.stream_fn is None:
        raise ValueError(STREAM_FN_REQUIRED)
    validate_max_turns(options.max_turns)
    if content is None:
        if not any(message.role == "user" for message in history):
            raise ValueError(PROMPT_REQUIRED)
        return None
    blocks = validate_user_content(content, options.model.accepts_images, options.model.id)
    return UserMessage(content=blocks)


def validate_max_turns(max_turns: object) -> None:
    if max_turns is None:
        return
    # bool is an int subclass; True must not mean "one step".
    if isinstance(max_turns, bool) or not isinstance(max_turns, (int, float)):
        raise ValueError(MAX_TURNS_INVALID)
    if isinstance(max_turns, float) and (math.isnan(max_turns) or math.isinf(max_turns) or not max_turns.is_integer()):
        raise ValueError(MAX_TURNS_INVALID)
    if isinstance(max_turns, float) or max_turns < 1:
        raise ValueError(MAX_TURNS_INVALID)


def validate_user_content(content: object, accepts_images: bool, model_id: str) -> str | list[TextContent | ImageContent]:
    """Validated copy of user content; raises ``ValueError`` with the contract's texts."""
    if isinstance(content, str):
        if not content.strip():
            raise ValueError(PROMPT_REQUIRED)
        return content
    if not isinstance(content, (list, tuple)):
        raise ValueError(INVALID_PROMPT_CONTENT)
    if not content:
        raise ValueError(PROMPT_REQUIRED)
    blocks = [_validate_block(block) for block in content]
    has_image = any(isinstance(block, ImageContent) for block in blocks)
    if not has_image and not any(block.text.strip() for block in blocks if isinstance(block, TextContent)):
        raise ValueError(PROMPT_REQUIRED)
    if has_image and not accepts_images:
        raise ValueError(image_not_supported(model_id))
    return blocks


def _validate_block(block: object) -> TextContent | ImageContent:
    if isinstance(block, (TextContent, ImageContent)):
        block = block.model_dump()
    if not isinstance(block, dict):
        raise ValueError(INVALID_PROMPT_CONTENT)
    try:
        if block.get("type") == "text":
            return TextContent.model_validate(block)
        if block.get("type") == "image":
            image = ImageContent.model_validate(block)
            if not image.data or not image.mime_type:
                raise ValueError(INVALID_PROMPT_CONTENT)
            return image
    except ValidationError:
        raise ValueError(INVALID_PROMPT_CONTENT) from None
    raise ValueError(INVALID_PROMPT_CONTENT)
