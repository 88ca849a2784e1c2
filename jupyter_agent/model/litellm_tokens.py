"""Token counts with the model's own tokenizer, through litellm (``token_counter``), once it is loaded.

``count_tokens`` counts a text as one message would cost it. None when litellm has not been
imported yet: a caller that must not wait ~8 s for the import falls back to ``model/tokens.py``'s
estimate. (Tool definitions are not counted here: each provider renders them its own way.)
"""

from __future__ import annotations

import sys


def count_tokens(model: str, text: str) -> int | None:
    """Tokens of ``text`` as one user message; None without litellm (or for a model it cannot count)."""
    litellm = sys.modules.get("litellm")
    if litellm is None or not hasattr(litellm, "token_counter"):
        return None
    try:
        return int(litellm.token_counter(model=model, messages=[{"role": "user", "content": text}]))
    except Exception:  # noqa: BLE001 - a model litellm cannot count: the caller estimates
        return None


__all__ = ["count_tokens"]
