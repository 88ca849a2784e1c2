"""Our tools as MCP tools, and their results as MCP results.

A tool keeps its name, description and JSON schema; read-only tools say so (``readOnlyHint``), so
a client may run them without asking its own user. Results keep their text and images (the
same caps and the same vision blocks the agent gets), with every known secret redacted: what
leaves the kernel is what the session file would keep.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

from jupyter_agent.loop.types import tool_schema

if TYPE_CHECKING:
    import mcp_types

    from jupyter_agent.loop import AgentTool
    from jupyter_agent.messages import ToolResultMessage

UNKNOWN_CLIENT = "an MCP client"
_CLIENT_NAME_CHARS = 60  # a name is shown in the approval bar and recorded: enough to recognise it


def mcp_tool(tool: AgentTool) -> mcp_types.Tool:
    import mcp_types

    read_only = tool.read_only
    return mcp_types.Tool(
        name=tool.name,
        title=tool.label or None,
        description=tool.description,
        input_schema=dict(tool_schema(tool.parameters)),
        annotations=mcp_types.ToolAnnotations(read_only_hint=read_only, destructive_hint=not read_only, open_world_hint=False),
    )


def mcp_tools(tools: Sequence[AgentTool]) -> list[mcp_types.Tool]:
    return [mcp_tool(tool) for tool in tools]


def mcp_result(result: ToolResultMessage, redact: Callable[[str], str] = lambda text: text) -> mcp_types.CallToolResult:
    import mcp_types

    content: list[mcp_types.ContentBlock] = []
    for block in result.content:
        if block.type == "text":
            content.append(mcp_types.TextContent(type="text", text=redact(block.text)))
        else:
            content.append(mcp_types.ImageContent(type="image", data=block.data, mime_type=block.mime_type))
    if not content:
        content.append(mcp_types.TextContent(type="text", text="(no output)"))
    return mcp_types.CallToolResult(content=content, is_error=result.is_error)


def client_name(session: object) -> str:
    """The connected client's name as it introduced itself (``clientInfo``), e.g. ``claude-code``."""
    params = getattr(session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = " ".join(str(getattr(info, "title", None) or getattr(info, "name", "") or "").split())
    if not name:
        return UNKNOWN_CLIENT
    return name[:_CLIENT_NAME_CHARS]


__all__ = ["UNKNOWN_CLIENT", "client_name", "mcp_result", "mcp_tool", "mcp_tools"]
