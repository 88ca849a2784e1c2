"""Recorded turns as replay reads them, and which one a cell replays."""

from jupyter_agent.features.kernel_state.recording import ReplayCursor, recorded_turns
from jupyter_agent.features.kernel_state.replay import find_recording
from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.session import SessionStore


def record_turn(store, prompt, answer, code=None, denied=False):
    store.record_request("openai/x", {"permissions": "ask"})
    store.append(UserMessage(content=prompt))
    if code is not None:
        store.append(AssistantMessage(content=[ToolCall(id=f"c-{prompt}", name="python", arguments={"code": code})]))
        text = 'Tool call "python" was denied by the user. It did not run.' if denied else "(no output)"
        store.append(
            ToolResultMessage(tool_call_id=f"c-{prompt}", tool_name="python", content=[TextContent(text=text)], is_error=denied)
        )
    store.append(AssistantMessage(content=[TextContent(text=answer)]))


def test_turns_split_at_their_requests_with_calls_and_answers(tmp_path):
    store = SessionStore(tmp_path / "main.jsonl")
    record_turn(store, "first", "one", code="a = 1")
    record_turn(store, "second", "two", code="b = 2", denied=True)
    turns = recorded_turns(store)
    assert [(turn.index, turn.prompt, turn.answer, turn.permissions) for turn in turns] == [
        (0, "first", "one", "ask"),
        (1, "second", "two", "ask"),
    ]
    assert [(call.arguments, call.denied) for turn in turns for call in turn.calls] == [
        ({"code": "a = 1"}, False),
        ({"code": "b = 2"}, True),
    ]
    store.close()


def test_the_cursor_replays_in_order_then_falls_back_to_the_latest_match(tmp_path):
    store = SessionStore(tmp_path / "main.jsonl")
    for prompt in ("load", "plot", "load"):
        record_turn(store, prompt, f"answer to {prompt}")
    turns = recorded_turns(store)
    cursor = ReplayCursor()
    assert cursor.choose(turns, "load").index == 0
    assert cursor.choose(turns, "  plot\n").index == 1  # whitespace aside
    assert cursor.choose(turns, "load").index == 2
    assert cursor.choose(turns, "plot").index == 1  # past the end: the latest turn with the prompt
    assert cursor.choose(turns, "never") is None
    store.close()


class Session:
    def __init__(self, path):
        self.path = path
        self.name = "main"
        self.store = SessionStore(path)


def test_find_recording_says_why_a_cell_runs_live(tmp_path):
    session = Session(tmp_path / "notes.jsonl")
    assert find_recording(session, "hello", "auto") == (None, "")  # nothing recorded: a new cell, live
    assert find_recording(session, "hello", "on") == (
        None,
        "No recorded turn of session 'main' has this prompt: running it live.",
    )
    record_turn(session.store, "hello", "hi")
    turn, note = find_recording(session, "hello again", "auto")
    assert turn is None and note == "This cell's prompt differs from the recorded turn 1 (edited since it ran?): running it live."
    assert find_recording(session, "hello", "auto")[0].answer == "hi"
    session.store.close()
