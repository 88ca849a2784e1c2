import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.model import StreamOptions
from jupyter_agent.session import Redactor, SessionStore, looks_secret, scrub_options

SECRET = "sk-live-4f9a8b7c6d5e"


@pytest.mark.parametrize("name", ["OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET", "DB_PASSWORD", "my_password_file"])
def test_secret_looking_names(name):
    assert looks_secret(name)


@pytest.mark.parametrize("name", ["PATH", "HOME", "KEYBOARD", "MAX_TOKENS", "TOKENIZERS_PARALLELISM"])
def test_ordinary_names(name):
    assert not looks_secret(name)


def test_environment_secrets_never_reach_the_file(monkeypatch, store, session_file):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("HF_TOKEN", 'hf_"quoted"\\value')
    store.append(UserMessage(content=f"my key is {SECRET}"))
    call = ToolCall(id="c1", name="python", arguments={"code": f"os.environ['X'] = '{SECRET}'"})
    store.append(AssistantMessage(content=[TextContent(text=f"using {SECRET}"), call]))
    store.append(
        ToolResultMessage(tool_call_id="c1", tool_name="python", content=[TextContent(text='token hf_"quoted"\\value printed')])
    )
    store.record_usage({"input_tokens": 1}, model=SECRET, step=1)
    store.sync()
    data = session_file.read_text()
    assert SECRET not in data
    assert "hf_" not in data
    assert data.count("[redacted:OPENAI_API_KEY]") == 4
    assert "[redacted:HF_TOKEN]" in data
    store.close()
    resumed = SessionStore(session_file, read_only=True)
    assert resumed.history()[0].content == "my key is [redacted:OPENAI_API_KEY]"
    assert resumed.history()[2].text == "token [redacted:HF_TOKEN] printed"


def test_a_secret_set_during_the_session_is_redacted_from_then_on(monkeypatch, store, session_file):
    store.append(UserMessage(content="before"))
    monkeypatch.setenv("LATE_SECRET", SECRET)
    store.append(UserMessage(content=SECRET))
    store.sync()
    assert SECRET not in session_file.read_text()


def test_short_values_are_not_treated_as_secrets(monkeypatch, store, session_file):
    monkeypatch.setenv("FEATURE_TOKEN", "on")
    store.append(UserMessage(content="turn it on"))
    store.sync()
    assert "turn it on" in session_file.read_text()


def test_request_options_lose_the_api_key_and_headers(monkeypatch, store, session_file):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    options = StreamOptions(
        api_key=SECRET,
        temperature=0.1,
        api_base="http://127.0.0.1:1/v1",
        extra={"extra_headers": {"Authorization": "Bearer tok-abcdef123"}, "seed": 3},
    )
    store.record_request("openai/gpt", options)
    # The same key in a message afterwards (pasted by the user) is redacted too.
    store.append(UserMessage(content=f"key {SECRET} and token tok-abcdef123"))
    store.sync()
    data = session_file.read_text()
    assert SECRET not in data and "tok-abcdef123" not in data
    assert '"api_key":' not in data and '"extra_headers":' not in data and "Bearer" not in data
    request = store.records()[0]
    assert request.options == {"temperature": 0.1, "api_base": "http://127.0.0.1:1/v1", "extra": {"seed": 3}}
    assert "key [redacted:api_key] and token [redacted:Authorization]" in data


def test_scrub_options_handles_nested_lists_and_refuses_other_types():
    redactor = Redactor(environ={})
    clean = scrub_options({"tools": [{"name": "a", "token": "abcdefgh"}], "n": 1}, redactor)
    assert clean == {"tools": [{"name": "a"}], "n": 1}
    assert redactor.redact("x abcdefgh y") == "x [redacted:token] y"
    with pytest.raises(TypeError, match="request options must be a mapping or a pydantic model, not int"):
        scrub_options(3)


def test_longer_secret_is_replaced_whole():
    redactor = Redactor(environ={"A_KEY": "abcdef", "B_KEY": "abcdefghij"})
    assert redactor.redact("abcdefghij abcdef") == "[redacted:B_KEY] [redacted:A_KEY]"
