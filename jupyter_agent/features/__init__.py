"""Features: what a session can do beyond the loop's tools, each one package.

A feature package holds everything of one capability: its state, the tool the model calls, the
file it keeps beside the session, the section it adds to the system prompt and the view that shows
it in the panel. ``turn_features`` switches them on for one ``%%agent`` run.

* ``plan``: the task checklist (``plan`` tool, ``<session>.plan.json``);
* ``memory``: notes that outlive a session (``memory`` tool, ``<notebook>.agent/memory/``);
* ``delegation``: sub-agents run by the ``delegate`` tool, each recorded in its own session file;
* ``mcp``: tools from MCP servers configured beside the notebook (``.mcp.json``), the kernel's
  server processes, their notes in the panel and ``%agent mcp``.

Layering: features sit above ``tools`` and ``session`` and below ``notebook``. A feature's
``view.py`` draws ipywidgets and belongs to the notebook layer: only the notebook (and other views)
import it, and it may import ``jupyter_agent.notebook.panel``. Every other feature module imports
no Jupyter package at module level.
"""
