"""The memory index as a step-context section."""

from jupyter_agent.features.memory.prompt import memory_step_section
from jupyter_agent.features.memory.store import MemoryStore


def test_the_step_section_shows_the_index_and_how_to_use_the_tool(tmp_path):
    memory = MemoryStore(tmp_path / "analysis.agent" / "memory")
    assert "(no notes saved yet)" in memory_step_section(memory)
    memory.write("units", "Revenue is in kEUR.")
    section = memory_step_section(memory)
    assert section.startswith("## Memory\n") and "- units: Revenue is in kEUR." in section
    assert "`memory` tool" in section
