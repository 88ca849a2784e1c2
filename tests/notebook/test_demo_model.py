import pytest
from pydantic import BaseModel

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import TextContent, ToolResultMessage, UserMessage
from jupyter_agent.model import Context, ToolSpec
from jupyter_agent.notebook.demo_model import BANNER, demo_model, demo_stream_fn, respond, snippet
from jupyter_agent.runtime import PermissionPolicy, run_agent

pytestmark = pytest.mark.anyio


class NoArgs(BaseModel):
    pass


class Code(BaseModel):
    code: str


def fake_tools(log, variables="1 variables:\nsales: DataFrame, 12 × 3, 1.2 KB"):
    async def list_variables(args, signal):
        log.append(("variables", None))
        return variables

    async def python(args, signal):
        log.append(("python", args.code))
        return "count    12.0\nmean    101.5"

    return [
        AgentTool(name="variables", description="", parameters=NoArgs, execute=list_variables, read_only=True),
        AgentTool(name="python", description="", parameters=Code, execute=python),
    ]


async def test_demo_looks_runs_and_answers_labelled():
    log = []
    run = run_agent(demo_model(), "Summarise my data", tools=fake_tools(log), stream_fn=demo_stream_fn(delay=0))
    result = await run.result()
    assert result.reason == "completed" and result.steps == 3
    assert log == [("variables", None), ("python", "sales.describe()")]
    assert result.text.startswith(BANNER)
    assert "Summarise my data" in result.text and "mean    101.5" in result.text


async def test_a_denied_snippet_is_acknowledged():
    log = []

    async def deny(request):
        return "deny"

    run = run_agent(demo_model(), "hi", tools=fake_tools(log), stream_fn=demo_stream_fn(delay=0),
                    permissions=PermissionPolicy("ask", deny))
    result = await run.result()
    assert [name for name, _ in log] == ["variables"]
    assert "declined the `python` snippet" in result.text


async def test_a_steer_is_acknowledged_at_the_next_step():
    run = run_agent(demo_model(), "look around", tools=fake_tools([]), stream_fn=demo_stream_fn(delay=0))
    run.add_listener(lambda event: event.type == "tool_call" and run.steer("focus on the south region"))
    result = await run.result()
    assert "I received your message at the next step: *focus on the south region*" in result.text


def test_snippets_fit_the_request():
    assert "pd.read_csv('sales.csv')" in snippet("Load sales.csv please", "")[0]
    assert ".plot(" in snippet("plot it", "df: DataFrame, 3 × 2")[0]
    assert "np.sin" in snippet("draw a chart", "no variables")[0]
    assert "platform" in snippet("hello", "")[0]


def test_without_tools_it_answers_directly():
    context = Context(messages=[UserMessage(content="hi")], tools=[])
    response = respond(context)
    assert BANNER in response.content[0].text


def test_after_an_interrupted_turn_a_new_prompt_starts_over():
    context = Context(
        messages=[UserMessage(content="first"),
                  ToolResultMessage(tool_call_id="c1", tool_name="python", content=[TextContent(text="Run cancelled")], is_error=True),
                  UserMessage(content="second")],
        tools=[ToolSpec(name="variables", description=""), ToolSpec(name="python", description="")],
    )
    assert respond(context).content[-1].name == "variables"
