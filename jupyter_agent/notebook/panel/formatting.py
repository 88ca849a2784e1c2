"""Turning run-event payloads into display text, shared by the widget, static and text renderers.

Events are duck-typed: content blocks may be the pydantic models of `jupyter_agent.messages` or
plain dicts with the same fields. Whatever text they give is shown without secrets: keys the
product was given and credential-shaped tokens are redacted before any clipping.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Union

from jupyter_agent.model.secrets import redact_secrets
from jupyter_agent.notebook.panel.visible import reveal

# Tool output is capped in the display (the model got its own capped copy): a 1 MB log must not
# be pushed to the browser.
OUTPUT_DISPLAY_CHARS = 20_000
# Arguments shown in cards and the approval bar (a `write` of a big file stays readable).
ARGS_DISPLAY_CHARS = 20_000
# String arguments this long, or multi-line, or named like code, are shown as code blocks.
_LONG_STRING = 80
_LANGUAGE_BY_KEY = {"code": "python", "command": "bash", "cmd": "bash", "script": "bash"}
# A tool result's content as a renderer gets it: its text, or its blocks (``TextContent`` and
# ``ImageContent`` models, or dicts with their fields); None: nothing.
ToolContent = Union[str, Sequence[object], None]


def field(obj: object, name: str, default: object = None) -> object:
    """Attribute or mapping key: events and blocks are duck-typed."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def output_text(content: ToolContent) -> str:
    """The text blocks of a tool result, joined."""
    if isinstance(content, str):
        return redact_secrets(content)
    parts = [str(field(block, "text", "") or "") for block in content or () if field(block, "type") == "text"]
    return redact_secrets("\n".join(parts))


def images(content: ToolContent) -> list[tuple[bytes, str]]:
    """Decoded (bytes, mime type) of the image blocks of a tool result; bad data is skipped."""
    found = []
    for block in content or ():
        if isinstance(block, str) or field(block, "type") != "image":
            continue
        try:
            data = base64.b64decode("".join(str(field(block, "data", "")).split()), validate=True)
        except (binascii.Error, ValueError, TypeError):
            continue
        mime_type = field(block, "mime_type", "image/png")
        found.append((data, mime_type if isinstance(mime_type, str) else "image/png"))
    return found


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit:,} more characters not shown)"


def args_sections(args: object, limit: int | None = ARGS_DISPLAY_CHARS) -> list[tuple[str, str, str]]:
    """(label, text, language) sections: long string arguments as code, the rest as JSON.

    Invisible and bidi characters are revealed (see ``visible``); ``limit=None`` shows every
    character, as an approval must.
    """

    def shown(text: str) -> str:
        text = reveal(redact_secrets(text))
        return text if limit is None else truncate(text, limit)

    if not isinstance(args, dict):
        return [("arguments", shown(to_json(args)), "json")]
    sections: list[tuple[str, str, str]] = []
    rest: dict[str, object] = {}
    for key, value in args.items():
        is_code = key in _LANGUAGE_BY_KEY
        if isinstance(value, str) and (is_code or len(value) > _LONG_STRING or "\n" in value):
            sections.append((reveal(str(key)), shown(value), _LANGUAGE_BY_KEY.get(key, "")))
        else:
            rest[key] = value
    if rest or not sections:
        sections.insert(0, ("arguments", shown(to_json(rest)), "json"))
    return sections


def args_summary(args: object, width: int = 60) -> str:
    """One line for a card title: the first given argument's value, shortened.

    Lists and objects are counted or named rather than dumped: a title is read at a glance.
    """
    given = {key: value for key, value in args.items() if value is not None} if isinstance(args, dict) else {}
    if given:
        key, value = next(iter(given.items()))
        if isinstance(value, str):
            text = value
        elif isinstance(value, list):
            text = f"{key}: {len(value)} item{'' if len(value) == 1 else 's'}"
        elif isinstance(value, dict):
            text = f"{key}: {', '.join(map(str, value))}"
        else:
            text = to_json(value)
    else:
        text = to_json(args) if args else ""
    text = reveal(redact_secrets(" ".join(text.split())))
    return text if len(text) <= width else text[: width - 1] + "…"


def to_json(value: object) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def tokens(count: int | None) -> str:
    if not count:
        return "0"
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"


def cost(spend_usd: float | None) -> str:
    """Dollars, or "n/a" when nothing was priced (unknown models report 0)."""
    if not spend_usd:
        return "n/a"
    return f"${spend_usd:.4f}" if spend_usd < 1 else f"${spend_usd:.2f}"


def elapsed(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} m {rest:02d} s"


def error_text(error: object) -> str:
    """A readable line for an error event's payload (an exception, message or string)."""
    if isinstance(error, BaseException):
        return redact_secrets(f"{type(error).__name__}: {error}") if str(error) else type(error).__name__
    text = field(error, "error_message") or field(error, "message")
    return redact_secrets(str(text if text else error))
