"""The model summary of a compacted stretch: one request through the run's own ``stream_fn``."""

from __future__ import annotations

import inspect
import json
from typing import Sequence

from jupyter_agent.loop import AbortSignal, abortable
from jupyter_agent.messages import AssistantMessage, Message, Usage, UserMessage, user_text
from jupyter_agent.model import AssistantMessageEventStream, Context, Model, StreamFn, StreamOptions

SUMMARY_SYSTEM_PROMPT = (
    "You compact the transcript of a coding agent's run so the agent can continue the work with "
    "less context. You write the summary only; you never continue the task yourself."
)
SUMMARY_INSTRUCTIONS = """Summarize the transcript below for the agent that continues this work.
Write terse bullet points under these headings:
- Original request: the user's first request, quoted verbatim.
- Decisions: what was decided and why.
- Files and variables: every file and notebook variable read, created or changed.
- Commands and outcomes: commands and code that ran, with their results or errors.
- Open items: what remains to be done, unresolved errors, open questions.
State only what the transcript shows."""
# A summary is a briefing, not a transcript: about a page of bullets.
SUMMARY_MAX_TOKENS = 2_048
# Enough of each message to keep its substance; tool output is mostly bulk.
MESSAGE_CHARS = 4_000
TOOL_RESULT_CHARS = 1_000


def render_transcript(messages: Sequence[Message]) -> str:
    parts = []
    for message in messages:
        if isinstance(message, UserMessage):
            body, tag = user_text(message), "user"
        elif isinstance(message, AssistantMessage):
            calls = [f"[tool call] {call.name} {json.dumps(call.arguments, default=str)}" for call in message.tool_calls]
            body, tag = "\n".join(filter(None, [message.text, *calls])), "assistant"
        else:
            body = _cut(message.text, TOOL_RESULT_CHARS)
            tag = f'tool_result name="{message.tool_name}"' + (' error="true"' if message.is_error else "")
        parts.append(f"<{tag}>\n{_cut(body, MESSAGE_CHARS)}\n</{tag.split()[0]}>")
    return "\n".join(parts)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} characters cut]"


async def summarize_with_model(
    stream_fn: StreamFn,
    model: Model,
    messages: Sequence[Message],
    stream_options: StreamOptions | None,
    signal: AbortSignal,
) -> tuple[str | None, Usage | None]:
    """(summary text or ``None`` on failure, the request's usage if it produced one).

    Only cancellation raises: any other failure means "fall back to truncation".
    """
    prompt = f"{SUMMARY_INSTRUCTIONS}\n\n<transcript>\n{render_transcript(messages)}\n</transcript>"
    context = Context(system_prompt=SUMMARY_SYSTEM_PROMPT, messages=[UserMessage(content=prompt)])
    # The run's credentials and endpoint apply; its per-step choices (tools, temperature) do not.
    options = (stream_options or StreamOptions()).model_copy(
        update={"max_tokens": min(SUMMARY_MAX_TOKENS, model.max_tokens), "tool_choice": None, "temperature": None}
    )
    try:
        message = await complete_request(stream_fn, model, context, options, signal)
    except Exception:  # noqa: BLE001 - a failed summary degrades to truncation
        if signal.reason is not None:
            raise signal.reason from None
        return None, None
    if message.stop_reason in ("error", "aborted") or not message.text.strip():
        return None, message.usage
    return message.text.strip(), message.usage


async def complete_request(
    stream_fn: StreamFn, model: Model, context: Context, options: StreamOptions, signal: AbortSignal
) -> AssistantMessage:
    """One request outside the loop (a summary, a memory extraction): the final message, abortable."""
    obtained = stream_fn(model, context, options, None)
    stream = await abortable(obtained, signal) if inspect.isawaitable(obtained) else obtained
    try:
        signal.throw_if_aborted()  # before the coroutine exists: an unawaited one would warn
        return await abortable(_drain(stream), signal)
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


async def _drain(stream: AssistantMessageEventStream) -> AssistantMessage:
    async for _event in stream:
        pass
    return await stream.result()
