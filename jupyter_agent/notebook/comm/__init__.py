"""The kernel side of the JupyterLab extension (``labextension/``): a comm target and its schema.

The extension adds what the kernel alone cannot: materialize (the code a turn ran as real cells
below the agent cell), ``%%agent`` highlighting, commands to stop/steer the active notebook's
agent and a sessions view. Everything works without it; these hooks then do nothing.

Integration contract (what the notebook integration calls; all calls are cheap and never raise
for a missing frontend):

1. ``extension.load_ipython_extension(ipython)``, after the magics exist::

       register_comm_target(ipython, handler)   # None in terminal IPython: fine, ignore it

   ``unload_ipython_extension(ipython)``: ``unregister_comm_target(ipython)``.
   ``handler`` implements ``AgentCommHandler`` (three methods, called on the kernel's event loop):
   ``sessions_folder() -> Path | None`` (the notebook's ``<stem>.agent`` folder, e.g.
   ``SessionManager.folder``), ``stop(session | None) -> str`` and ``steer(text, session | None)
   -> str`` (``session`` None: every running turn of this kernel). They return a short message for
   the user and raise (e.g. ``LookupError("No agent is running.")``) to refuse; the text is shown.

2. In the ``%%agent`` magic itself (while the cell's request is the parent), remember
   ``cell_id = current_cell_id(shell)`` (JupyterLab's cell id; None elsewhere) with the turn.

3. When a turn starts running (after it got its session lock) and when it ends (always, in a
   ``finally``), with ``target = target_for(shell)``::

       target.send_run_started(session_name, cell_id)
       target.send_run_finished(session_name, cell_id, status=result.reason, steps=result.steps)

   ``status`` is the run's stop reason ("aborted"/"error" when it ended otherwise).

4. A "Materialize" button on a finished turn's panel, shown when ``target_for(shell).connected``::

       cells = python_cells(turn_messages, session=session_name, model=model_name)
       target_for(shell).send_materialize(cells, cell_id)   # False: no frontend listening

   ``turn_messages`` are the messages this turn added (``result.messages[len(prior):]``; or
   ``last_turn_cells(result.messages, ...)`` finds the turn itself). A button click cannot use the
   ``set_next_input`` fallback (it works only while a cell executes): say "run %agent materialize".

5. ``%agent materialize [SESSION]``: ``print(materialize_last_turn(shell, folder, session))``; a
   ``LookupError`` it raises is the user's error message (e.g. as a ``UsageError``). It inserts
   cells through the extension when one is connected, else puts all the code into the next input.
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.notebook.comm.hooks import (
        DetachedTarget,
        current_cell_id,
        current_client,
        materialize_last_turn,
        register_comm_target,
        target_for,
        unregister_comm_target,
    )
    from jupyter_agent.notebook.comm.materialize import (
        combined_source,
        last_turn_cells,
        materialize_fallback,
        python_cells,
    )
    from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME, CellSpec, Provenance
    from jupyter_agent.notebook.comm.target import AgentCommHandler, AgentCommTarget

__all__ = [
    "PROTOCOL_VERSION",
    "TARGET_NAME",
    "AgentCommHandler",
    "AgentCommTarget",
    "CellSpec",
    "DetachedTarget",
    "Provenance",
    "combined_source",
    "current_cell_id",
    "current_client",
    "last_turn_cells",
    "materialize_fallback",
    "materialize_last_turn",
    "python_cells",
    "register_comm_target",
    "target_for",
    "unregister_comm_target",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
