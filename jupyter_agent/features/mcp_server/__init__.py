"""The kernel as an MCP server: external agents work in the live kernel (see ``docs/mcp.md``).

``McpServe`` serves the notebook's tools over streamable HTTP on 127.0.0.1, on the kernel's own
event loop, behind a bearer token; every call goes through the permission gate, shows as a card
in the serve cell's panel and is recorded in a session. ``serving()`` is the running server.
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.features.mcp_server.endpoint import PortUnavailableError
    from jupyter_agent.features.mcp_server.server import AlreadyServingError, McpServe, ServeSettings, serving, stop_serving

__all__ = ["AlreadyServingError", "McpServe", "PortUnavailableError", "ServeSettings", "serving", "stop_serving"]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
