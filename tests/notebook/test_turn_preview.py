"""%agent preview says what the next turn would send, part by part, and sends nothing."""

from jupyter_agent.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from jupyter_agent.model.scripted import ScriptedModel
from jupyter_agent.notebook.model_resolution import register_model, unregister_model


def test_the_preview_lists_each_part_with_its_tokens_and_sends_nothing(ip):
    model = ScriptedModel([])
    register_model("preview-model", model, model.model("preview-model"))
    try:
        ip.user_ns["frame"] = {"a": [1, 2, 3]}
        magics = ip.find_line_magic("agent").__self__
        store = magics.sessions.get("previewed").store
        store.record_request("preview-model", {})
        store.append(UserMessage(content="What data do I have?"))
        store.append(AssistantMessage(content=[TextContent(text="A dict named frame.")]))
        ip.run_line_magic("config", "AgentMagics.model = 'preview-model'")
        report = ip.run_line_magic("agent", "preview -s previewed Summarise @frame")
        for part in ("system prompt: ", "tools: ", "history: ", "notebook outline: ", "attachments: ", "prompt: "):
            assert part in report.text, part
        assert "history: " in report.text and "(2 messages, 1 turns)" in report.text
        assert "attachments: 0 tokens" not in report.text  # @frame is described
        assert "user: What data do I have?" in report.text and "assistant: A dict named frame." in report.text
        assert "total: " in report.text and "nothing was sent" in report.text
        assert model.requests == []
    finally:
        ip.run_line_magic("config", "AgentMagics.model = ''")
        unregister_model("preview-model")


def test_the_preview_counts_the_step_context_with_the_branchs_plan(ip):
    model = ScriptedModel([])
    register_model("preview-plan", model, model.model("preview-plan"))
    try:
        magics = ip.find_line_magic("agent").__self__
        store = magics.sessions.get("planned-preview").store
        ip.run_line_magic("config", "AgentMagics.model = 'preview-plan'")
        assert "step context: 0 tokens (none)" in ip.run_line_magic("agent", "preview -s planned-preview").text
        store.record_request("preview-plan", {})
        store.append(UserMessage(content="Make a plan."))
        plan = {"items": [{"id": "1", "text": "Load the data", "status": "in_progress"}]}
        store.append(ToolResultMessage(tool_call_id="p1", tool_name="plan", content=[TextContent(text="ok")], details=plan))
        report = ip.run_line_magic("agent", "preview -s planned-preview").text
        assert "step context: " in report and "(the task plan)" in report and "step context: 0 tokens" not in report
    finally:
        ip.run_line_magic("config", "AgentMagics.model = ''")
        unregister_model("preview-plan")


def test_the_preview_takes_the_turns_own_settings_and_says_a_bad_variable_as_a_turn_would(ip, monkeypatch):
    import pytest
    from IPython.core.error import UsageError

    model = ScriptedModel([])
    register_model("preview-model", model, model.model("preview-model"))
    try:
        ip.run_line_magic("config", "AgentMagics.model = 'preview-model'")
        assert "nothing was sent" in ip.run_line_magic("agent", "preview").text
        monkeypatch.setenv("JUPYTER_AGENT_STREAM_TIMEOUT", "soon")
        with pytest.raises(UsageError) as raised:
            ip.run_line_magic("agent", "preview")
        assert str(raised.value) == "JUPYTER_AGENT_STREAM_TIMEOUT must be a positive number of seconds, not 'soon'"
    finally:
        ip.run_line_magic("config", "AgentMagics.model = ''")
        unregister_model("preview-model")
