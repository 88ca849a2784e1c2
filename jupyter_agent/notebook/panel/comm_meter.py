"""Counting what widgets would send to the frontend, without a kernel.

`with CommMeter() as meter:` replaces `comm.create_comm` so every widget created inside gets a
comm that measures its messages the way jupyter_client serializes them (JSON, UTF-8, no ASCII
escaping). `content_bytes` is the content frame of each message; the wire adds an envelope
(header, parent header, HMAC) of ~540 bytes per message, measured in the anchor study.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

import comm
from comm.base_comm import BaseComm

from jupyter_agent.messages import JsonObject, JsonValue

# Per-message envelope on the kernel → client link (measured: ~520–540 bytes).
WIRE_ENVELOPE_BYTES = 540


@dataclass
class Sent:
    msg_type: str
    comm_id: str
    data: JsonObject | None
    content_bytes: int
    buffer_bytes: int
    buffers: list[bytes] = field(default_factory=list)


@dataclass
class CommMeter:
    """Records every comm message sent by widgets created while it is active."""

    sent: list[Sent] = field(default_factory=list)
    _saved: Callable[..., BaseComm] | None = None

    def __enter__(self) -> CommMeter:
        self._saved = comm.create_comm
        meter = self

        class CountedComm(_MeteredComm):
            counted_by = meter

        comm.create_comm = CountedComm
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            comm.create_comm = self._saved

    def reset(self) -> None:
        self.sent.clear()

    @property
    def messages(self) -> int:
        return len(self.sent)

    @property
    def content_bytes(self) -> int:
        return sum(item.content_bytes + item.buffer_bytes for item in self.sent)

    @property
    def wire_bytes_estimate(self) -> int:
        return self.content_bytes + WIRE_ENVELOPE_BYTES * len(self.sent)

    def count(self) -> Counter[str]:
        return Counter(item.msg_type for item in self.sent)

    def updates_of(self, widget: Widget) -> list[JsonValue]:
        """The state dicts of the update messages sent for one widget."""
        return [
            item.data["state"]
            for item in self.sent
            if item.comm_id == widget.model_id
            and item.msg_type == "comm_msg"
            and isinstance(item.data, dict)
            and item.data.get("method") == "update"
        ]


class Widget(Protocol):
    """What the meter knows of a widget: the id its messages carry."""

    @property
    def model_id(self) -> str: ...


class _MeteredComm(BaseComm):
    """A comm that records its messages in ``counted_by`` (each ``CommMeter`` makes a subclass that sets it:
    the comm publishes its open from ``BaseComm.__init__``, before an instance attribute could be set)."""

    counted_by: ClassVar[CommMeter]

    def publish_msg(
        self,
        msg_type: str,
        data: JsonObject | None = None,
        metadata: JsonObject | None = None,
        buffers: list[bytes] | None = None,
        **keys: object,
    ) -> None:
        content = {"comm_id": self.comm_id, "data": data or {}, **{k: v for k, v in keys.items() if v}}
        size = len(json.dumps(content, ensure_ascii=False, default=repr).encode("utf-8", "surrogateescape"))
        buffer_bytes = sum(memoryview(buffer).nbytes for buffer in buffers or ())
        kept = [bytes(buffer) for buffer in buffers or ()]
        self.counted_by.sent.append(Sent(msg_type, self.comm_id, data, size, buffer_bytes, kept))
