"""The kernel's two wires as JSON schemas, generated from their Python declarations.

* the comm protocol with the JupyterLab extension (``protocol``'s pydantic models), checked in as
  ``labextension/protocol/comm.schema.json``;
* the live panel's operations and messages (``panel_protocol``'s types), checked in as
  ``labextension/protocol/panel.schema.json``.

The Python tests check that each file matches its declaration and that what the kernel sends
validates; the extension's tests validate their sample messages and the panel's recorded streams
against the same files. Regenerate them after changing a message::

    python -m jupyter_agent.notebook.comm.schema comm > labextension/protocol/comm.schema.json
    python -m jupyter_agent.notebook.comm.schema panel > labextension/protocol/panel.schema.json
"""

from __future__ import annotations

import json
import sys

from pydantic import TypeAdapter

from jupyter_agent.messages import JsonObject
from jupyter_agent.notebook.comm import panel_protocol as panel
from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME, FrontendMessage, KernelMessage

SCHEMA_PATH = "labextension/protocol/comm.schema.json"  # from the repository's root
PANEL_SCHEMA_PATH = "labextension/protocol/panel.schema.json"
_DRAFT = "https://json-schema.org/draft/2020-12/schema"
_REFS = "#/$defs/{model}"

# The panel's named shapes, in the order a reader meets them (tuples get no name from pydantic).
_PANEL_TYPES: dict[str, object] = {
    "CreateOp": panel.CreateOp,
    "SetOp": panel.SetOp,
    "SpliceOp": panel.SpliceOp,
    "AppendOp": panel.AppendOp,
    "RootOp": panel.RootOp,
    "Snapshot": panel.Snapshot,
    "Compressed": panel.Compressed,
    "Hello": panel.Hello,
    "Click": panel.Click,
    "Value": panel.Value,
    "Fold": panel.Fold,
}


def _merge(definitions: JsonObject, schema: JsonObject) -> JsonObject:
    """``schema`` without its ``$defs``, which join ``definitions`` (the same name must mean the same)."""
    named = schema.pop("$defs", {})
    for name, definition in named.items() if isinstance(named, dict) else ():
        if definitions.setdefault(name, definition) != definition:
            raise ValueError(f"{name} is defined differently in two places of one schema")
    return schema


def protocol_schema() -> JsonObject:
    """``FrontendMessage`` (what the kernel accepts) and ``KernelMessage`` (what it sends, every
    field present: the kernel serializes its defaults too)."""
    definitions: JsonObject = {}
    frontend = _merge(definitions, TypeAdapter(FrontendMessage).json_schema(mode="validation", ref_template=_REFS))
    kernel = _merge(definitions, TypeAdapter(KernelMessage).json_schema(mode="serialization", ref_template=_REFS))
    definitions["FrontendMessage"] = frontend
    definitions["KernelMessage"] = kernel
    return {
        "$schema": _DRAFT,
        "title": f"The {TARGET_NAME} comm protocol, version {PROTOCOL_VERSION}",
        "x-protocol-version": PROTOCOL_VERSION,
        "x-target-name": TARGET_NAME,
        "$defs": dict(sorted(definitions.items())),
        "oneOf": [{"$ref": "#/$defs/FrontendMessage"}, {"$ref": "#/$defs/KernelMessage"}],
    }


def panel_schema() -> JsonObject:
    """The panel's operations (``Op``, ``OpBatch``), what the kernel sends (``PanelKernelMessage``)
    and what a page sends (``PanelPageMessage``)."""
    definitions: JsonObject = {}
    for name, declared in _PANEL_TYPES.items():
        definitions[name] = _merge(definitions, TypeAdapter(declared).json_schema(ref_template=_REFS))

    def one_of(*names: str) -> JsonObject:
        return {"oneOf": [{"$ref": f"#/$defs/{name}"} for name in names]}

    definitions["Op"] = one_of("CreateOp", "SetOp", "SpliceOp", "AppendOp", "RootOp")
    definitions["OpBatch"] = {"type": "array", "items": {"$ref": "#/$defs/Op"}}
    definitions["PanelKernelMessage"] = one_of("Snapshot", "Compressed", "OpBatch")
    definitions["PanelPageMessage"] = one_of("Hello", "Click", "Value", "Fold")
    return {
        "$schema": _DRAFT,
        "title": "The live panel's operations and messages (notebook/comm/panel_protocol.py)",
        "$defs": dict(sorted(definitions.items())),
        "oneOf": [{"$ref": "#/$defs/PanelKernelMessage"}, {"$ref": "#/$defs/PanelPageMessage"}],
    }


def schema_text(schema: JsonObject | None = None) -> str:
    """The checked-in form of a schema (the comm protocol's by default)."""
    return json.dumps(protocol_schema() if schema is None else schema, indent=2, sort_keys=False) + "\n"


def panel_schema_text() -> str:
    return schema_text(panel_schema())


SCHEMAS = {"comm": (SCHEMA_PATH, schema_text), "panel": (PANEL_SCHEMA_PATH, panel_schema_text)}


def main(argv: list[str]) -> int:
    name = argv[0] if argv else "comm"
    if name not in SCHEMAS or len(argv) > 1:
        print(f"usage: python -m jupyter_agent.notebook.comm.schema [{'|'.join(SCHEMAS)}]", file=sys.stderr)
        return 2
    print(SCHEMAS[name][1](), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
