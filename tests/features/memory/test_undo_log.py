import pytest

from jupyter_agent.features.memory.store import MEMORY_FOLDER, MemoryStore
from jupyter_agent.features.memory.undo_log import MemoryUndoLog


def test_undo_restores_the_recorded_change_from_a_fresh_log(tmp_path):
    store = MemoryStore(tmp_path / MEMORY_FOLDER)
    store.write("units", "Revenue is in USD.")
    MemoryUndoLog(store).record(store.write("units", "Revenue is in EUR."))
    fresh = MemoryUndoLog(MemoryStore(tmp_path / MEMORY_FOLDER))  # as after a kernel restart
    assert fresh.undo("units") == "Undid the agent's change of the memory note `units` (updated)."
    assert "USD" in store.read("units").content
    fresh.undo("units")  # the undo is undone: the agent's version again
    assert "EUR" in store.read("units").content
    assert store.names() == ["units"]  # the log is not a note


def test_undo_refuses_a_note_changed_since_or_never_recorded(tmp_path):
    store = MemoryStore(tmp_path / MEMORY_FOLDER)
    MemoryUndoLog(store).record(store.write("units", "EUR"))
    store.write("units", "GBP, the user's own edit")
    with pytest.raises(LookupError, match="changed again since the agent's change: not undone"):
        MemoryUndoLog(store).undo("units")
    with pytest.raises(LookupError, match="no recorded change of the memory note 'other' to undo"):
        MemoryUndoLog(store).undo("other")
