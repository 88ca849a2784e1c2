"""What the extension's sessions view shows: the notebook's sessions and a read-only transcript.

Both read the session files (``<notebook>.agent/*.jsonl``) without locking, so sessions that
another kernel is writing are listed too.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Iterable, Sequence

from jupyter_agent.messages import AssistantMessage, ImageContent, Message, TextContent, ToolResultMessage, UserMessage
from jupyter_agent.notebook.comm.protocol import SessionSummary
from jupyter_agent.session import SessionStore, SessionWarning, list_sessions

# A transcript is for reading, not an archive: long tool outputs are cut (the file keeps them).
RESULT_CHARS = 2_000
_SUFFIX = ".jsonl"


class UnknownSessionError(LookupError):
    pass


def session_summaries(folder: Path | None, running: Iterable[str] = ()) -> list[SessionSummary]:
    """The sessions in ``folder``, most recently active first; none when the folder is missing."""
    if folder is None or not folder.is_dir():
        return []
    busy = set(running)
    return [
        SessionSummary(
            name=info.name,
            messages=info.message_count,
            last_activity=info.last_activity.isoformat() if info.last_activity else None,
            model=info.model,
            cost_usd=info.total_cost_usd,
            running=info.name in busy,
        )
        for info in list_sessions(folder)
    ]


def session_file(folder: Path | None, name: str) -> Path:
    """The file of session ``name`` in ``folder``; only names of existing sessions are accepted."""
    # The name comes from the frontend: it must not reach outside the folder.
    if folder is None or not name or "/" in name or "\\" in name or name.startswith("."):
        raise UnknownSessionError(f"no session named {name!r} beside this notebook")
    path = folder / f"{name}{_SUFFIX}"
    if not path.is_file():
        raise UnknownSessionError(f"no session named {name!r} in {folder}")
    return path


def read_history(path: Path) -> list[Message]:
    with warnings.catch_warnings():
        # A torn last line is skipped by the store; the view need not warn in the kernel's log.
        warnings.simplefilter("ignore", SessionWarning)
        store = SessionStore(path, read_only=True)
    return store.history()


def transcript_markdown(messages: Sequence[Message]) -> str:
    """The conversation as Markdown: prompts, answers, thinking folded, tool calls with results."""
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    parts: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            parts.append("### You\n\n" + _user_text(message))
        elif isinstance(message, AssistantMessage):
            parts.extend(_assistant_parts(message, results))
    return "\n\n".join(parts) + "\n" if parts else "*This session has no messages yet.*\n"


def _user_text(message: UserMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n\n".join(block.text if isinstance(block, TextContent) else "*[image]*" for block in message.content)


def _assistant_parts(message: AssistantMessage, results: dict[str, ToolResultMessage]) -> list[str]:
    heading = "### Agent" + (f" · {message.model}" if message.model else "")
    parts = [heading]
    for block in message.content:
        kind = getattr(block, "type", "")
        if kind == "text" and block.text.strip():
            parts.append(block.text)
        elif kind == "thinking" and block.thinking.strip() and not block.redacted:
            parts.append(f"<details><summary>Thinking</summary>\n\n{_fence(block.thinking, '')}\n\n</details>")
        elif kind == "tool_call":
            parts.append(_tool_call(block, results.get(block.id)))
    if message.error_message:
        parts.append(f"**Error:** {message.error_message}")
    return parts


def _tool_call(call, result: ToolResultMessage | None) -> str:
    code = call.arguments.get("code") if call.name == "python" else None
    if isinstance(code, str):
        body = _fence(code, "python")
    else:
        body = _fence(json.dumps(call.arguments, indent=2, ensure_ascii=False), "json")
    text = f"**{call.name}**\n\n{body}"
    if result is None:
        return text + "\n\n*(no result: the turn stopped before the tool finished)*"
    label = "Error" if result.is_error else "Result"
    return f"{text}\n\n{label}:\n\n{_fence(_result_text(result), '')}"


def _result_text(result: ToolResultMessage) -> str:
    pieces = [block.text if isinstance(block, TextContent) else "[image]" if isinstance(block, ImageContent) else ""
              for block in result.content]
    text = "\n".join(piece for piece in pieces if piece) or "(no output)"
    if len(text) > RESULT_CHARS:
        text = text[:RESULT_CHARS] + f"\n… ({len(text) - RESULT_CHARS} more characters in the session file)"
    return text


def _fence(text: str, language: str) -> str:
    # A fence longer than any backtick run inside keeps the block closed whatever the text holds.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


__all__ = ["RESULT_CHARS", "UnknownSessionError", "read_history", "session_file", "session_summaries",
           "transcript_markdown"]
