"""Escaping and URL checks for HTML made from untrusted text (model output, tool output).

The HTML widget assigns ``innerHTML`` without sanitizing, and a saved notebook's ``text/html``
outputs are trusted by nbconvert: every character of untrusted text is escaped, and a link is
live only when following it cannot run script.
"""

from __future__ import annotations

import html
import re

# Control characters never belong in rendered text.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SAFE_SCHEMES = ("http:", "https:", "mailto:")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")


def escape(text: str) -> str:
    """Escape text for HTML element content and attribute values."""
    return html.escape(_CONTROL.sub("", text), quote=True)


def strip_controls(text: str) -> str:
    return _CONTROL.sub("", text)


def safe_url(url: str) -> str | None:
    """The URL if following it cannot run script (http, https, mailto or relative), else None."""
    cleaned = re.sub(r"[\x00-\x20]", "", url)
    if _SCHEME.match(cleaned) and not cleaned.lower().startswith(_SAFE_SCHEMES):
        return None
    return cleaned


def render_inline(text: str) -> str:
    """One line's inline Markdown (code, emphasis, links) as safe HTML; no blocks."""
    from jupyter_agent.notebook.panel.markdown import render_inline_markdown

    return render_inline_markdown(text)
