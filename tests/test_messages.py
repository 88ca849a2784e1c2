import json

import pytest
from pydantic import ValidationError

from jupyter_agent.messages import (
    AssistantMessage,
    Cost,
    ImageContent,
    PrefixCache,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    copy_json,
    fast_copy_assistant,
    message_adapter,
    message_from_json,
)

SAMPLES = [
    UserMessage(content="hello"),
    UserMessage(content=[TextContent(text="look", text_signature="sig"), ImageContent(data="aGk=", mime_type="image/png")]),
    AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm", thinking_signature="s1"),
            ThinkingContent(thinking="", thinking_signature="opaque", redacted=True),
            TextContent(text="answer"),
            ToolCall(id="c1", name="read", arguments={"path": "a.py", "nested": {"list": [1, 2.5, None]}}),
        ],
        api="litellm",
        provider="openai",
        model="gpt-x",
        usage=Usage(
            input=10, output=5, cache_read=2, cache_write=1, total_tokens=18, cost=Cost(input=0.1, output=0.2, total=0.3)
        ),
        stop_reason="tool_use",
    ),
    AssistantMessage(stop_reason="error", error_message="boom"),
    ToolResultMessage(
        tool_call_id="c1",
        tool_name="read",
        content=[TextContent(text="x"), ImageContent(data="aGk=", mime_type="image/png")],
        details={"lines": 3},
        is_error=True,
    ),
]


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: m.role)
def test_every_message_round_trips_through_json_exactly(message):
    text = message_adapter().dump_json(message)
    restored = message_from_json(text)
    assert restored == message
    assert type(restored) is type(message)
    assert message_from_json(json.loads(text)) == message


def test_discriminators_are_snake_case():
    dumped = SAMPLES[2].model_dump()
    assert dumped["role"] == "assistant"
    assert [block["type"] for block in dumped["content"]] == ["thinking", "thinking", "text", "tool_call"]
    assert SAMPLES[4].model_dump()["role"] == "tool_result"


def test_timestamps_are_integer_milliseconds_defaulting_to_now():
    import time

    before = int(time.time() * 1000)
    message = UserMessage(content="x")
    assert isinstance(message.timestamp, int)
    assert before <= message.timestamp <= int(time.time() * 1000)


def test_unknown_fields_and_roles_are_rejected():
    with pytest.raises(ValidationError):
        message_from_json({"role": "system", "content": "x"})
    with pytest.raises(ValidationError):
        TextContent(text="x", bogus=1)


def test_fast_copy_is_deep():
    original = SAMPLES[2]
    copy = fast_copy_assistant(original)
    assert copy == original
    copy.content[3].arguments["nested"]["list"].append(3)
    copy.content[2].text = "changed"
    copy.usage.cost.total = 99
    assert original.content[3].arguments["nested"]["list"] == [1, 2.5, None]
    assert original.content[2].text == "answer"
    assert original.usage.cost.total == 0.3


def test_copy_json_copies_nested_containers():
    value = {"a": [{"b": 1}]}
    copied = copy_json(value)
    copied["a"][0]["b"] = 2
    assert value == {"a": [{"b": 1}]}


def test_assistant_helpers():
    assert SAMPLES[2].text == "answer"
    assert [call.id for call in SAMPLES[2].tool_calls] == ["c1"]


def test_text_with_undecodable_bytes_becomes_valid_utf8():
    from jupyter_agent.messages import TextContent, valid_utf8

    name = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
    assert TextContent(text=f"found {name}").text == "found caf\\xe9.txt"
    assert valid_utf8("lone \ud800 high") == "lone \\ud800 high"
    assert valid_utf8("déjà vu") == "déjà vu"


def test_per_message_computes_once_per_live_message_and_afresh_when_its_content_grew():
    import gc

    from jupyter_agent.messages import _DERIVED, AssistantMessage, PerMessage, TextContent, UserMessage

    calls = []
    memo = PerMessage(lambda message: calls.append(type(message).__name__) or len(calls))
    first, twin = UserMessage(content="same"), UserMessage(content="same")
    assert (memo(first), memo(first), memo(twin)) == (1, 1, 2)  # by identity, not by value
    partial = AssistantMessage(content=[TextContent(text="a")])
    assert memo(partial) == 3
    partial.content.append(TextContent(text="b"))  # still streaming: not the value it was
    assert memo(partial) == 4 and memo(partial) == 4
    kept = {id(first), id(twin), id(partial)}
    del first, twin, partial
    gc.collect()
    assert not kept & set(_DERIVED)  # nothing kept for messages that are gone


def test_prefix_cache_resumes_a_list_that_grew_and_starts_over_for_another():
    from jupyter_agent.messages import PrefixCache

    cache: PrefixCache[str] = PrefixCache(size=2)
    history = [UserMessage(content=str(number)) for number in range(5)]
    assert cache.resume("model", history) == (0, None)
    cache.keep("model", history, "state after 5")
    history.append(UserMessage(content="5"))  # the caller's list grew: the kept copy did not
    assert cache.resume("model", history) == (5, "state after 5")
    assert cache.resume("model", history) == (0, None)  # the state is the caller's until kept again
    cache.keep("model", history, "state after 6")
    assert cache.resume("other model", history) == (0, None)
    assert cache.resume("model", history[:3]) == (0, None)  # shorter: not a continuation
    cache.keep("model", history, "state after 6")
    changed = [*history[:2], UserMessage(content="changed"), *history[3:]]
    assert cache.resume("model", changed) == (0, None)
    cache.keep("model", history, "state after 6")
    # A session file's copies of the last messages are equal values: the pass continues past them.
    copies = [*history[:4], *(message.model_copy(deep=True) for message in history[4:]), UserMessage(content="6")]
    assert cache.resume("model", copies) == (6, "state after 6")


def test_prefix_cache_compares_few_copies_by_value_and_forgets_the_oldest_lists():
    from jupyter_agent.messages import PrefixCache

    cache: PrefixCache[int] = PrefixCache(size=2)
    history = [UserMessage(content=str(number)) for number in range(100)]
    cache.keep(None, history, 1)
    # Equal copies of most of a history are another history: comparing them all costs more than a pass.
    assert cache.resume(None, [history[0], *(message.model_copy() for message in history[1:])]) == (0, None)
    lists = [[UserMessage(content=f"{name}")] for name in "abc"]
    for number, messages in enumerate(lists):
        cache.keep(None, messages, number)
    assert cache.resume(None, lists[0]) == (0, None)  # pushed out by the two newer ones
    assert cache.resume(None, lists[2]) == (1, 2)
    # A value that cannot be compared (an array in details) means "not the same", never an error.
    odd = ToolResultMessage(tool_call_id="c", tool_name="t", details=Incomparable())
    cache.keep(None, [history[0], odd], 5)
    assert cache.resume(None, [history[0], odd.model_copy(update={"details": Incomparable()})]) == (0, None)


class Incomparable:
    def __eq__(self, other):
        raise ValueError("the truth value of an array is ambiguous")


def test_per_message_all_resumes_the_list_it_extends_and_looks_at_its_last_message_again(monkeypatch):
    import jupyter_agent.messages as messages_module
    from jupyter_agent.messages import AssistantMessage, PerMessage, TextContent, UserMessage

    class CountedTable(dict):
        reads = 0

        def get(self, key, default=None):
            CountedTable.reads += 1
            return super().get(key, default)

    monkeypatch.setattr(messages_module, "_DERIVED", CountedTable())
    looked_at: list[object] = []
    memo = PerMessage(lambda message: looked_at.append(message) or len(message.content))
    partial = AssistantMessage(content=[TextContent(text="a")])
    history = [UserMessage(content=[TextContent(text=f"m{i}")]) for i in range(5)] + [partial]
    assert memo.all(history) == [1] * 6 and len(looked_at) == 6
    looked_at.clear()
    partial.content.append(TextContent(text="b"))  # the last message grew: its value is made again
    longer = [*history, UserMessage(content=[TextContent(text="next")])]
    CountedTable.reads = 0
    assert memo.all(longer) == [1, 1, 1, 1, 1, 2, 1]
    assert CountedTable.reads == 2  # the last message of the list it extends, and the new one
    assert looked_at == [partial, longer[-1]]  # nothing before the last message is walked again
    looked_at.clear()
    returned = memo.all(longer)
    returned.append("changed by a caller")
    assert memo.all(longer) == [1, 1, 1, 1, 1, 2, 1] and looked_at == []  # the kept list is not the caller's
    other = [UserMessage(content=[TextContent(text="another history")])]
    assert memo.all(other) == [1] and looked_at == [other[0]]


def test_per_message_all_makes_a_long_lists_new_values_with_the_collector_paused(monkeypatch):
    import gc

    from jupyter_agent.long_lived import MANY_NEW_VALUES
    from jupyter_agent.messages import PerMessage, UserMessage

    monkeypatch.setattr(gc, "freeze", lambda: None)  # the test's objects stay collectable
    collecting: list[bool] = []
    memo = PerMessage(lambda message: collecting.append(gc.isenabled()) or 0)
    history = [UserMessage(content=f"message {i}") for i in range(MANY_NEW_VALUES)]
    assert gc.isenabled()
    assert memo.all(history) == [0] * MANY_NEW_VALUES
    assert len(collecting) == MANY_NEW_VALUES and not any(collecting)  # a session's first request
    assert gc.isenabled()
    collecting.clear()
    memo.all([*history, UserMessage(content="one more")])
    assert collecting == [True]  # the next step: one new value, the collector left alone
    collecting.clear()
    memo.all([UserMessage(content=f"short {i}") for i in range(3)])
    assert collecting == [True, True, True]


def test_a_prefix_cache_resumes_from_the_longest_list_a_history_starts_with():
    cache: PrefixCache[str] = PrefixCache()
    history = [UserMessage(content=f"m{index}") for index in range(6)]
    cache.keep("k", history, "whole")
    cache.keep("k", history[:4], "before the last turn")
    assert cache.resume("k", history[:4] + [UserMessage(content="run again")]) == (4, "before the last turn")
    assert cache.resume("k", history + [UserMessage(content="new cell")]) == (6, "whole")
    assert cache.resume("k", history) == (0, None)  # each state is handed out once
    for length in (1, 2, 3, 4):  # the same history's lists: the newest three are kept
        cache.keep("k", history[:length], length)
    assert cache.resume("k", history[:1]) == (0, None)
    assert cache.resume("k", history) == (4, 4)
    assert cache.resume("k", history[:3]) == (3, 3)
    assert cache.resume("other key", history) == (0, None)
