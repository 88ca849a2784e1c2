"""The notebook product: ``%%agent``/``%agent`` magics, the live panel and kernel integration.

Importing this package stays cheap: ``%load_ext jupyter_agent`` must return in well under a
second, so everything heavy (ipywidgets, litellm, the runtime) is imported when first used.
"""

from jupyter_agent.notebook.extension import load_ipython_extension, unload_ipython_extension

__all__ = ["load_ipython_extension", "unload_ipython_extension"]
