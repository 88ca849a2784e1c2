"""After a turn: one request asking the model which durable facts the turn taught, saved to memory.

The answer is JSON (``{"memories": [{"name", "summary", "content"}]}``). Models wrap JSON in
code fences, add prose around it or answer nonsense; every such answer is read as well as it
can be, and anything unreadable means "no changes". Nothing here raises: a failed extraction
must never spoil a finished turn. Cancellation (the task's) still propagates.
"""

from __future__ import annotations

import json
import logging
from typing import Callable, Sequence, TypedDict

from jupyter_agent.features.memory.store import MemoryChange, MemoryRefused, MemoryStore
from jupyter_agent.loop import AbortController, AbortSignal
from jupyter_agent.messages import JsonValue, Message, Usage, UserMessage
from jupyter_agent.model import Context, Model, StreamFn, StreamOptions
from jupyter_agent.runtime.summarize import complete_request, render_transcript

EXTRACTION_SYSTEM_PROMPT = (
    "You maintain the long-term memory of a data-analysis assistant that works in a Jupyter notebook. You answer with JSON only."
)
EXTRACTION_INSTRUCTIONS = """Below are the current memory index and the transcript of the latest turn.
Propose durable facts worth knowing in future sessions with this notebook:
- the user's preferences (plotting style, libraries, how they like answers);
- quirks of datasets (encodings, date formats, bad rows, units, join keys);
- decisions and conventions that were agreed.
Not: results that will change, anything obvious from the code, secrets or credentials, facts
already in memory unchanged. To change a fact, reuse its name with the complete new content.
Answer with JSON only:
{"memories": [{"name": "short-slug", "summary": "one line", "content": "the fact in a few sentences"}]}
Most turns teach nothing durable: then answer {"memories": []}."""
# A handful of one-line facts; a long answer is a transcript, not a memory.
EXTRACTION_MAX_TOKENS = 1_024
# More than this from one turn is logging, not remembering.
MAX_CHANGES_PER_TURN = 5
# The end of a long turn carries its conclusions; the start is the prompt, kept whole below.
TURN_MAX_CHARS = 30_000

_log = logging.getLogger(__name__)


def extraction_prompt(turn: Sequence[Message], store: MemoryStore) -> str:
    transcript = render_transcript(turn)
    if len(transcript) > TURN_MAX_CHARS:
        transcript = "[... earlier part of the turn cut]\n" + transcript[-TURN_MAX_CHARS:]
    index = store.index_text() or "(empty)"
    return f"{EXTRACTION_INSTRUCTIONS}\n\n<memory-index>\n{index}\n</memory-index>\n\n<turn>\n{transcript}\n</turn>"


class MemoryProposal(TypedDict):
    """A fact the extraction proposes to save."""

    name: str
    content: str
    summary: str | None


def parse_memories(text: str) -> list[MemoryProposal]:
    """The proposed facts in an answer; ``[]`` for anything that is not one."""
    data = _first_json(text or "")
    if isinstance(data, dict):
        data = data.get("memories")
    if not isinstance(data, list):
        return []
    proposals: list[MemoryProposal] = []
    for item in data:
        if not isinstance(item, dict):
            continue
        name, content, summary = item.get("name"), item.get("content"), item.get("summary")
        if not isinstance(name, str) or not isinstance(content, str) or not name.strip() or not content.strip():
            continue
        proposals.append({"name": name, "content": content, "summary": summary if isinstance(summary, str) else None})
    return proposals[:MAX_CHANGES_PER_TURN]


def _first_json(text: str) -> JsonValue:
    """The first JSON object or array in ``text`` (code fences and prose around it are skipped)."""
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = decoder.raw_decode(text, start)
            except ValueError:
                continue
            if isinstance(value, (dict, list)):
                return value
    return None


async def extract_memories(
    stream_fn: StreamFn,
    model: Model,
    transcript_of_turn: Sequence[Message],
    store: MemoryStore,
    *,
    stream_options: StreamOptions | None = None,
    signal: AbortSignal | None = None,
    on_usage: Callable[[Usage], object] | None = None,
) -> list[MemoryChange]:
    """Asks the model once, applies what it proposes and returns the changes (each undoable).

    ``on_usage`` receives the request's usage, so the caller can charge and record it.
    """
    if not transcript_of_turn:
        return []
    signal = signal or AbortController().signal
    context = Context(
        system_prompt=EXTRACTION_SYSTEM_PROMPT,
        messages=[UserMessage(content=extraction_prompt(transcript_of_turn, store))],
    )
    # The turn's credentials and endpoint apply; its per-step choices (tools, temperature) do not.
    options = (stream_options or StreamOptions()).model_copy(
        update={"max_tokens": min(EXTRACTION_MAX_TOKENS, model.max_tokens), "tool_choice": None, "temperature": None}
    )
    try:
        message = await complete_request(stream_fn, model, context, options, signal)
    except Exception as problem:  # noqa: BLE001 - a failed extraction changes nothing
        _log.info("memory extraction request failed: %s", problem)
        return []
    if on_usage is not None and message.usage is not None:
        try:
            on_usage(message.usage)
        except Exception:  # noqa: BLE001 - bookkeeping must not lose the facts
            _log.exception("memory extraction on_usage callback failed")
    if message.stop_reason in ("error", "aborted"):
        return []
    return _apply(parse_memories(message.text), store)


def _apply(proposals: list[MemoryProposal], store: MemoryStore) -> list[MemoryChange]:
    changes = []
    for proposal in proposals:
        current = store.read(proposal["name"])
        if current is not None and current.content == proposal["content"].strip():
            continue  # unchanged: rewriting would only bump its date
        try:
            changes.append(store.write(proposal["name"], proposal["content"], proposal["summary"]))
        except (MemoryRefused, OSError) as refused:
            _log.info("memory extraction skipped %r: %s", proposal["name"], refused)
    return changes


__all__ = ["MAX_CHANGES_PER_TURN", "extract_memories", "extraction_prompt", "parse_memories"]
