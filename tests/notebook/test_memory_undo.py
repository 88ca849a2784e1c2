import pytest
from IPython.core.error import UsageError

from jupyter_agent.notebook.feature_commands import memory_command
from jupyter_agent.notebook.memory_undo import MemoryUndoLog
from jupyter_agent.session.memory import MEMORY_FOLDER, MemoryStore


def test_undo_restores_the_recorded_change_from_a_fresh_log(tmp_path):
    store = MemoryStore(tmp_path / MEMORY_FOLDER)
    store.write("units", "Revenue is in USD.")
    MemoryUndoLog(store).record(store.write("units", "Revenue is in EUR."))
    report = memory_command(tmp_path, ["undo", "units"], "usage")
    assert report.markdown == "Undid the agent's change of the memory note `units` (updated)."
    assert "USD" in store.read("units").content
    memory_command(tmp_path, ["undo", "units"], "usage")  # the undo is undone: the agent's version again
    assert "EUR" in store.read("units").content
    assert store.names() == ["units"]  # the log is not a note


def test_undo_refuses_a_note_changed_since_or_never_recorded(tmp_path):
    store = MemoryStore(tmp_path / MEMORY_FOLDER)
    MemoryUndoLog(store).record(store.write("units", "EUR"))
    store.write("units", "GBP, the user's own edit")
    with pytest.raises(UsageError, match="changed again since the agent's change: not undone"):
        memory_command(tmp_path, ["undo", "units"], "usage")
    with pytest.raises(UsageError, match="no recorded change of the memory note 'other' to undo"):
        memory_command(tmp_path, ["undo", "other"], "usage")
    with pytest.raises(UsageError, match="takes one note name"):
        memory_command(tmp_path, ["undo"], "usage")
