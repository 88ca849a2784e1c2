"""A provider's prompt cache, simulated for the fake provider: what a request would read from the cache.

A request is read in the order a caching provider reads it (tools, then the system prompt, then
the messages), one segment per tool and per message. A segment marked with ``cache_control``
(on a content part, a tool message or a tool) is a breakpoint: the prefix up to it is written to
the cache. A later request reads from the cache the longest prefix of its own that an earlier
request wrote at one of its breakpoints, segment for segment identical (the markers themselves
aside). Tokens are estimated as a quarter of the characters of each segment's JSON. A request
without breakpoints reads nothing from the cache and writes nothing.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CacheUse:
    prompt_tokens: int  # every input token, cached ones included (as OpenAI and litellm count them)
    cached_tokens: int  # read from the cache
    written_tokens: int  # newly written to the cache


class PromptCache:
    def __init__(self) -> None:
        self._prefixes: set[str] = set()
        self.uses: list[CacheUse] = []

    def serve(self, body: dict[str, Any]) -> CacheUse:
        segments = request_segments(body)
        digest = hashlib.sha256()
        total = cached = written = 0
        for text, breakpoint in segments:
            digest.update(text.encode())
            total += estimate_tokens(text)
            key = digest.hexdigest()
            if key in self._prefixes:
                cached = total
            if breakpoint:
                self._prefixes.add(key)
                written = total
        use = CacheUse(prompt_tokens=total, cached_tokens=cached, written_tokens=max(0, written - cached))
        self.uses.append(use)
        return use

    @property
    def cached_fraction(self) -> float:
        """Of all input tokens of every request served so far, the share read from the cache."""
        total = sum(use.prompt_tokens for use in self.uses)
        return sum(use.cached_tokens for use in self.uses) / total if total else 0.0


def with_cache_usage(chunks: list[Any], use: CacheUse) -> list[Any]:
    """A response's chunks with its usage chunk reporting ``use`` as OpenAI does (output tokens kept)."""
    result = list(chunks)
    for index, chunk in enumerate(result):
        if isinstance(chunk, dict) and "usage" in chunk:
            output = int(chunk["usage"].get("completion_tokens", 0))
            counts: dict[str, Any] = {
                "prompt_tokens": use.prompt_tokens,
                "completion_tokens": output,
                "total_tokens": use.prompt_tokens + output,
                "prompt_tokens_details": {"cached_tokens": use.cached_tokens},
            }
            if use.written_tokens:
                counts["cache_creation_input_tokens"] = use.written_tokens
            result[index] = {**chunk, "usage": counts}
    return result


def estimate_tokens(text: str) -> int:
    return max(1, -(-len(text) // 4))


def request_segments(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """(canonical JSON without markers, whether it is a breakpoint) per tool, then per message."""
    messages = body.get("messages") or []
    system = [message for message in messages if message.get("role") == "system"]
    rest = [message for message in messages if message.get("role") != "system"]
    segments = []
    for item in [*(body.get("tools") or []), *system, *rest]:
        bare, marked = _without_markers(item)
        segments.append((json.dumps(bare, sort_keys=True, ensure_ascii=False), marked))
    return segments


def _without_markers(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        marked = "cache_control" in value
        clean = {}
        for key, item in value.items():
            if key == "cache_control":
                continue
            clean[key], inner = _without_markers(item)
            marked = marked or inner
        # A text part alone is the same content as the plain string a marker replaced.
        if set(clean) == {"type", "text"} and clean["type"] == "text":
            return clean["text"], marked
        return clean, marked
    if isinstance(value, list):
        items = [_without_markers(item) for item in value]
        bare = [item for item, _ in items]
        if len(bare) == 1 and isinstance(bare[0], str):
            return bare[0], items[0][1]
        return bare, any(marked for _, marked in items)
    return value, False
