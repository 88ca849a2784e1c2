import pytest

from jupyter_agent.tools import ReadTracker, ToolError, Workspace
from jupyter_agent.tools.file_change import PlannedChange, apply_change

pytestmark = pytest.mark.anyio


async def test_change_between_plan_and_commit_is_refused(tmp_path):
    path = tmp_path / "f.txt"
    path.write_text("planned against this")
    plan = PlannedChange(path=path, shown="f.txt", content=b"new", previous=b"planned against this", report="ok")

    def sneaky_writer(target):
        target.write_text("someone else")

    with pytest.raises(ToolError, match="changed on disk while it was being changed"):
        await apply_change(Workspace(tmp_path), plan, ReadTracker(), sneaky_writer)
    assert path.read_text() == "someone else"


async def test_commit_records_the_new_content_as_read(tmp_path):
    path = tmp_path / "f.txt"
    tracker = ReadTracker()
    plan = PlannedChange(path=path, shown="f.txt", content=b"new", previous=None, report="done")
    assert await apply_change(Workspace(tmp_path), plan, tracker, None) == "done"
    tracker.require_current(path, b"new", "f.txt", "edit")
