"""Inline completion: the kernel completes the cell being typed, knowing the live variables.

* context: ``referenced_variables`` (what the prefix names, described without running user code)
* prompt: ``completion_context`` (a capped request: variables, the cells above, the cell)
* service: ``CompletionService`` (one task per request on the kernel's loop, cancelled by the
  next keystroke, skipped while a user cell runs)
* demo: ``demo_completion`` (the offline demo model's deterministic, labelled answer)

The notebook layer serves it over the lab extension's comm (``notebook/comm``); the JupyterLab
side is an inline completion provider (``labextension/src/completion.ts``).
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.features.completion.context import VariableFact, describe_for_completion, referenced_variables
    from jupyter_agent.features.completion.demo import demo_completion
    from jupyter_agent.features.completion.prompt import CompletionInput, completion_context, completion_text
    from jupyter_agent.features.completion.service import (
        CompletionModel,
        CompletionRequest,
        CompletionService,
        CompletionUpdate,
    )

__all__ = [
    "CompletionInput",
    "CompletionModel",
    "CompletionRequest",
    "CompletionService",
    "CompletionUpdate",
    "VariableFact",
    "completion_context",
    "completion_text",
    "demo_completion",
    "describe_for_completion",
    "referenced_variables",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
