"""The privacy gate: what reaches a model (the provider, or an external MCP client) and what stays.

Two halves, one vocabulary:

* **At the source** a tool that shows kernel values (``python``, ``notebook_read``, ``notebook_run``,
  ``variables``, ``inspect``) makes the model's copy under the data policy in force and, when that
  copy withheld something, keeps the user's copy beside it: ``withheld_details`` puts it in the
  result's ``details`` (``"privacy"``: the policy, a one-line note, the local blocks). The tool
  card shows the local copy and the note (``ToolResultEvent.local_content`` / ``withheld``); the
  history, the session's model view, compaction summaries and MCP clients see only the model's.
  Every result a tool makes under a policy is marked with it (``policy_details``).
* **At the boundary** ``PrivacyGate`` stands between a turn and its provider (``gate.stream(fn)``
  wraps the ``StreamFn``; sub-agents, compaction and memory extraction use the same wrapped
  function) and before every MCP result (``gate.message``). It redacts every known secret from
  each user message, tool result, step context and system prompt, under every policy, and it
  makes the policy binding on the history too: a result recorded under a laxer policy than the
  one in force now (a session resumed under a site ceiling, a result from before the policy) is
  withheld again, so nothing recorded earlier leaks past a stricter setting.

Policies, strictest first: ``schema`` (structure only: types, shapes, lengths, column names and
dtypes, error types and line numbers, image sizes), ``sample`` (a sample: ``sample_rows`` rows of a
frame, at most ``sample_lines(sample_rows)`` lines of ``LINE_CHARS`` characters of any text), ``full``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal, Sequence, cast

from jupyter_agent.messages import ImageContent, Message, PerMessage, TextContent, ToolResultMessage, UserMessage
from jupyter_agent.model import Context, Model, StreamFn, StreamOptions
from jupyter_agent.model.secrets import known_secrets, redact_secrets
from jupyter_agent.model.types import ModelInputMetadata

DataPolicyName = Literal["schema", "sample", "full"]
DATA_POLICIES: tuple[DataPolicyName, ...] = ("schema", "sample", "full")  # strictest first
PRIVACY_KEY = "privacy"  # the key of a tool result's details that says what its model copy withheld
# A line of data longer than this is a value dump, not a sample (inspect shows 200 characters of a string).
LINE_CHARS = 200
# Gated copies of recent gate settings; a turn's gate reuses the copies of the turn before.
_CACHED_GATES = 4

Block = TextContent | ImageContent


def unknown_policy(policy: object) -> str:
    return f"data_policy must be one of 'schema', 'sample', 'full', got {policy!r}"


def policy_rank(policy: str) -> int:
    """0 for the strictest (``schema``); ``ValueError`` for a name that is no policy."""
    try:
        return DATA_POLICIES.index(cast(DataPolicyName, policy))
    except ValueError:
        raise ValueError(unknown_policy(policy)) from None


def stricter(first: str, second: str) -> DataPolicyName:
    return DATA_POLICIES[min(policy_rank(first), policy_rank(second))]


def sample_lines(sample_rows: int) -> int:
    """Lines of text a ``sample`` shows: a table's header and its sample rows, and the text's end."""
    return max(4, 4 * sample_rows)


def sample_text(text: str, max_lines: int, line_chars: int = LINE_CHARS) -> tuple[str, int]:
    """``text`` cut to its first and last lines (``max_lines`` in all), each line clipped to
    ``line_chars``; and how many characters were withheld. The cut is marked where it is."""
    lines = text.split("\n")
    withheld = 0
    if len(lines) > max_lines:
        head = lines[: (max_lines + 1) // 2]
        tail = lines[len(lines) - max_lines // 2 :] if max_lines // 2 else []
        cut = lines[len(head) : len(lines) - len(tail)]
        withheld += sum(len(line) + 1 for line in cut)
        lines = [*head, f"[… {len(cut)} lines withheld …]", *tail]
    clipped = []
    for line in lines:
        if len(line) > line_chars:
            withheld += len(line) - line_chars
            line = line[:line_chars] + f"… [{len(line) - line_chars} characters withheld]"
        clipped.append(line)
    return ("\n".join(clipped), withheld) if withheld else (text, 0)


def count_label(text: str) -> str:
    """What a text is, without its characters: "3 lines, 120 characters"."""
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return f"{lines} line{'s' if lines != 1 else ''}, {len(text)} character{'s' if len(text) != 1 else ''}"


# -- the marks a tool result carries --------------------------------------------------------------


def policy_details(policy: str, details: Any = None) -> Any:
    """``details`` marked as made under ``policy`` (a dict; other details are kept under "value")."""
    mark = {"policy": policy}
    if details is None:
        return {PRIVACY_KEY: mark}
    if isinstance(details, dict):
        return {**details, PRIVACY_KEY: {**details.get(PRIVACY_KEY, {}), **mark}}
    return {"value": details, PRIVACY_KEY: mark}


def withheld_details(policy: str, note: str, local: Sequence[Block], details: Any = None) -> Any:
    """``details`` of a result whose model copy withheld what ``note`` says; ``local`` is the user's copy."""
    marked = policy_details(policy, details)
    marked[PRIVACY_KEY] = {
        "policy": policy,
        "withheld": note,
        "local": [block.model_dump(mode="json", exclude_none=True) for block in local],
    }
    return marked


def _mark(details: Any) -> Mapping[str, Any]:
    mark = details.get(PRIVACY_KEY) if isinstance(details, Mapping) else None
    return mark if isinstance(mark, Mapping) else {}


def result_policy(details: Any) -> str | None:
    """The policy a result was made under; ``None`` for an unmarked (or malformed) result."""
    policy = _mark(details).get("policy")
    return policy if policy in DATA_POLICIES else None


def withheld_note(details: Any) -> str:
    """What the model's copy of a result left out, for the user: "" when it left out nothing."""
    mark = _mark(details)
    what, policy = mark.get("withheld"), mark.get("policy")
    if not isinstance(what, str) or not what:
        return ""
    return f"the model got a copy without {what} (data_policy '{policy}')"


def local_content(details: Any) -> list[Block] | None:
    """The user's copy of a result whose model copy withheld values; ``None``: the content is both.

    Read from details that may come back from a session file: anything malformed is ignored."""
    local = _mark(details).get("local")
    if not isinstance(local, list):
        return None
    blocks: list[Block] = []
    for item in local:
        if not isinstance(item, Mapping):
            return None
        try:
            if item.get("type") == "image":
                blocks.append(ImageContent.model_validate(item))
            else:
                blocks.append(TextContent.model_validate(item))
        except ValueError:
            return None
    return blocks


# -- the gate at the boundary ---------------------------------------------------------------------


def recorded_under(laxer: str, now: str) -> str:
    """What replaces a result recorded under a laxer policy than the one in force."""
    treated = "its values are not sent" if now == "schema" else "it is cut to a sample"
    return (
        f"[Withheld: this result was recorded under data_policy '{laxer}' and the policy in force is now "
        f"'{now}', so {treated}. Call the tool again to see it under the current policy.]"
    )


class PrivacyGate:
    """The data policy and secret redaction between a turn (or ``%agent serve``) and whoever reads it.

    ``value_tools``: names of tools whose results hold kernel values; an unmarked result of one of
    them (recorded before any policy) counts as ``full``. ``secrets``: value -> name of every secret
    to redact, read afresh for every request (default: ``model.secrets.known_secrets``).
    """

    def __init__(
        self,
        policy: str = "sample",
        sample_rows: int = 5,
        *,
        value_tools: Collection[str] = (),
        secrets: Callable[[], Mapping[str, str]] = known_secrets,
    ) -> None:
        policy_rank(policy)
        if isinstance(sample_rows, bool) or not isinstance(sample_rows, int) or sample_rows < 0:
            raise ValueError(f"sample_rows must be a non-negative integer, got {sample_rows!r}")
        self.policy = cast(DataPolicyName, policy)
        self.sample_rows = sample_rows
        self.value_tools = frozenset(value_tools)
        self._secrets = secrets
        self._current: tuple[Mapping[str, str], PerMessage[Message]] | None = None

    # -- text and messages ------------------------------------------------------------------------
    def text(self, text: str) -> str:
        return redact_secrets(text, self._secrets())

    def message(self, message: Message) -> Message:
        """The copy of ``message`` a model may read: the same object when nothing changes."""
        return self._gated()(message)

    def result(self, message: ToolResultMessage) -> ToolResultMessage:
        """The copy of a tool result an external client (``%agent serve``) may read."""
        return cast(ToolResultMessage, self._gated()(message))

    def messages(self, messages: Sequence[Message]) -> list[Message]:
        return self._gated().all(messages)

    def context(self, context: Context) -> Context:
        secrets = self._secrets()
        gated = self._gated(secrets)
        update: dict[str, Any] = {"messages": gated.all(context.messages)}
        if context.system_prompt:
            update["system_prompt"] = redact_secrets(context.system_prompt, secrets)
        if context.step_context:
            update["step_context"] = redact_secrets(context.step_context, secrets)
        return context.model_copy(update=update)

    def stream(self, stream_fn: StreamFn) -> StreamFn:
        """``stream_fn`` with every request's context gated; a function gated already is returned as is."""
        if getattr(stream_fn, "privacy_gate", None) is self:
            return stream_fn

        def gated_stream(
            model: Model, context: Context, options: StreamOptions | None = None, metadata: ModelInputMetadata | None = None
        ) -> Any:
            return stream_fn(model, self.context(context), options, metadata)

        gated_stream.privacy_gate = self  # type: ignore[attr-defined]  # how a second wrap recognises it
        return gated_stream

    # -- internals --------------------------------------------------------------------------------
    def _gated(self, known: Mapping[str, str] | None = None) -> PerMessage[Message]:
        """``known``: the secrets already read for this request (they are read once per request)."""
        # Messages are values: each is gated once per gate setting and set of secrets, which is
        # what keeps a 2 000-message history cheap and its request prefix the same every step.
        secrets = dict(self._secrets() if known is None else known)
        if self._current is not None and self._current[0] == secrets:
            return self._current[1]
        key = (self.policy, self.sample_rows, self.value_tools, frozenset(secrets.items()))
        cached = _GATED.get(key)
        if cached is None:
            with _GATED_LOCK:  # the warm-up thread gates a session read ahead (notebook/request_ahead)
                cached = _GATED.get(key)
                if cached is None:
                    cached = _GATED[key] = PerMessage(lambda message: self._gate(message, secrets))
                    while len(_GATED) > _CACHED_GATES:
                        _GATED.pop(next(iter(_GATED)))
        self._current = (secrets, cached)
        return cached

    def _gate(self, message: Message, secrets: Mapping[str, str]) -> Message:
        if isinstance(message, UserMessage):
            if isinstance(message.content, str):
                text = redact_secrets(message.content, secrets)
                return message if text == message.content else message.model_copy(update={"content": text})
            blocks = _redacted_blocks(message.content, secrets)
            return message if blocks is None else message.model_copy(update={"content": blocks})
        if isinstance(message, ToolResultMessage):
            return self._result(message, secrets)
        return message  # the model's own words: nothing in them it was not given

    def _result(self, message: ToolResultMessage, secrets: Mapping[str, str]) -> ToolResultMessage:
        recorded = result_policy(message.details)
        if recorded is None and message.tool_name in self.value_tools:
            recorded = "full"
        content: list[Block] = list(message.content)
        changed = False
        if recorded is not None and policy_rank(recorded) > policy_rank(self.policy):
            content, changed = self._regated(content, recorded), True
        blocks = _redacted_blocks(content, secrets)
        if blocks is not None:
            content, changed = blocks, True
        return message.model_copy(update={"content": content}) if changed else message

    def _regated(self, content: list[Block], recorded: str) -> list[Block]:
        if self.policy == "schema":
            return [TextContent(text=recorded_under(recorded, self.policy))]
        lines = sample_lines(self.sample_rows)
        cut = [
            TextContent(text=sample_text(block.text, lines)[0]) if isinstance(block, TextContent) else block for block in content
        ]
        return [*cut, TextContent(text=recorded_under(recorded, self.policy))]


_GATED: dict[tuple[Any, ...], PerMessage[Message]] = {}
_GATED_LOCK = threading.Lock()


def _redacted_blocks(blocks: Sequence[Any], secrets: Mapping[str, str]) -> list[Any] | None:
    """The blocks with secrets redacted from their text; ``None`` when none held one."""
    changed = False
    out = []
    for block in blocks:
        if isinstance(block, TextContent):
            text = redact_secrets(block.text, secrets)
            if text != block.text:
                block, changed = block.model_copy(update={"text": text}), True
        out.append(block)
    return out if changed else None


__all__ = [
    "DATA_POLICIES",
    "LINE_CHARS",
    "PRIVACY_KEY",
    "DataPolicyName",
    "PrivacyGate",
    "count_label",
    "local_content",
    "policy_details",
    "policy_rank",
    "recorded_under",
    "result_policy",
    "sample_lines",
    "sample_text",
    "stricter",
    "unknown_policy",
    "withheld_details",
    "withheld_note",
]
