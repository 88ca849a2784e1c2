import json

from jupyter_agent.model.tokens import estimate_overhead
from jupyter_agent.model.types import ToolSpec


def overhead_of(schema):
    return (len("python") + len("runs code") + len(json.dumps(schema))) // 4


def test_a_tools_schema_counts_its_json_and_another_schema_in_its_place_is_counted_anew():
    schema = {"type": "object", "properties": {"code": {"type": "string"}}}
    assert estimate_overhead(None, [ToolSpec(name="python", description="runs code", parameters=schema)]) == overhead_of(schema)
    # Again, from what the first estimate worked out.
    assert estimate_overhead(None, [ToolSpec(name="python", description="runs code", parameters=schema)]) == overhead_of(schema)
    larger = {**schema, "description": "x" * 400}  # a new schema (an MCP server's tools changed)
    assert estimate_overhead(None, [ToolSpec(name="python", description="runs code", parameters=larger)]) == overhead_of(larger)
    assert overhead_of(larger) > overhead_of(schema) + 90
