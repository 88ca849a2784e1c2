"""Re-running a cell branches the session: the replaced turns stay readable as a branch."""

import json

from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.session import SessionStore
from jupyter_agent.session.records import CellRef


def turn(store, prompt, answer, cell_id):
    store.record_request("model-x", {"permissions": "ask"}, cell=CellRef(cell_id=cell_id))
    store.append(UserMessage(content=prompt))
    store.append(AssistantMessage(content=[TextContent(text=answer)]))


def prompts(messages):
    return [m.content for m in messages if m.role == "user"]


def test_redo_branches_just_before_a_turn_and_keeps_the_old_one(tmp_path):
    path = tmp_path / "nb.agent" / "main.jsonl"
    with SessionStore(path) as store:
        turn(store, "A", "a", "ca")
        turn(store, "B", "b", "cb")
        second = store.turns()[1]
        store.redo(second.start)
        assert prompts(store.messages()) == ["A"]
        turn(store, "B edited", "b2", "cb")
        assert prompts(store.messages()) == ["A", "B edited"]
        assert [t.cell.cell_id for t in store.turns()] == ["ca", "cb"]

    reopened = SessionStore(path, read_only=True)  # what a restarted kernel reads
    assert prompts(reopened.messages()) == ["A", "B edited"]
    active, replaced = reopened.branches()
    assert active.active and [t.prompt for t in active.turns] == ["A", "B edited"]
    assert replaced.number == 1 and not replaced.active
    assert [t.prompt for t in replaced.turns] == ["A", "B"]
    assert [t.prompt for t in replaced.own_turns] == ["B"]  # what the re-run replaced
    assert prompts(replaced.history()) == ["A", "B"]
    assert prompts(replaced.messages()) == ["A", "B"]
    assert replaced.last_activity is not None


def test_redoing_the_first_turn_starts_the_branch_from_nothing(tmp_path):
    path = tmp_path / "nb.agent" / "main.jsonl"
    with SessionStore(path) as store:
        turn(store, "A", "a", "ca")
        turn(store, "B", "b", "cb")
        store.redo(store.turns()[0].start)
        assert store.messages() == [] and store.turns() == []
        turn(store, "A again", "a2", "ca")
        assert prompts(store.messages()) == ["A again"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    branch = next(line for line in lines if line["kind"] == "branch")
    assert branch["at"] is None and branch["parent_id"] is None and branch["redo"] == lines[1]["id"]
    reopened = SessionStore(path, read_only=True)
    assert prompts(reopened.messages()) == ["A again"]
    assert [t.prompt for t in reopened.branches()[1].own_turns] == ["A", "B"]


def test_every_redo_leaves_one_more_branch(tmp_path):
    with SessionStore(tmp_path / "s.jsonl") as store:
        turn(store, "A", "a", "ca")
        for run in range(3):
            store.redo(store.turns()[0].start)
            turn(store, f"A{run}", "a", "ca")
        branches = store.branches()
        assert [b.number for b in branches] == [0, 1, 2, 3]
        assert [b.own_turns[0].prompt for b in branches[1:]] == ["A", "A0", "A1"]  # oldest first


def test_a_session_without_records_has_no_branches(tmp_path):
    assert SessionStore(tmp_path / "s.jsonl", read_only=True).branches() == []


def test_files_without_cell_records_still_load(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text(
        '{"kind":"session","format":"jupyter-agent-session","version":1,"session_id":"s1","created":1}\n'
        '{"kind":"request","id":"r1","parent_id":null,"ts":1,"model":"m","options":{}}\n'
        '{"kind":"message","id":"m1","parent_id":"r1","ts":2,"message":{"role":"user","content":"old"}}\n'
        '{"kind":"branch","id":"b1","parent_id":"m1","ts":3,"at":"m1"}\n'
    )
    store = SessionStore(path, read_only=True)
    assert store.problems == [] and prompts(store.messages()) == ["old"]
    assert store.turns()[0].cell is None and store.turns()[0].prompt == "old"


def test_a_fork_honours_the_signatures_of_the_sessions_it_copies(tmp_path):
    with SessionStore(tmp_path / "main.jsonl") as store:
        turn(store, "A", "a", "ca")
        with store.fork(tmp_path / "side.jsonl") as side:
            assert side.session_ids == {side.header.session_id, store.header.session_id}
            turn(side, "B", "b", "cb")
            with side.fork(tmp_path / "side2.jsonl") as deeper:
                assert deeper.session_ids == {deeper.header.session_id, side.header.session_id, store.header.session_id}
