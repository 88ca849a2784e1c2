import os
from pathlib import Path

import pytest

from jupyter_agent.messages import UserMessage
from jupyter_agent.notebook.session_manager import SessionManager, SessionNameError, check_session_name, notebook_path


def test_notebook_path_from_the_jupyter_server(tmp_path):
    assert notebook_path({}, {"JPY_SESSION_NAME": "/srv/work/analysis.ipynb"}) == Path("/srv/work/analysis.ipynb")
    # Older servers pass the server-relative path; the kernel runs in the notebook's folder.
    assert notebook_path({}, {"JPY_SESSION_NAME": "sub/analysis.ipynb"}, cwd=tmp_path) == tmp_path / "analysis.ipynb"
    assert notebook_path({"__session__": "/a/b.ipynb"}, {}) == Path("/a/b.ipynb")


def test_notebook_path_from_vs_code_else_unknown():
    assert notebook_path({"__vsc_ipynb_file__": "/home/me/x.ipynb"}, {}) == Path("/home/me/x.ipynb")
    assert notebook_path({}, {}) is None


def test_session_names_are_checked():
    assert check_session_name("main-2") == "main-2"
    for bad in ("", "../x", "a/b", ".hidden", "x.jsonl"):
        with pytest.raises(SessionNameError):
            check_session_name(bad)


def test_sessions_live_beside_the_notebook_and_are_reused(manager, tmp_path):
    session = manager.get()
    assert session.path == tmp_path / "analysis.agent" / "main.jsonl"
    assert manager.get("main") is session
    assert session.notebook == tmp_path / "analysis.ipynb" and session.workspace == tmp_path


def test_without_a_notebook_sessions_go_to_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manager = SessionManager({}, workspace_for=lambda folder: folder, env={})
    try:
        assert manager.get().path == tmp_path / "ipython.agent" / "main.jsonl"
    finally:
        manager.close()


def test_new_session_gets_a_free_name_and_stays_current_after_a_restart(manager, tmp_path):
    manager.get().store.append(UserMessage(content="old"))
    fresh = manager.start_new()
    assert fresh.name == "main-2" and fresh.store.messages() == []
    manager.close()
    restarted = SessionManager(
        {}, workspace_for=lambda folder: folder, env={"JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb")}
    )
    try:
        assert restarted.current_name() == "main-2"
    finally:
        restarted.close()


def test_branch_forks_the_transcript(manager):
    main = manager.get()
    with pytest.raises(SessionNameError):
        manager.branch(main, "idea")  # nothing to fork yet
    main.store.append(UserMessage(content="shared start"))
    branch = manager.branch(main, "idea")
    assert branch.name == "idea" and manager.current_name() == "idea"
    assert [m.content for m in branch.store.messages()] == ["shared start"]
    assert not branch.path.with_name("idea.plan.json").exists()  # no plan to copy


def test_branch_copies_the_plan(manager):
    from jupyter_agent.features.plan.file import PlanFile

    main = manager.get()
    main.store.append(UserMessage(content="start"))
    plan = PlanFile(main.path).state()
    plan.replace([{"text": "Load", "status": "in_progress"}])
    branch = manager.branch(main, "idea")
    plan.update([{"id": "1", "status": "done"}])  # later changes stay in main
    assert [(i.text, i.status) for i in PlanFile(branch.path).load().items] == [("Load", "in_progress")]
    with pytest.raises(SessionNameError, match="already exists: continue it with -s idea"):
        manager.branch(main, "idea")


def test_trust_is_kept_across_the_policies_of_every_mode(manager):
    from jupyter_agent.runtime import PermissionPolicy

    session = manager.get()
    policy = PermissionPolicy("ask", trust=session.trust)  # each run makes its own over the session's trust
    policy.trusted_tools.add("python")
    later = PermissionPolicy("yolo", trust=manager.get().trust)
    assert later is not policy and later.mode == "yolo" and policy.mode == "ask"
    assert PermissionPolicy("ask", trust=session.trust).trusted_tools == {"python"}


def test_notebook_path_from_papermills_injected_parameter(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "report.ipynb").write_text("{}")
    assert notebook_path({"PAPERMILL_INPUT_PATH": "runs/report.ipynb"}, {}, cwd=tmp_path) == tmp_path / "runs" / "report.ipynb"
    # papermill --cwd: the path was relative to papermill's folder, the kernel runs in the notebook's.
    assert notebook_path({"PAPERMILL_INPUT_PATH": "elsewhere/report.ipynb"}, {}, cwd=tmp_path) == tmp_path / "report.ipynb"
    assert notebook_path({"PAPERMILL_INPUT_PATH": 3}, {}, cwd=tmp_path) is None


def test_a_configured_session_dir_holds_the_sessions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manager = SessionManager({}, workspace_for=lambda folder: folder, env={}, configured_folder=lambda: "runs/a")
    try:
        assert manager.location_known
        assert manager.get().path == tmp_path / "runs" / "a" / "main.jsonl"
        assert manager.start_new().path == tmp_path / "runs" / "a" / "main-2.jsonl"
    finally:
        manager.close()


def test_a_chosen_session_file_becomes_the_current_session(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manager = SessionManager({}, workspace_for=lambda folder: folder, env={}, configured_folder=lambda: "ignored")
    try:
        assert not SessionManager({}, workspace_for=lambda folder: folder, env={}).location_known
        session = manager.choose_file(Path("report.agent/nightly.jsonl"))
        assert session.path == tmp_path / "report.agent" / "nightly.jsonl"
        assert manager.recent() is session and manager.current_name() == "nightly"
        with pytest.raises(SessionNameError, match="a session file ends in .jsonl, got 'notes.txt'"):
            manager.choose_file(Path("notes.txt"))
        with pytest.raises(SessionNameError, match="invalid session name"):
            manager.choose_file(Path("x/.hidden.jsonl"))
    finally:
        manager.close()


def test_the_session_a_restarted_kernel_likely_continues_is_the_newest_file(manager, tmp_path):
    assert manager.likely_next() is None  # no session written yet
    folder = tmp_path / "analysis.agent"
    folder.mkdir()
    older, newer = folder / "main.jsonl", folder / "long.jsonl"
    older.write_text("{}\n")
    newer.write_text("{}\n")
    os.utime(older, ns=(1_000_000_000, 1_000_000_000))
    os.utime(newer, ns=(2_000_000_000, 2_000_000_000))
    (folder / "long.index").write_text("")  # not a session
    assert manager.likely_next() == newer
