"""Edit a cell from a prompt ("Edit with Agent"): a short read-only run proposes the new source.

* prompt: ``edit_prompt`` (what the run is asked), ``proposed_source`` (the answer's last fenced
  block), ``SYSTEM_PROMPT``, ``MAX_STEPS``
* demo: ``demo_edit`` (the offline demo model's labelled edit)

The notebook layer runs it (``notebook/cell_edit.py``) for the lab extension, which shows the
proposal as an inline diff in the cell with Accept / Reject (``labextension/src/cell_edit.ts``);
an accepted edit is recorded in the session's notebook edit log, so ``%agent undo`` reverts it.
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.features.cell_edit.demo import demo_edit
    from jupyter_agent.features.cell_edit.prompt import MAX_STEPS, NO_SOURCE, SYSTEM_PROMPT, edit_prompt, proposed_source

__all__ = ["MAX_STEPS", "NO_SOURCE", "SYSTEM_PROMPT", "demo_edit", "edit_prompt", "proposed_source"]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
