"""Recorded turns as replay reads them, and which one a cell replays."""

from jupyter_agent.features.kernel_state.recording import ReplayCursor, recorded_turns
from jupyter_agent.features.kernel_state.replay import find_recording
from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.notebook.agent_cells import cell_ref
from jupyter_agent.runtime.permissions import DENIED_DETAILS
from jupyter_agent.session import SessionStore


def record_turn(store, prompt, answer, code=None, denied=False, cell=None):
    store.record_request("openai/x", {"permissions": "ask"}, cell=cell)
    store.append(UserMessage(content=prompt))
    if code is not None:
        store.append(AssistantMessage(content=[ToolCall(id=f"c-{prompt}", name="python", arguments={"code": code})]))
        text = 'Tool call "python" was denied by the user. It did not run.' if denied else "(no output)"
        store.append(
            ToolResultMessage(
                tool_call_id=f"c-{prompt}",
                tool_name="python",
                content=[TextContent(text=text)],
                is_error=denied,
                details=dict(DENIED_DETAILS) if denied else None,
            )
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


def test_a_cell_replays_its_own_turn_when_two_cells_ask_the_same(tmp_path):
    store = SessionStore(tmp_path / "main.jsonl")
    record_turn(store, "Show it", "first", code="a = 1", cell=cell_ref("cell-1", 0, "Show it"))
    record_turn(store, "Show it", "second", code="b = 2", cell=cell_ref("cell-2", 1, "Show it"))
    turns = recorded_turns(store)
    # A new kernel runs the second cell alone, then the first: each gets the calls it recorded.
    cursor = ReplayCursor()
    assert cursor.choose(turns, "Show it", cell_ref("cell-2", 0, "Show it")).answer == "second"
    assert cursor.choose(turns, "Show it", cell_ref("cell-1", 1, "Show it")).answer == "first"
    # Without cellId (a headless run) a cell is its position with its prompt.
    assert ReplayCursor().choose(turns, "Show it", cell_ref(None, 1, "Show it")).answer == "second"
    # A cell that recorded nothing with this prompt (a new one) falls back to the prompt and the cursor.
    assert ReplayCursor().choose(turns, "Show it", cell_ref("cell-3", 2, "Show it")).answer == "first"
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


def test_an_edited_cell_is_told_which_of_its_turns_it_differs_from(tmp_path):
    session = Session(tmp_path / "notes.jsonl")
    record_turn(session.store, "load", "loaded", cell=cell_ref("cell-a", 0, "load"))
    record_turn(session.store, "plot", "plotted", cell=cell_ref("cell-b", 1, "plot"))
    turn, note = find_recording(session, "plot, in blue", "on", cell_ref("cell-b", 0, "plot, in blue"))
    assert turn is None and note.startswith("This cell's prompt differs from the recorded turn 2 ")
    session.store.close()
