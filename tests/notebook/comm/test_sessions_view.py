import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.notebook.comm.sessions_view import (
    RESULT_CHARS,
    UnknownSessionError,
    read_history,
    session_file,
    session_summaries,
    transcript_markdown,
)


def test_summaries_list_messages_activity_model_cost_and_running(folder, session):
    [summary] = session_summaries(folder, running={"main"})
    assert (summary.name, summary.messages, summary.model, summary.cost_usd, summary.running) == (
        "main",
        10,
        "test-model",
        0.25,
        True,
    )
    assert summary.last_activity.endswith("+00:00")
    assert session_summaries(folder)[0].running is False


def test_no_folder_means_no_sessions(tmp_path):
    assert session_summaries(None) == []
    assert session_summaries(tmp_path / "missing.agent") == []


@pytest.mark.parametrize("name", ["../main", "..", ".hidden", "a/b", "a\\b", "", "nope"])
def test_only_existing_sessions_in_the_folder_can_be_opened(folder, session, name):
    with pytest.raises(UnknownSessionError, match="no session named"):
        session_file(folder, name)


def test_an_existing_session_opens(folder, session):
    assert session_file(folder, "main") == session
    assert len(read_history(session)) == 10


def test_the_transcript_shows_prompts_answers_code_results_and_errors():
    call = ToolCall(id="a", name="python", arguments={"code": "print('```')"})
    other = ToolCall(id="b", name="read", arguments={"path": "x.csv"})
    messages = [
        UserMessage(content="Load it"),
        AssistantMessage(content=[ThinkingContent(thinking="hmm"), TextContent(text="Loading."), call, other], model="m1"),
        ToolResultMessage(tool_call_id="a", tool_name="python", content=[TextContent(text="```")]),
        ToolResultMessage(tool_call_id="b", tool_name="read", is_error=True, content=[TextContent(text="missing")]),
        AssistantMessage(content=[TextContent(text="**Done**")], error_message="rate limited"),
    ]
    text = transcript_markdown(messages)
    assert text == (
        "### You\n\nLoad it\n\n"
        "### Agent · m1\n\n"
        "<details><summary>Thinking</summary>\n\n```\nhmm\n```\n\n</details>\n\n"
        "Loading.\n\n"
        "<details><summary>python · print(&#x27;```&#x27;) · done</summary>\n\n"
        "code:\n\n````python\nprint('```')\n````\n\noutput:\n\n````\n```\n````\n\n</details>\n\n"
        "<details><summary>read · x.csv · error</summary>\n\n"
        'arguments:\n\n```json\n{\n  "path": "x.csv"\n}\n```\n\nerror:\n\n```\nmissing\n```\n\n</details>\n\n'
        "### Agent\n\n**Done**\n\n**Error:** rate limited\n"
    )


def test_long_results_are_cut_and_unanswered_calls_say_so():
    call = ToolCall(id="a", name="python", arguments={"code": "x"})
    long = ToolResultMessage(tool_call_id="a", tool_name="python", content=[TextContent(text="y" * (RESULT_CHARS + 5))])
    assert "… (5 more characters not shown)" in transcript_markdown([AssistantMessage(content=[call]), long])
    assert "*(no result: the turn stopped before the tool finished)*" in transcript_markdown([AssistantMessage(content=[call])])


def test_an_empty_session_says_so():
    assert transcript_markdown([]) == "*This session has no messages yet.*\n"
