from jupyter_agent.features.memory.store import MemoryStore
from jupyter_agent.features.memory.view import NOT_UNDONE, UNDONE, MemoryView
from jupyter_agent.notebook.panel.shared import is_visible


def test_each_change_has_an_undo_that_reports_whether_it_worked(tmp_path):
    store = MemoryStore(tmp_path / "memory")
    view = MemoryView()
    assert not is_visible(view.widget)
    created = store.write("date-format", "Dates are day-first.", "dates are <dd/mm>")
    updated = store.write("units", "Revenue is in kEUR.")
    store.write("units", "Revenue is in EUR.")  # changed again after `updated`... and before its undo
    view.add(created)
    view.add(updated)
    assert is_visible(view.widget) and len(view.widget.children) == 2
    first, second = view.rows
    assert "saved <code>date-format</code> — dates are &lt;dd/mm&gt;" in first.label.value

    first.button.click()
    assert first.outcome == UNDONE and store.read("date-format") is None
    assert first.button.disabled and first.button.description == "Undone"
    assert "(undone)" in first.label.value

    assert second.undo() is False and second.outcome == NOT_UNDONE
    assert store.read("units").content == "Revenue is in EUR."  # nothing touched


def test_adding_nothing_shows_nothing():
    view = MemoryView()
    view.add()
    assert not is_visible(view.widget) and view.rows == []
