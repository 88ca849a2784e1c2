import pytest
from IPython.testing.globalipapp import get_ipython

from jupyter_agent.notebook.toolset import ALL_TOOLS, CODING_TOOLS, KERNEL_TOOLS, UnknownToolError, build_tools, parse_tool_list


def test_parse_tool_list():
    assert parse_tool_list("python, read") == ("python", "read")
    assert parse_tool_list("") == () and parse_tool_list(None) == ()
    assert parse_tool_list("none") == ("none",)
    with pytest.raises(UnknownToolError, match="unknown tool\\(s\\): shovel"):
        parse_tool_list("python,shovel")


def test_build_tools_selects_and_records_writes_for_undo(manager, tmp_path):
    shell = get_ipython()
    session = manager.get()
    assert [tool.name for tool in build_tools(shell, session)] == list(KERNEL_TOOLS + CODING_TOOLS)
    # --tools also picks the features' tools (the notebook tools), between the two.
    assert ALL_TOOLS == KERNEL_TOOLS + ("notebook_read", "notebook_edit", "notebook_run") + CODING_TOOLS
    assert [tool.name for tool in build_tools(shell, session, selected=("read", "python"))] == ["python", "read"]
    assert build_tools(shell, session, selected=("none",)) == []


@pytest.mark.anyio
async def test_writes_are_snapshotted_for_undo(manager, tmp_path):
    session = manager.get()
    target = tmp_path / "notes.txt"
    [write] = build_tools(get_ipython(), session, selected=("write",), current_step=lambda: 3)
    from jupyter_agent.loop import AbortController

    await write.execute(write.parameters(path="notes.txt", content="new"), AbortController().signal)
    assert target.read_text() == "new"
    assert [step.step for step in session.snapshots.steps()] == [3]
    assert session.snapshots.undo().ok and not target.exists()
