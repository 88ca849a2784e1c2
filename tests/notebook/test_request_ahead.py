"""The next turn's request passes, made ahead over a session read ahead: the turn makes only its own."""

import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.model import transform_for_request
from jupyter_agent.model.scripted import ScriptedModel
from jupyter_agent.notebook.model_resolution import register_model, unregister_model
from jupyter_agent.notebook.request_ahead import next_turn_settings, prepare_request
from jupyter_agent.notebook.toolset import turn_privacy_gate
from jupyter_agent.runtime.privacy import PrivacyGate

MODEL = "ahead-model"


def history() -> list:
    call = ToolCall(id="call_1", name="python", arguments={"code": "df.describe()"})
    rows = "\n".join(f"row {index}: {index * 2}" for index in range(40))
    return [
        UserMessage(content="Describe df."),
        AssistantMessage(content=[TextContent(text="Let me look."), call], model=MODEL),
        # Recorded before any policy: a kernel value, cut to a sample under "sample".
        ToolResultMessage(tool_call_id="call_1", tool_name="python", content=[TextContent(text=rows)]),
        AssistantMessage(content=[TextContent(text="It counts 40 rows.")], model=MODEL),
    ]


@pytest.fixture
def magics(ip):
    model = ScriptedModel([])
    register_model(MODEL, model, model.model(MODEL))
    ip.run_line_magic("config", f"AgentMagics.model = {MODEL!r}")
    try:
        yield ip.find_line_magic("agent").__self__
    finally:
        ip.run_line_magic("config", "AgentMagics.model = ''")
        ip.run_line_magic("config", "AgentMagics.data_policy = 'sample'")
        unregister_model(MODEL)


@pytest.fixture
def gated(monkeypatch):
    """The messages the privacy gate makes a copy for (each once per gate setting)."""
    made = []
    real = PrivacyGate._gate

    def counting(self, message, secrets):
        made.append(message)
        return real(self, message, secrets)

    monkeypatch.setattr(PrivacyGate, "_gate", counting)
    return made


def turn_request(magics, messages):
    """What the turn's first request passes make of ``messages``: replayed, then gated."""
    settings, choice = next_turn_settings(magics)
    replayed, _ = transform_for_request(messages, ScriptedModel([]).model(choice.name))
    return turn_privacy_gate(settings).messages(replayed)


def test_the_turn_gates_only_its_prompt_after_the_history_was_prepared(magics, gated):
    messages = history()
    prepare_request(magics)([messages])
    ahead = list(gated)
    assert len(ahead) == len(messages)
    prompt = UserMessage(content="And the trend?")
    sent = turn_request(magics, [*messages, prompt])
    assert gated[len(ahead) :] == [prompt]
    assert "[Withheld: this result was recorded under data_policy 'full'" in sent[2].content[-1].text


def test_a_stricter_policy_set_after_the_preparation_gates_the_history_again(magics, gated, ip):
    messages = history()
    prepare_request(magics)([messages])
    ip.run_line_magic("config", "AgentMagics.data_policy = 'schema'")
    gated.clear()
    sent = turn_request(magics, messages)
    assert len(gated) == len(messages)  # the guess's gating is not reused under another policy
    assert "row 1" not in sent[2].content[0].text and "'schema'" in sent[2].content[0].text


def test_nothing_is_prepared_for_the_offline_demo_or_an_empty_history(magics, gated, ip):
    prepare_request(magics)([[]])
    ip.run_line_magic("config", "AgentMagics.model = 'demo'")
    prepare_request(magics)([history()])
    assert gated == []
