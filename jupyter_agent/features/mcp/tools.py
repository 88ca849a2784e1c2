"""MCP tools as agent tools: ``mcp__<server>__<tool>``, the server's JSON schema, results as content.

The schema reaches the provider unchanged: the tool's parameters class is a pydantic model that
accepts any object and reports the server's schema as its own, so the loop's validation passes
the arguments through and the server validates them. Results become text and image blocks
(resources and embedded content as text), capped like every other tool's output, with the
server's secrets redacted. ``readOnlyHint: true`` makes the tool read-only (never gated); every
other MCP tool is a mutation the permission policy asks about.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable

from pydantic import BaseModel, ConfigDict

from jupyter_agent.loop import AbortSignal, AgentTool, ToolOutput
from jupyter_agent.messages import ImageContent, JsonObject, JsonValue, TextContent
from jupyter_agent.tools.caps import DEFAULT_CAPS, OutputCaps, human_size, truncate_head
from jupyter_agent.tools.errors import ToolError

if TYPE_CHECKING:
    import mcp_types
    from mcp import MCPError

    from jupyter_agent.features.mcp.connection import ServerConnection

PREFIX = "mcp__"
MAX_NAME = 64  # OpenAI's limit for function names; Anthropic's is the same
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
_DESCRIPTION_CHARS = 2000


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` in the providers' charset; too long a name keeps a hash of the original."""
    name = _NOT_ALLOWED.sub("_", f"{PREFIX}{server}__{tool}")
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


class McpArguments(BaseModel):
    """A JSON object of whatever shape; the schema the provider sees is the server's (see ``model_json_schema``)."""

    model_config = ConfigDict(extra="allow")
    server_schema: ClassVar[JsonObject] = {}

    @classmethod
    def model_json_schema(cls, *args: object, **kwargs: object) -> JsonObject:
        return copy.deepcopy(cls.server_schema)


_MODELS: dict[int, tuple[mcp_types.Tool, type[McpArguments]]] = {}  # id(listed tool) -> (tool, its parameters class)


def _parameters_of(tool: mcp_types.Tool) -> type[McpArguments]:
    """One class per listed tool, reused by every turn: building a pydantic class costs milliseconds."""
    cached = _MODELS.get(id(tool))
    if cached is None or cached[0] is not tool:
        cached = _MODELS[id(tool)] = (tool, arguments_model(tool.input_schema))
    return cached[1]


def forget_listing(tools: Iterable[mcp_types.Tool]) -> None:
    for tool in tools:
        _MODELS.pop(id(tool), None)


def arguments_model(schema: dict[str, JsonValue] | None) -> type[McpArguments]:
    schema = dict(schema or {})
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})  # OpenAI refuses an object schema without properties
    return type("McpArguments", (McpArguments,), {"server_schema": schema, "__module__": __name__})


def is_read_only(tool: mcp_types.Tool) -> bool:
    annotations = getattr(tool, "annotations", None)
    return bool(annotations is not None and annotations.read_only_hint is True)


def agent_tool(
    connection: ServerConnection,
    tool: mcp_types.Tool,
    *,
    name: str,
    on_error: Callable[[str], None],
    redact: Callable[[str], str],
    caps: OutputCaps = DEFAULT_CAPS,
) -> AgentTool:
    server, remote = connection.name, tool.name
    description = (tool.description or getattr(tool, "title", None) or remote).strip()[:_DESCRIPTION_CHARS]

    async def execute(args: BaseModel, signal: AbortSignal) -> ToolOutput:
        from mcp import MCPError

        from jupyter_agent.features.mcp.connection import ServerUnavailable

        arguments = args.model_dump(mode="json")
        try:
            result = await connection.call_tool(remote, arguments)
        except ServerUnavailable as error:
            text = redact(str(error))
            on_error(f"{name}: {text}")
            raise ToolError(f"{text}. The tool {remote!r} did not return a result.") from None
        except MCPError as error:
            text = _call_failure(connection, remote, error, redact)
            on_error(f"{name}: {text}")
            raise ToolError(text) from None
        content = result_content(result, redact, caps)
        if result.is_error:
            raise ToolError(_text_of(content) or f"MCP tool {remote!r} reported an error")
        return ToolOutput(content=content, details={"mcp_server": server, "mcp_tool": remote})

    return AgentTool(
        name=name,
        description=f"[MCP server {server}] {description}",
        parameters=_parameters_of(tool),
        execute=execute,
        label=f"{remote} on MCP server {server}",
        read_only=is_read_only(tool),
    )


def _call_failure(connection: ServerConnection, remote: str, error: MCPError, redact: Callable[[str], str]) -> str:
    from mcp_types import REQUEST_TIMEOUT

    server = connection.name
    if connection.status == "crashed":
        return (
            f"MCP server {server!r} crashed while running {remote!r} ({connection.last_error}); "
            "it did not return a result and starts again at the next turn"
        )
    if error.error.code == REQUEST_TIMEOUT:
        return (
            f"MCP server {server!r} timed out: no answer from {remote!r} within "
            f"{connection.config.call_timeout:g} s; the call was cancelled"
        )
    return f"MCP server {server!r} could not run {remote!r}: {redact(error.error.message)}"


def server_tools(
    connection: ServerConnection, *, on_error: Callable[[str], None], redact: Callable[[str], str], taken: set[str]
) -> list[AgentTool]:
    """The agent tools of one server's current listing; names already ``taken`` get a distinguishing hash."""
    tools = []
    for tool in connection.tools:
        name = tool_name(connection.name, tool.name)
        if name in taken:
            name = tool_name(connection.name, f"{tool.name}\0{len(taken)}")
        taken.add(name)
        tools.append(agent_tool(connection, tool, name=name, on_error=on_error, redact=redact))
    return tools


def result_content(
    result: mcp_types.CallToolResult, redact: Callable[[str], str], caps: OutputCaps = DEFAULT_CAPS
) -> list[TextContent | ImageContent]:
    texts: list[str] = []
    images: list[ImageContent] = []
    for block in result.content or []:
        if block.type == "text":
            texts.append(block.text)
        elif block.type == "image":
            _add_image(images, texts, block.data, block.mime_type, caps)
        elif block.type == "audio":
            texts.append(f"[audio {block.mime_type}, {human_size(len(block.data) * 3 // 4)}: not shown]")
        elif block.type == "resource_link":
            texts.append(f"[resource {block.uri}" + (f" ({block.mime_type})" if block.mime_type else "") + f": {block.name}]")
        elif block.type == "resource":
            texts.append(_resource_text(block.resource))
    if not texts and not images and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2, default=str))
    content: list[TextContent | ImageContent] = []
    if texts:
        content.append(TextContent(text=truncate_head(redact("\n\n".join(texts)), caps)))
    return content + images


def _resource_text(resource: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> str:
    heading = f"[resource {resource.uri}" + (f" ({resource.mime_type})" if resource.mime_type else "") + "]"
    text = getattr(resource, "text", None)
    if text is not None:
        return f"{heading}\n{text}"
    return f"{heading} binary, {human_size(len(getattr(resource, 'blob', '')) * 3 // 4)}: not shown"


def _add_image(images: list[ImageContent], texts: list[str], data: str, mime_type: str, caps: OutputCaps) -> None:
    size = len(data) * 3 // 4
    if len(images) >= caps.max_images:
        texts.append(f"[image {mime_type}: not shown, more than {caps.max_images} images]")
    elif size > caps.max_image_bytes:
        texts.append(f"[image {mime_type}, {human_size(size)}: not shown, over {human_size(caps.max_image_bytes)}]")
    else:
        images.append(ImageContent(data=data, mime_type=mime_type))


def _text_of(content: list[TextContent | ImageContent]) -> str:
    return "\n".join(block.text for block in content if isinstance(block, TextContent))
