"""Run events carry exactly the spec's fields (plus the documented additions)."""

import dataclasses

import pytest

from jupyter_agent.runtime import events

EXPECTED = {
    events.RunStartEvent: ("run_start", ["step_budget"]),
    events.StepStartEvent: ("step_start", ["step"]),
    events.RunTextDeltaEvent: ("text_delta", ["delta"]),
    events.RunThinkingDeltaEvent: ("thinking_delta", ["delta"]),
    events.ToolCallEvent: ("tool_call", ["tool_call_id", "name", "args", "time_limit"]),  # a call's time limit
    events.ToolResultEvent: (
        "tool_result",
        ["tool_call_id", "name", "content", "is_error", "details", "local_content", "withheld"],  # the data policy's
    ),
    events.StepFinishEvent: ("step_finish", ["step", "usage", "step_usage", "model"]),
    events.UserMessageEvent: ("user_message", ["text", "delivery", "phase"]),
    events.MessageEvent: ("message", ["message"]),
    events.CompactedEvent: ("compacted", ["dropped_messages", "kept_messages", "summary_chars", "summary", "first_kept_index"]),
    events.ApprovalRequestEvent: ("approval_request", ["request"]),
    events.ApprovalResponseEvent: ("approval_response", ["request", "decision"]),
    events.FinishEvent: ("finish", ["reason", "text", "usage"]),
    events.RunErrorEvent: ("error", ["error"]),
}


@pytest.mark.parametrize("cls", list(EXPECTED))
def test_fields_and_type_tag(cls):
    tag, fields = EXPECTED[cls]
    assert [f.name for f in dataclasses.fields(cls) if f.name != "type"] == fields
    instance = cls(*[None] * len(fields))
    assert instance.type == tag


def test_every_event_class_is_in_the_union_and_the_package():
    import jupyter_agent.runtime as runtime

    assert set(events.RunEvent.__args__) == set(EXPECTED)
    assert all(getattr(runtime, cls.__name__) is cls for cls in EXPECTED)
