"""``%agent plan`` and ``%agent memory`` in an in-process IPython shell."""

import pytest
from IPython.core.error import UsageError

from jupyter_agent.features.memory.view import memory_command


def error_of(ip, code):
    result = ip.run_cell(code)
    assert not result.success
    return result.error_in_exec


def test_plan_and_memory_subcommands(ip):
    from jupyter_agent.features.memory.store import MemoryStore
    from jupyter_agent.features.plan.file import PlanFile

    magics = ip.find_line_magic("agent").__self__
    session = magics.sessions.get("planned")
    assert ip.run_line_magic("agent", "plan -s planned").markdown == "Session `planned` has no plan yet."
    PlanFile(session.path).state().replace([{"text": "Load", "status": "done"}, {"text": "Plot", "status": "in_progress"}])
    report = ip.run_line_magic("agent", "plan -s planned")
    assert report.text == "Plan (1/2 done):\n[x] 1. Load\n[>] 2. Plot"
    assert report.markdown.startswith("**Plan of session `planned`** (1/2 done)\n\n- [x] ~~Load~~")

    assert ip.run_line_magic("agent", "memory").text.startswith("No memory notes yet. Turn memory on")
    MemoryStore(magics.sessions.folder / "memory").write("units", "Revenue is in EUR.", "revenue | EUR")
    listing = ip.run_line_magic("agent", "memory")
    assert listing.text == "units: revenue | EUR" and "| `units` | revenue \\| EUR |" in listing.markdown
    assert "Revenue is in EUR." in ip.run_line_magic("agent", "memory show units").text
    assert "no memory note named 'nope'; notes: units" in str(error_of(ip, "%agent memory show nope"))
    assert "takes one note name" in str(error_of(ip, "%agent memory delete"))
    assert "unknown memory action 'forget'" in str(error_of(ip, "%agent memory forget units"))
    assert ip.run_line_magic("agent", "memory delete units").markdown == "Deleted the memory note `units`."
    assert ip.run_line_magic("agent", "memory list").text.startswith("No memory notes yet")


def test_memory_undo_reverts_the_logged_change_and_reports_refusals(tmp_path):
    from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryStore
    from jupyter_agent.features.memory.undo_log import MemoryUndoLog

    store = MemoryStore(tmp_path / MEMORY_FOLDER)
    MemoryUndoLog(store).record(store.write("units", "EUR"))
    assert (
        memory_command(tmp_path, ["undo", "units"], "usage").markdown
        == "Undid the agent's change of the memory note `units` (created)."
    )
    assert store.read("units") is None
    with pytest.raises(UsageError, match="no recorded change of the memory note 'other' to undo"):
        memory_command(tmp_path, ["undo", "other"], "usage")
    with pytest.raises(UsageError, match="takes one note name"):
        memory_command(tmp_path, ["undo"], "usage")
