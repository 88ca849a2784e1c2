"""Sessions follow their notebook: moved on rename, copied on Save As, adopted by hand."""

from types import SimpleNamespace

import pytest
from IPython.core.error import UsageError

from jupyter_agent.messages import UserMessage
from jupyter_agent.notebook.session_manager import SessionManager
from jupyter_agent.notebook.session_moves import adopt_report, follow_notebook


def manager_for(notebook):
    return SessionManager({}, workspace_for=lambda folder: folder, env={"JPY_SESSION_NAME": str(notebook)})


def with_a_turn(manager, text="hello"):
    session = manager.get("main")
    session.store.append(UserMessage(content=text))
    return session


def test_a_rename_moves_the_sessions_and_the_kernel_writes_there(tmp_path):
    manager = manager_for(tmp_path / "Untitled.ipynb")
    (tmp_path / "Untitled.ipynb").write_text("{}")
    session = with_a_turn(manager)
    session.trust = "trust kept"
    (tmp_path / "Untitled.ipynb").rename(tmp_path / "Analysis.ipynb")
    said = follow_notebook(manager, "Analysis.ipynb", "Untitled.ipynb")
    assert said == f"Moved the sessions from {tmp_path / 'Untitled.agent'} to {tmp_path / 'Analysis.agent'}."
    assert not (tmp_path / "Untitled.agent").exists()
    assert manager.notebook == tmp_path / "Analysis.ipynb" and manager.folder == tmp_path / "Analysis.agent"
    moved = manager.get("main")
    assert moved.path == tmp_path / "Analysis.agent" / "main.jsonl" and moved.trust == "trust kept"
    moved.store.append(UserMessage(content="after the rename"))
    assert [m.content for m in moved.store.messages()] == ["hello", "after the rename"]


def test_save_as_copies_so_both_notebooks_keep_them(tmp_path):
    (tmp_path / "sub").mkdir()
    manager = manager_for(tmp_path / "sub" / "A.ipynb")
    (tmp_path / "sub" / "A.ipynb").write_text("{}")
    with_a_turn(manager)
    said = follow_notebook(manager, "sub/B.ipynb", "sub/A.ipynb")  # A.ipynb is still there
    assert said.startswith("Copied the sessions")
    assert (tmp_path / "sub" / "A.agent" / "main.jsonl").is_file() and (tmp_path / "sub" / "B.agent" / "main.jsonl").is_file()


def test_a_name_already_taken_leaves_the_sessions_where_they_are(tmp_path):
    manager = manager_for(tmp_path / "A.ipynb")
    with_a_turn(manager)
    (tmp_path / "B.agent").mkdir()
    said = follow_notebook(manager, "B.ipynb", "A.ipynb")
    assert "already exists" in said and "%agent sessions --adopt A.agent" in said
    assert (tmp_path / "A.agent" / "main.jsonl").is_file()


def test_connecting_with_the_same_path_changes_nothing(tmp_path):
    manager = manager_for(tmp_path / "A.ipynb")
    assert follow_notebook(manager, "A.ipynb", None) == f"The notebook is {tmp_path / 'A.ipynb'}."
    assert manager.moved_to is None


def test_adopt_brings_an_old_folders_sessions_here(tmp_path):
    old = manager_for(tmp_path / "Old.ipynb")
    with_a_turn(old, "from the old name")
    old.close()
    manager = manager_for(tmp_path / "New.ipynb")
    magics = SimpleNamespace(sessions=manager)
    report = adopt_report(magics, "Old.agent")
    assert report.text.startswith(f"Moved 1 item(s) from {tmp_path / 'Old.agent'} to {tmp_path / 'New.agent'}")
    assert report.text.endswith(": main.jsonl.")  # its index went with it, not an item of its own
    assert (tmp_path / "New.agent" / "main.index").is_file() and not (tmp_path / "Old.agent").exists()
    assert [m.content for m in manager.get("main").store.messages()] == ["from the old name"]
    with pytest.raises(UsageError, match="is not a sessions folder"):
        adopt_report(magics, "Missing.agent")
    with pytest.raises(UsageError, match="is already this notebook's sessions folder"):
        adopt_report(magics, "New.agent")


def test_adopt_gives_a_session_whose_name_is_taken_here_a_free_name_with_its_files(tmp_path):
    old = manager_for(tmp_path / "Old.ipynb")
    with_a_turn(old, "from the old name")
    old.get("main.v2").store.append(UserMessage(content="a dotted name"))
    old.close()
    (tmp_path / "Old.agent" / "main.plan.json").write_text('{"items": []}')
    (tmp_path / "Old.agent" / "main.snapshots").mkdir()
    manager = manager_for(tmp_path / "New.ipynb")
    with_a_turn(manager, "made here since")
    report = adopt_report(SimpleNamespace(sessions=manager), "Old.agent")
    assert "Session main is here already: the adopted one is main-2 (continue it with -s main-2)." in report.text
    assert "Left in" not in report.text and not (tmp_path / "Old.agent").exists()
    assert sorted(path.name for path in (tmp_path / "New.agent").iterdir() if not path.name.endswith(".lock")) == [
        "main-2.index",  # each session's index follows it under its new name
        "main-2.jsonl",
        "main-2.plan.json",
        "main-2.snapshots",
        "main.index",
        "main.jsonl",
        "main.v2.index",
        "main.v2.jsonl",
    ]
    assert [m.content for m in manager.get("main-2").store.messages()] == ["from the old name"]
    assert [m.content for m in manager.get("main").store.messages()] == ["made here since"]


def test_a_stale_index_where_a_session_arrives_is_replaced_by_its_own(tmp_path):
    old = manager_for(tmp_path / "Old.ipynb")
    with_a_turn(old, "from the old name")
    old.close()
    manager = manager_for(tmp_path / "New.ipynb")
    manager.folder.mkdir()
    (manager.folder / "main.index").write_text("a cache of no session here")
    report = adopt_report(SimpleNamespace(sessions=manager), "Old.agent")
    assert report.text.endswith(": main.jsonl.") and "Left in" not in report.text
    assert (manager.folder / "main.index").read_bytes() != b"a cache of no session here"
    assert [m.content for m in manager.get("main").store.messages()] == ["from the old name"]
