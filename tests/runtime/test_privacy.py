"""The privacy gate at the boundary: secrets out of every request, the policy binding the history."""

import pytest

from jupyter_agent import AssistantMessage, ImageContent, TextContent, ToolResultMessage, UserMessage
from jupyter_agent.model import Context, Model
from jupyter_agent.runtime.events import ToolResultEvent
from jupyter_agent.runtime.privacy import (
    PrivacyGate,
    local_content,
    policy_details,
    recorded_under,
    result_policy,
    sample_text,
    stricter,
    withheld_details,
    withheld_note,
)
from jupyter_agent.testing.scripted import ScriptedModel, reply

KEY = "sk-live-0123456789abcdefXYZ"
SECRETS = {KEY: "OPENAI_API_KEY"}


def gate(policy="sample", **options):
    return PrivacyGate(policy, value_tools=("python", "notebook_read"), secrets=lambda: SECRETS, **options)


def result(text, name="python", details=None, images=()):
    return ToolResultMessage(tool_call_id="c1", tool_name=name, content=[TextContent(text=text), *images], details=details)


def test_policies_order_from_schema_to_full_and_bad_names_are_refused():
    assert stricter("full", "schema") == "schema" and stricter("sample", "full") == "sample"
    with pytest.raises(ValueError, match="data_policy must be one of 'schema', 'sample', 'full', got 'open'"):
        PrivacyGate("open")
    with pytest.raises(ValueError, match="sample_rows must be a non-negative integer, got -1"):
        PrivacyGate("sample", -1)


def test_sample_text_keeps_head_and_tail_lines_and_clips_long_lines():
    text = "\n".join(f"line {n}" for n in range(100))
    cut, withheld = sample_text(text, 4)
    assert cut.split("\n") == ["line 0", "line 1", "[… 96 lines withheld …]", "line 98", "line 99"]
    assert withheld == sum(len(f"line {n}") + 1 for n in range(2, 98))
    clipped, withheld = sample_text("x" * 250, 4, 200)
    assert clipped == "x" * 200 + "… [50 characters withheld]" and withheld == 50
    assert sample_text("short", 4) == ("short", 0)


@pytest.mark.parametrize("policy", ["schema", "sample", "full"])
def test_secrets_are_redacted_from_prompts_results_step_context_and_system_prompt(policy):
    context = Context(
        system_prompt=f"project notes: key {KEY}",
        messages=[
            UserMessage(content=f"use {KEY} please"),
            UserMessage(content=[TextContent(text=f"block {KEY}")]),
            result(f"printed {KEY}", details=policy_details(policy)),
            result(f"file says {KEY}", name="read"),
        ],
        step_context=f"plan: {KEY}",
    )
    gated = gate(policy).context(context)
    dumped = gated.model_dump_json()
    assert KEY not in dumped and "[redacted:OPENAI_API_KEY]" in gated.messages[0].content
    assert KEY in context.model_dump_json()  # the turn's own history is not changed


def test_a_message_with_nothing_to_change_is_the_same_object_every_time():
    gated = gate()
    clean = result("nothing secret", details=policy_details("sample"))
    prompt = UserMessage(content="hello")
    answer = AssistantMessage(content=[TextContent(text=f"the model said {KEY}")])
    assert gated.message(clean) is clean and gated.message(prompt) is prompt
    assert gated.message(answer) is answer  # the model's own words: nothing in them it was not given
    secret = UserMessage(content=f"key {KEY}")
    assert gated.message(secret) is gated.message(secret)  # gated once, shared by every request


def test_a_result_recorded_under_a_laxer_policy_is_withheld_under_schema():
    recorded = result(
        "customer Alice Smith, 42", details=policy_details("full"), images=[ImageContent(data="aGk=", mime_type="image/png")]
    )
    gated = gate("schema").message(recorded)
    assert [block.text for block in gated.content] == [recorded_under("full", "schema")]
    assert "its values are not sent" in gated.content[0].text


def test_an_unmarked_value_tool_result_counts_as_full_and_other_tools_pass():
    old = result("Alice Smith")  # from a session written before the policy
    assert gate("schema").message(old).content[0].text == recorded_under("full", "schema")
    file_read = result("Alice Smith", name="read")
    assert gate("schema").message(file_read) is file_read  # files are outside the data policy


def test_a_result_recorded_under_the_same_or_a_stricter_policy_passes():
    for recorded in ("schema", "sample"):
        message = result("[printed: 3 lines]", details=policy_details(recorded))
        assert gate("sample").message(message) is message


def test_under_sample_a_full_result_is_cut_to_a_sample():
    long = "\n".join(f"row {n}" for n in range(200))
    gated = gate("sample", sample_rows=1).message(result(long, details=policy_details("full")))
    text = gated.content[0].text
    assert text.startswith("row 0\nrow 1\n[… 196 lines withheld …]") and gated.content[-1].text == recorded_under(
        "full", "sample"
    )


@pytest.mark.anyio
async def test_the_gated_stream_sends_the_gated_context_and_is_not_wrapped_twice():
    model = ScriptedModel([reply("ok")])
    the_gate = gate()
    stream = the_gate.stream(model)
    assert the_gate.stream(stream) is stream
    context = Context(messages=[UserMessage(content=f"key {KEY}")])
    answer = await stream(Model(id="m"), context, None, None).result()
    assert answer.text == "ok" and KEY not in model.requests[0].context.model_dump_json()


def test_local_copy_and_note_ride_in_the_details_and_a_malformed_one_is_ignored():
    local = [TextContent(text="Alice"), ImageContent(data="aGk=", mime_type="image/png")]
    details = withheld_details("schema", "5 characters of output", local, {"namespace": [1]})
    assert details["namespace"] == [1] and result_policy(details) == "schema"
    assert local_content(details) == local
    assert withheld_note(details) == "the model got a copy without 5 characters of output (data_policy 'schema')"
    for broken in (
        {"privacy": {"local": "text"}},
        {"privacy": {"local": [1]}},
        {"privacy": {"local": [{"type": "text"}]}},
        None,
        [1],
    ):
        assert local_content(broken) is None
    assert result_policy({"privacy": {"policy": "open"}}) is None and withheld_note({"privacy": {"policy": "schema"}}) == ""


def test_the_result_event_carries_the_users_copy_beside_the_models():
    local = [TextContent(text="Alice")]
    message = result("[printed: 1 line]", details=withheld_details("schema", "5 characters of output", local))
    event = ToolResultEvent.of(message)
    assert event.content[0].text == "[printed: 1 line]" and event.shown == local
    assert "5 characters of output" in event.withheld
    plain = ToolResultEvent.of(result("ok"))
    assert plain.local_content is None and plain.shown == plain.content and plain.withheld == ""
