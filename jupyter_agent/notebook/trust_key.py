"""This user's replay key: ``<Jupyter data folder>/jupyter_agent/replay.key`` (``session/trust.py``).

The Jupyter data folder is ``jupyter_core.paths.jupyter_data_dir()`` (``JUPYTER_DATA_DIR`` moves
it), private to the user like the rest of their Jupyter state.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jupyter_agent.session import Redactor
    from jupyter_agent.session.trust import TrustKey

KEY_NAME = "replay.key"


def key_path() -> Path:
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_agent" / KEY_NAME


def user_trust_key(redactor: Redactor | None = None) -> TrustKey:
    """The key that signs this user's allowed calls; ``redactor``: the session's (calls are signed as written)."""
    from jupyter_agent.session.trust import TrustKey

    return TrustKey(key_path(), redact=redactor.redact if redactor is not None else None)


__all__ = ["KEY_NAME", "key_path", "user_trust_key"]
