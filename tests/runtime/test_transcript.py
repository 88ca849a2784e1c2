"""The transcript recorder: loop events become run events; the view maps onto the transcript."""

from jupyter_agent import AssistantMessage, MessageEndEvent, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.runtime.compaction import plan_compaction
from jupyter_agent.runtime.transcript import TranscriptRecorder


def recorder(prior=None):
    emitted, assistants = [], []
    rec = TranscriptRecorder(list(prior or []), emitted.append, assistants.append, lambda m: None)
    return rec, emitted, assistants


def test_a_final_only_response_still_announces_its_calls_before_their_results():
    rec, emitted, assistants = recorder()
    assistant = AssistantMessage(content=[ToolCall(id="x", name="t")], stop_reason="tool_use")
    rec.on_loop_event(MessageEndEvent(assistant))
    rec.on_loop_event(MessageEndEvent(ToolResultMessage(tool_call_id="x", tool_name="t", content=[TextContent(text="ok")])))
    assert [e.type for e in emitted] == ["message", "tool_call", "message", "tool_result"]
    assert assistants == [assistant]


def test_calls_of_a_failed_response_are_paired_by_events_only():
    rec, emitted, _ = recorder()
    failed = AssistantMessage(content=[ToolCall(id="x", name="t")], stop_reason="error", error_message="overloaded")
    rec.on_loop_event(MessageEndEvent(failed))
    result = [e for e in emitted if e.type == "tool_result"]
    assert len(result) == 1 and result[0].is_error and result[0].content[0].text == "overloaded"
    assert [m.role for m in rec.messages] == ["assistant"]


def test_pair_open_answers_each_announced_call_once():
    rec, emitted, _ = recorder()
    rec._announce("a", "t", {})
    rec._announce("a", "t", {})
    rec.pair_open("Run cancelled")
    rec.pair_open("again")
    assert [(e.type, getattr(e, "tool_call_id", None)) for e in emitted] == [("tool_call", "a"), ("tool_result", "a")]


def test_an_interrupted_response_is_kept_as_aborted_only_when_something_streamed():
    rec, emitted, _ = recorder()
    rec.record_interrupted("Run cancelled")
    assert rec.messages == []
    rec._partial = AssistantMessage(content=[TextContent(text="half")])
    rec.record_interrupted("Run cancelled")
    assert (rec.messages[0].stop_reason, rec.messages[0].error_message, rec.final_text()) == ("aborted", "Run cancelled", "half")


def test_view_sources_follow_compaction():
    prior = [UserMessage(content="task")]
    rec, _, _ = recorder(prior)
    view = list(prior)
    for i in range(3):
        for message in (
            AssistantMessage(content=[ToolCall(id=str(i), name="t")], stop_reason="tool_use"),
            ToolResultMessage(tool_call_id=str(i), tool_name="t"),
        ):
            rec.on_loop_event(MessageEndEvent(message))
            view.append(message)
    plan = plan_compaction(view, 2)
    assert rec.compacted(plan) == 5
    assert rec.view_sources == [0, None, 5, 6]


def test_final_text_ignores_prior_messages():
    rec, _, _ = recorder([AssistantMessage(content=[TextContent(text="old answer")])])
    assert rec.final_text() == ""
