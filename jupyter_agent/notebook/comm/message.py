"""``ProtocolMessage``: the base of every message of the comm protocol (``protocol``, ``surfaces``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from jupyter_agent.messages import JsonObject


class ProtocolMessage(BaseModel):
    # Unknown fields are ignored: a newer peer may add some without breaking this one.
    # The kernel always sends every field (defaults included), so its schema requires them all.
    # Schemas are built on first use: ``%load_ext`` imports this module to register the comm
    # target, and building ~20 of them then held up the notebook's next cell by ~0.1 s.
    model_config = ConfigDict(extra="ignore", json_schema_serialization_defaults_required=True, defer_build=True)

    def to_json(self) -> JsonObject:
        return self.model_dump(mode="json")
