import time

import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.session import SessionStore, list_sessions, session_path, sessions_folder
from jupyter_agent.testing.waiting import wait_until_blocking


def test_a_session_lives_beside_its_notebook(tmp_path):
    notebook = tmp_path / "analysis.ipynb"
    assert sessions_folder(notebook) == tmp_path / "analysis.agent"
    assert session_path(notebook, "main") == tmp_path / "analysis.agent" / "main.jsonl"
    assert session_path("sub/x.y.ipynb", "try-2.b") == sessions_folder("sub/x.y.ipynb") / "try-2.b.jsonl"


@pytest.mark.parametrize("name", ["", "../main", "a/b", ".hidden", "-flag", "x" * 101, "sp ace"])
def test_invalid_session_names_are_refused(tmp_path, name):
    with pytest.raises(ValueError, match="invalid session name .*: use letters, digits, '.', '_' or '-'"):
        session_path(tmp_path / "a.ipynb", name)


def test_list_sessions_reports_counts_activity_model_and_cost(tmp_path):
    notebook = tmp_path / "analysis.ipynb"
    with SessionStore(session_path(notebook, "main")) as main:
        main.append(UserMessage(content="hi"))
        main.append(AssistantMessage(content=[TextContent(text="hello")], model="gpt-a"))
        main.record_usage({"input_tokens": 5, "spend_usd": 0.25}, model="gpt-a", step=1)
        main.record_usage({"input_tokens": 5, "spend_usd": 0.5}, model="gpt-b", step=2)
        compacted_at = main.append(UserMessage(content="more"))
        main.record_compaction("summary", compacted_at)
    moment = time.time()
    # Distinct millisecond timestamps order the list.
    wait_until_blocking(lambda: time.time() - moment >= 0.002, what="the clock to pass a millisecond")
    with SessionStore(session_path(notebook, "other")) as other:
        other.append(UserMessage(content="x"))
    # A session open for writing elsewhere is still listed (listing never locks).
    busy = SessionStore(session_path(notebook, "other"))
    infos = list_sessions(sessions_folder(notebook))
    busy.close()
    assert [info.name for info in infos] == ["other", "main"]
    main_info = infos[1]
    assert main_info.message_count == 3
    assert main_info.model == "gpt-b"
    assert main_info.total_cost_usd == pytest.approx(0.75)
    assert main_info.path == session_path(notebook, "main")
    assert main_info.last_activity.tzinfo is not None
    assert infos[0].total_cost_usd == 0.0 and infos[0].model is None


def test_list_sessions_of_a_missing_folder_is_empty(tmp_path):
    assert list_sessions(tmp_path / "none.agent") == []


def test_list_sessions_counts_problems_without_warning(tmp_path, recwarn):
    path = tmp_path / "n.agent" / "s.jsonl"
    with SessionStore(path) as store:
        store.append(UserMessage(content="hi"))
    with open(path, "ab") as file:
        file.write(b'{"torn')
    [info] = list_sessions(path.parent)
    assert info.problems == 1 and info.message_count == 1
    assert len(recwarn) == 0


def test_files_a_feature_keeps_beside_the_sessions_are_not_listed_as_sessions(tmp_path):
    from jupyter_agent.features.notebook_tools import NotebookEdit, NotebookEditLog

    notebook = tmp_path / "analysis.ipynb"
    with SessionStore(session_path(notebook, "main")) as main:
        main.append(UserMessage(content="hi"))
    edits = NotebookEditLog.for_session(session_path(notebook, "main"))
    edits.record(NotebookEdit(step=1, op="insert", cell_id="c1", index=0, before=None, after={"source": "1"}))
    assert edits.path.parent == sessions_folder(notebook) and edits.path.suffix == ".jsonl"
    with SessionStore(session_path(notebook, "torn")) as torn:
        torn.append(UserMessage(content="kept"))
    with session_path(notebook, "torn").open("a") as file:
        file.write('{"type": "message", "broken')  # a torn last line leaves a session a session
    assert sorted(info.name for info in list_sessions(sessions_folder(notebook))) == ["main", "torn"]
