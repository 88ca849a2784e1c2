"""The offline demo model's completions: deterministic, labelled, built from the same facts.

Without an LLM the quick start still shows what a completion is: after ``df.`` the demo offers a
real column of the live ``df`` (it knows the namespace as a model would), marked as the demo's.
"""

from __future__ import annotations

import re

from jupyter_agent.features.completion.prompt import CompletionInput

LABEL = "  # offline demo completion"
_ATTRIBUTE = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\.([A-Za-z_][A-Za-z0-9_]*)?$")


def demo_completion(data: CompletionInput) -> str:
    """The demo's answer for ``data``; empty where it has nothing sensible to offer.

    After ``name.`` (or ``name.pre``) at a line's end: the first member of ``name`` that fits,
    a frame's column with ``.describe()`` after it, then the label.
    """
    if data.suffix.split("\n", 1)[0].strip():
        return ""  # the demo completes line ends only
    found = _ATTRIBUTE.search(data.prefix.rsplit("\n", 1)[-1])
    if found is None:
        return ""
    path, typed = found.group(1), found.group(2) or ""
    fact = next((fact for fact in data.variables if fact.path == path), None)
    if fact is None:
        return ""
    name = next((m for m in fact.members if m.isidentifier() and m.startswith(typed) and m != typed), None)
    if name is None:
        return ""
    tail = ".describe()" if "DataFrame" in fact.text.split("\n", 1)[0] else ""
    return f"{name[len(typed) :]}{tail}{LABEL}"
