"""The comm protocol as one JSON schema, generated from the pydantic models of ``protocol``.

The schema is checked in as ``labextension/protocol/comm.schema.json``: the Python tests check
that it matches these models and that what the kernel sends validates; the extension's tests
validate their sample messages against it. Regenerate it after changing a message::

    python -m jupyter_agent.notebook.comm.schema > labextension/protocol/comm.schema.json
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter

from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME, FrontendMessage, KernelMessage

SCHEMA_PATH = "labextension/protocol/comm.schema.json"  # from the repository's root


def protocol_schema() -> dict[str, Any]:
    """``FrontendMessage`` (what the kernel accepts) and ``KernelMessage`` (what it sends, every
    field present: the kernel serializes its defaults too)."""
    frontend = TypeAdapter(FrontendMessage).json_schema(mode="validation", ref_template="#/$defs/{model}")
    kernel = TypeAdapter(KernelMessage).json_schema(mode="serialization", ref_template="#/$defs/{model}")
    definitions: dict[str, Any] = {}
    for part in (frontend, kernel):
        for name, definition in part.pop("$defs", {}).items():
            if definitions.setdefault(name, definition) != definition:
                raise ValueError(f"{name} is defined differently on the two sides of the protocol")
    definitions["FrontendMessage"] = frontend
    definitions["KernelMessage"] = kernel
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"The {TARGET_NAME} comm protocol, version {PROTOCOL_VERSION}",
        "x-protocol-version": PROTOCOL_VERSION,
        "x-target-name": TARGET_NAME,
        "$defs": dict(sorted(definitions.items())),
        "oneOf": [{"$ref": "#/$defs/FrontendMessage"}, {"$ref": "#/$defs/KernelMessage"}],
    }


def schema_text() -> str:
    return json.dumps(protocol_schema(), indent=2, sort_keys=False) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
