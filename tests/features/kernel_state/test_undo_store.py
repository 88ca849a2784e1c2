"""The namespace history: steps by seq, deletions, and what it lets go."""

from jupyter_agent.features.kernel_state import undo_store
from jupyter_agent.features.kernel_state.diff import Entry, diff_states
from jupyter_agent.features.kernel_state.fingerprints import fingerprint
from jupyter_agent.features.kernel_state.undo_store import NamespaceHistory, history_for


def state(**values):
    return {name: Entry(value, fingerprint(value)) for name, value in values.items()}


def record(history, seq, before, after):
    history.record(seq, seq, before, after, diff_states(before, after), {})


def test_a_deleted_name_gets_its_object_back_and_a_redefined_one_refuses():
    history = NamespaceHistory()
    kept = object()
    record(history, 1, state(tmp=kept), {})
    assert history.undo(1, {"tmp": 3}).conflicts == {"tmp": "defined again since the agent deleted it"}
    namespace: dict = {}
    assert history.undo(1, namespace).restored == ["tmp"] and namespace["tmp"] is kept
    assert history.undo(1, namespace) is None  # undone already


def test_a_name_deleted_by_the_user_since_is_a_conflict():
    history = NamespaceHistory()
    record(history, 1, {}, state(a=1))
    assert history.undo(1, {}).conflicts == {"a": "deleted since the agent's step"}


def test_only_the_latest_steps_keep_their_values(monkeypatch):
    monkeypatch.setattr(undo_store, "MAX_STEPS", 2)
    history = NamespaceHistory()
    for seq in (1, 2, 3):
        record(history, seq, {}, state(**{f"v{seq}": seq}))
    assert [entry.seq for entry in history.steps] == [2, 3] and history.forgotten == {1}
    assert history.undo(1, {"v1": 1}) is None


def test_histories_belong_to_a_session():
    assert history_for("/tmp/a.jsonl") is history_for("/tmp/a.jsonl")
    assert history_for("/tmp/a.jsonl") is not history_for("/tmp/b.jsonl")
