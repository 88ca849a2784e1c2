"""Tools for the agent: coding tools over a workspace folder and kernel tools over the live namespace.

Nothing here imports IPython, pandas, numpy or matplotlib at import time; the kernel tools use
the shell object they are given and whatever libraries the user has already imported.
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.tools.caps import DEFAULT_CAPS, OutputCaps
    from jupyter_agent.tools.coding import coding_tools
    from jupyter_agent.tools.errors import ToolError
    from jupyter_agent.tools.kernel import kernel_tools
    from jupyter_agent.tools.read_tracker import ReadTracker
    from jupyter_agent.tools.workspace import Workspace

__all__ = ["DEFAULT_CAPS", "OutputCaps", "ReadTracker", "ToolError", "Workspace", "coding_tools", "kernel_tools"]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
