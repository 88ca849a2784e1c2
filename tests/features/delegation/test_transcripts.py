from types import SimpleNamespace as Event

from jupyter_agent.features.delegation.transcripts import ChildTranscripts
from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.session import SessionStore


def message(m):
    return Event(type="message", message=m)


def test_each_child_gets_its_own_session_file_closed_at_finish(tmp_path):
    transcripts = ChildTranscripts(tmp_path / "nb.agent" / "main.jsonl", turn="t1")
    transcripts.record("child-1", Event(type="child_queued", task="count rows", index=0))
    transcripts.record("child-2", Event(type="child_start", max_steps=5, max_spend_usd=None))
    transcripts.record("child-1", message(UserMessage(content="count rows")))
    transcripts.record("child-2", message(UserMessage(content="find the loader")))
    transcripts.record("child-1", message(AssistantMessage(content=[TextContent(text="42 rows")])))
    transcripts.record("child-1", Event(type="finish", reason="completed", text="42 rows", usage=None))
    assert transcripts.path_for("child-1") == tmp_path / "nb.agent" / "main.children" / "t1-child-1.jsonl"
    with SessionStore(transcripts.path_for("child-1"), read_only=True) as first:
        assert [m.role for m in first.history()] == ["user", "assistant"]
    # child-2 is still open (its file is locked by this process) until close().
    transcripts.close()
    with SessionStore(transcripts.path_for("child-2")) as second:  # a writer: the lock was released
        assert second.history()[0].content == "find the loader"


def test_a_child_that_never_spoke_leaves_no_file(tmp_path):
    transcripts = ChildTranscripts(tmp_path / "main.jsonl", turn="t2")
    transcripts.record("child-1", Event(type="child_queued", task="x", index=0))
    transcripts.record("child-1", Event(type="finish", reason="refused", text="", usage=None))
    assert not transcripts.folder.exists()
