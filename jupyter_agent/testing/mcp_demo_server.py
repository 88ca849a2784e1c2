"""A real MCP server (the SDK's ``MCPServer``, formerly ``FastMCP``) for tests, benchmarks and demos.

    python mcp_demo_server.py                      # stdio
    python mcp_demo_server.py --http PORT          # streamable HTTP on 127.0.0.1:PORT/mcp
    python mcp_demo_server.py --never-start        # never answers initialize (start timeouts)

Run it by path: it imports only the SDK, so it works in any environment that has ``mcp``.
Tools: ``echo`` and ``env`` (read-only), ``add_note`` (a mutation), ``fail`` (an error result),
``crash`` (exits mid-call), ``hang`` (never returns), ``picture`` (an image), ``document``
(an embedded resource) and ``grow`` (adds a tool and announces the changed list).
"""

import argparse
import asyncio
import os
import sys
import time
from typing import Any

# A 1×1 red PNG.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def build(name: str) -> Any:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import EmbeddedResource, ImageContent, TextResourceContents, ToolAnnotations

    server = MCPServer(name)
    read_only = ToolAnnotations(read_only_hint=True)
    notes: list[str] = []

    @server.tool(annotations=read_only)
    def echo(text: str) -> str:
        """Return the text unchanged, prefixed with "echo: "."""
        print(f"echo called with {len(text)} characters", file=sys.stderr, flush=True)
        return f"echo: {text}"

    @server.tool(annotations=read_only)
    def env(variable: str) -> str:
        """The value of an environment variable of the server."""
        return os.environ.get(variable, "(not set)")

    @server.tool()
    def add_note(text: str) -> str:
        """Store a note on the server (changes its state)."""
        notes.append(text)
        return f"noted ({len(notes)} notes): {text}"

    @server.tool()
    def fail(reason: str = "it always fails") -> str:
        """Fail with the given reason (an error result, as a tool reports a failure)."""
        raise ToolError(reason)

    @server.tool()
    def crash() -> str:
        """Exit the server process in the middle of the call."""
        os._exit(3)

    @server.tool()
    async def hang() -> str:
        """Never return."""
        await asyncio.sleep(3600)
        return "unreachable"

    @server.tool(annotations=read_only, structured_output=False)
    def picture() -> list[Any]:
        """A tiny image."""
        return [ImageContent(data=PIXEL, mime_type="image/png")]

    @server.tool(annotations=read_only, structured_output=False)
    def document() -> list[Any]:
        """A text document, as an embedded resource."""
        return [EmbeddedResource(resource=TextResourceContents(uri="demo://readme", text="The demo readme."))]

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add the tool "extra" and tell the client the tool list changed."""

        @server.tool(annotations=read_only)
        def extra() -> str:
            """A tool that did not exist when the server started."""
            return "extra tool ran"

        await ctx.session.send_tool_list_changed()
        return "added the tool extra"

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="demo")
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp")
    parser.add_argument("--never-start", action="store_true", help="never answer (a server that hangs at start)")
    args = parser.parse_args(argv)
    if args.never_start:
        print("pretending to start forever", file=sys.stderr, flush=True)
        while True:
            time.sleep(3600)
    server = build(args.name)
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
