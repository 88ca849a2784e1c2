"""run_agent refuses bad caller input with exact messages, before any task starts."""

import inspect

import pytest
from pydantic import ValidationError

from jupyter_agent import AgentTool, Model, UserMessage
from jupyter_agent.runtime import run_agent
from jupyter_agent.runtime.options import RunOptions
from jupyter_agent.testing.scripted import reply

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("max_steps", 0, "max_steps must be a positive integer"),
        ("max_steps", -1, "max_steps must be a positive integer"),
        ("max_steps", 2.5, "max_steps must be a positive integer"),
        ("max_steps", True, "max_steps must be a positive integer"),
        ("max_output_tokens", 0, "max_output_tokens must be a positive integer"),
        ("max_context_tokens", -100, "max_context_tokens must be a positive integer"),
        ("compact_at_tokens", 0, "compact_at_tokens must be a positive integer"),
        ("compact_keep_recent", 0, "compact_keep_recent must be a positive integer"),
        ("max_spend_usd", -0.5, "max_spend_usd must be a positive number"),
        ("max_spend_usd", 0, "max_spend_usd must be a positive number"),
        ("max_spend_usd", float("inf"), "max_spend_usd must be a positive number"),
        ("compaction", "summarize", 'Unknown compaction mode: \'summarize\' (expected "model", "truncate" or "off")'),
        ("permissions", "yolo", "permissions must be a PermissionPolicy or None"),
        ("should_stop", "yes", "should_stop must be callable or None"),
        ("rates", 3.0, "rates must be a Rates, a mapping or None"),
        ("rates", {"input": -1, "output": 1}, "Rates must be non-negative numbers"),
        ("rates", {"inputs": 1, "output": 1}, "rates accepts input, output, cache_read and cache_write"),
        ("system", 3, "system must be a string or None"),
        ("signal", "stop", "signal must be an AbortSignal or None"),
        ("stream_options", {"max_tokens": 5}, "stream_options must be a StreamOptions or None"),
        ("prepare_step", 1, "prepare_step must be callable or None"),
        ("max_context_tokens", "100", "max_context_tokens must be a positive integer"),
    ],
)
async def test_bad_options_raise_exact_messages(scripted, option, value, message):
    with pytest.raises(ValueError) as caught:
        run_agent(scripted.model(), "go", stream_fn=scripted, **{option: value})
    assert str(caught.value) == message
    assert scripted.requests == []


@pytest.mark.parametrize("prompt", ["", "   ", []])
async def test_a_blank_prompt_is_refused(scripted, prompt):
    with pytest.raises(ValueError, match="^Prompt is required$"):
        run_agent(scripted.model(), prompt, stream_fn=scripted)


async def test_a_bad_option_is_reported_before_a_bad_prompt(scripted):
    with pytest.raises(ValueError, match="^model must be a Model or a model name$"):
        run_agent(42, "", stream_fn=scripted)
    with pytest.raises(ValueError, match="^max_steps must be a positive integer$"):
        run_agent(scripted.model(), "", stream_fn=scripted, max_steps=0)


async def test_a_bad_model_and_duplicate_tools_are_refused(scripted, kit):
    with pytest.raises(ValueError, match="^model must be a Model or a model name$"):
        run_agent(42, "go", stream_fn=scripted)
    with pytest.raises(ValueError, match="^Duplicate tool name: echo$"):
        run_agent(scripted.model(), "go", stream_fn=scripted, tools=[kit.make_tool(), kit.make_tool()])
    with pytest.raises(ValueError, match="does not support image"):
        run_agent(scripted.model(), [{"type": "image", "data": "aa", "mime_type": "image/png"}], stream_fn=scripted)


def test_defaults():
    model = Model(id="m", context_window=100_000)
    options = RunOptions.validated({"model": model, "stream_fn": lambda *a: None})
    assert (options.max_output_tokens, options.compact_keep_recent) == (16_384, 8)
    assert (options.window_tokens, options.compaction_threshold) == (100_000, 80_000)
    assert options.max_steps is None and options.rates is None and options.messages == []
    windowed = RunOptions.validated(
        {
            "model": model,
            "stream_fn": lambda *a: None,
            "max_output_tokens": 1000,
            "max_context_tokens": 50_000,
            "compaction": "off",
            "compact_keep_recent": 2,
        }
    )
    assert (windowed.window_tokens, windowed.compaction_threshold) == (50_000, 40_000)


def test_run_agent_declares_the_same_options_and_defaults_as_run_options():
    parameters = dict(inspect.signature(run_agent).parameters)
    prompt = parameters.pop("prompt")  # the run's input, not an option: checked once the model is known
    assert list(parameters) == list(RunOptions.model_fields)
    assert list(inspect.signature(run_agent).parameters).index("prompt") == 1 and prompt.default is inspect.Parameter.empty
    for name, field in RunOptions.model_fields.items():
        if field.is_required():
            assert parameters[name].default is inspect.Parameter.empty, name
        else:
            assert parameters[name].default == field.default, name


def test_options_are_frozen():
    options = RunOptions.validated({"model": Model(id="m"), "stream_fn": lambda *a: None})
    with pytest.raises(ValidationError):
        options.max_steps = 3


async def test_prior_messages_are_shared_not_copied_and_may_be_json(scripted):
    prior = [UserMessage(content="earlier")]
    given = [prior[0], prior[0].model_dump()]
    scripted.queue(reply("ok"))
    result = await run_agent(scripted.model(), "now", stream_fn=scripted, messages=given).result()
    # Messages are values nothing changes: the run shares them and appends to its own list.
    assert result.messages[0] is prior[0] and prior[0].content == "earlier"
    assert result.messages[1].content == "earlier" and len(given) == 2 and len(result.messages) == 4
    with pytest.raises(ValueError, match="messages must be Message objects"):
        run_agent(scripted.model(), "now", stream_fn=scripted, messages=["text"])


async def test_tools_must_be_agent_tools(scripted):
    with pytest.raises(ValueError, match="tools must be AgentTool instances, got str"):
        run_agent(scripted.model(), "go", stream_fn=scripted, tools=["bash"])
    assert AgentTool  # the type the message names
