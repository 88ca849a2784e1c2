"""One tool call: lookup, argument validation and coercion, execution, the result envelope.

Every failure the model can act on becomes an error result; only cancellation raises. An
exception with a ``details`` attribute (e.g. ``ToolError(message, details=...)``) gives its error
result those details, as a returned ``ToolOutput`` gives its result its own: the model reads the
message, renderers may read the details (the user's copy of an output the model's withheld).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from jupyter_agent.loop.abort import AbortSignal, RunCancelled, abortable, cancelled_details
from jupyter_agent.loop.types import AgentTool, ToolOutput
from jupyter_agent.messages import ImageContent, TextContent, ToolCall, ToolResultMessage, copy_json

_LISTED_TOOLS = 20  # enough to recover from a typo without flooding the context
_ECHOED_CHARS = 2_000  # of the arguments a validation error shows back: enough to see the mistake


def tool_not_found(name: str, tools: Mapping[str, AgentTool]) -> str:
    if not tools:
        return f"Tool not found: {name}. No tool was executed. No tools are currently available."
    names = ", ".join(list(tools)[:_LISTED_TOOLS])
    return (
        f"Tool not found: {name}. No tool was executed. Available tools: {names}. "
        "Use exact names from the current tool declarations."
    )


def validation_failed(name: str, error: ValidationError, arguments: dict[str, Any]) -> str:
    problems = []
    for item in error.errors(include_url=False):
        location = ".".join(str(part) for part in item["loc"]) or "root"
        problems.append(f"  - {location}: {item['msg']}")
    received = json.dumps(arguments, indent=2, default=str, ensure_ascii=False)
    if len(received) > _ECHOED_CHARS:
        # Echoing a 5 MB argument would put it into the context a second time.
        received = f"{received[:_ECHOED_CHARS]}… ({len(received)} characters of arguments in all; only their start is shown)"
    return f'Validation failed for tool "{name}":\n' + "\n".join(problems) + f"\n\nReceived arguments:\n{received}"


def error_result(call: ToolCall, text: str, details: Any = None) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=[TextContent(text=text)], details=details, is_error=True
    )


def describe_exception(error: BaseException) -> str:
    return str(error) or type(error).__name__


async def execute_tool(call: ToolCall, tools: Mapping[str, AgentTool], signal: AbortSignal) -> ToolResultMessage:
    signal.throw_if_aborted()
    tool = tools.get(call.name)
    if tool is None:
        return error_result(call, tool_not_found(call.name, tools))
    try:
        # Validate a copy: coercion ("12" -> 12) must never rewrite the recorded call.
        args = tool.parameters.model_validate(copy_json(call.arguments))
    except ValidationError as error:
        return error_result(call, validation_failed(call.name, error, call.arguments))
    signal.throw_if_aborted()
    try:
        returned: object = tool.execute(args, signal)
        if inspect.isawaitable(returned):
            returned = await abortable(returned, signal)
        content, details = normalize_output(returned)
    except Exception as error:  # noqa: BLE001 - the model reads tool failures as results
        if isinstance(error, RunCancelled) and error is not signal.reason:
            # The tool was stopped in its work (Stop, Interrupt) and says so, with what it did before:
            # its own result, even when the run is stopping too; no failure.
            own = error.details if isinstance(error.details, dict) else {}
            return error_result(call, describe_exception(error), {**own, **cancelled_details(while_running=True)})
        if signal.reason is not None:
            raise signal.reason from None
        return error_result(call, describe_exception(error), getattr(error, "details", None))
    signal.throw_if_aborted()
    return ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content=content, details=details)


def normalize_output(output: object) -> tuple[list[TextContent | ImageContent], Any]:
    details = None
    if isinstance(output, ToolOutput):
        details = output.details
        output = output.content
    if output is None:
        return [], details
    if isinstance(output, str):
        return [TextContent(text=output)], details
    if not isinstance(output, Iterable):
        raise TypeError(f"Tool output must be text or image blocks, got {type(output).__name__}")
    blocks: list[TextContent | ImageContent] = []
    for block in output:
        if isinstance(block, str):
            blocks.append(TextContent(text=block))
        elif isinstance(block, (TextContent, ImageContent)):
            blocks.append(block)
        else:
            raise TypeError(f"Tool output must be text or image blocks, got {type(block).__name__}")
    return blocks, details
