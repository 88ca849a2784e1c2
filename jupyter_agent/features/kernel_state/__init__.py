"""Kernel state the user can trust: what each python call changed in the namespace, its undo,
and replaying a recorded turn without the model.

``fingerprints`` (cheap identity/shape/sampled-hash prints), ``diff`` (the changes of one call),
``copies`` (what undo restores a value changed in place from), ``undo_store`` (per step, the
values before and after), ``watch`` (the python tool's hook), ``replay`` (a recorded turn played
again), ``view`` (``%agent diff``/``undo`` reports; notebook layer).
"""

from typing import TYPE_CHECKING

from jupyter_agent.lazy_facade import lazy_facade

if TYPE_CHECKING:
    from jupyter_agent.features.kernel_state.copies import DEFAULT_LIMIT_MB
    from jupyter_agent.features.kernel_state.diff import NamespaceChange, changes_line, diff_states
    from jupyter_agent.features.kernel_state.fingerprints import Fingerprint, describe, fingerprint
    from jupyter_agent.features.kernel_state.undo_store import NamespaceHistory, NamespaceUndo, history_for
    from jupyter_agent.features.kernel_state.watch import NamespaceWatch, session_watch

__all__ = [
    "DEFAULT_LIMIT_MB",
    "Fingerprint",
    "NamespaceChange",
    "NamespaceHistory",
    "NamespaceUndo",
    "NamespaceWatch",
    "changes_line",
    "describe",
    "diff_states",
    "fingerprint",
    "history_for",
    "session_watch",
]
__getattr__, __dir__ = lazy_facade(__name__, __file__)
