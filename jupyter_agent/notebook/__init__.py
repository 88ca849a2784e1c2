"""The notebook product: ``%%agent``/``%agent`` magics, the live panel and kernel integration.

Importing this package stays cheap: ``%load_ext jupyter_agent`` must return within
0.1 s, so everything heavy (ipywidgets, litellm, the runtime) is imported when first used.
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.notebook.extension import load_ipython_extension, unload_ipython_extension

__all__ = ["load_ipython_extension", "unload_ipython_extension"]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
