"""OpenAI's tool-pairing rule as the fake provider enforces it, with the provider's own wording."""

from __future__ import annotations

ORPHAN_TOOL_MESSAGE = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
UNANSWERED_TOOL_CALLS = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
DUPLICATE_TOOL_CALL_ID = "Invalid parameter: duplicate tool_call id '{id}' in messages."


def pairing_problem(messages: list[dict]) -> str | None:
    """What OpenAI rejects in a request's tool pairing (its wording), or None: the fake is as strict."""
    open_ids: list[str] = []
    seen: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") not in open_ids:
                return ORPHAN_TOOL_MESSAGE
            open_ids.remove(message["tool_call_id"])
            continue
        if open_ids:
            return UNANSWERED_TOOL_CALLS.format(ids=", ".join(open_ids))
        for tool_call in message.get("tool_calls") or []:
            if tool_call.get("id") in seen:
                return DUPLICATE_TOOL_CALL_ID.format(id=tool_call.get("id"))
            seen.add(tool_call.get("id"))
            open_ids.append(tool_call.get("id"))
    if open_ids:
        return UNANSWERED_TOOL_CALLS.format(ids=", ".join(open_ids))
    return None
