import pytest
from pydantic import BaseModel

from jupyter_agent.loop import AgentTool
from jupyter_agent.messages import ImageContent, TextContent, ToolResultMessage, UserMessage
from jupyter_agent.model import Context, ToolSpec
from jupyter_agent.notebook.demo_model import BANNER, demo_model, demo_stream_fn, respond, snippet
from jupyter_agent.runtime import PermissionPolicy, run_agent

pytestmark = pytest.mark.anyio


class NoArgs(BaseModel):
    pass


class Code(BaseModel):
    code: str


def fake_tools(log, variables="1 variables:\nsales: DataFrame, 12 × 3, 1.2 KB", output="count    12.0\nmean    101.5"):
    async def list_variables(args, signal):
        log.append(("variables", None))
        return variables

    async def python(args, signal):
        log.append(("python", args.code))
        return output

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

    run = run_agent(
        demo_model(), "hi", tools=fake_tools(log), stream_fn=demo_stream_fn(delay=0), permissions=PermissionPolicy("ask", deny)
    )
    result = await run.result()
    assert [name for name, _ in log] == ["variables"]
    assert "declined the `python` snippet" in result.text


async def test_a_headless_denial_is_named_as_such_not_as_your_decline():
    from jupyter_agent.notebook.panel.static_render import StaticRenderer

    log = []
    renderer = StaticRenderer(display=lambda bundle: None)
    run = run_agent(
        demo_model(),
        "hi",
        tools=fake_tools(log),
        stream_fn=demo_stream_fn(delay=0),
        permissions=PermissionPolicy("ask", renderer.ask),
    )
    result = await run.result()
    assert [name for name, _ in log] == ["variables"]
    assert "declined" not in result.text
    assert "The `python` snippet was denied (headless run: nobody could approve it), so I did not run anything." in result.text


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
        messages=[
            UserMessage(content="first"),
            ToolResultMessage(tool_call_id="c1", tool_name="python", content=[TextContent(text="Run cancelled")], is_error=True),
            UserMessage(content="second"),
        ],
        tools=[ToolSpec(name="variables", description=""), ToolSpec(name="python", description="")],
    )
    assert respond(context).content[-1].name == "variables"


async def test_in_readonly_mode_it_says_what_refused_the_snippet_not_that_you_declined():
    log = []
    run = run_agent(
        demo_model(), "hi", tools=fake_tools(log), stream_fn=demo_stream_fn(delay=0), permissions=PermissionPolicy("readonly")
    )
    result = await run.result()
    assert [name for name, _ in log] == ["variables"]
    assert "declined" not in result.text
    assert 'The `python` snippet was not run: Tool call "python" was denied (read-only mode).' in result.text


async def test_a_figure_is_reported_as_drawn_not_as_an_omitted_image():
    figure = [TextContent(text="<Figure size 700x300>"), ImageContent(data="iVBORw0KGgo=", mime_type="image/png")]
    run = run_agent(demo_model(), "plot it", tools=fake_tools([], output=figure), stream_fn=demo_stream_fn(delay=0))
    result = await run.result()
    assert "I ran a snippet with the `python` tool and drew a figure (shown with the tool call)" in result.text
    assert "omitted" not in result.text


QUESTION = (
    "Load sales.csv into a DataFrame called df and tell me which region's revenue dropped in the last "
    "quarter. Plot the monthly revenue by region."
)


def test_the_data_exploration_question_gets_a_quarterly_comparison_and_a_plot():
    code, why = snippet(QUESTION, "")
    assert "df = pd.read_csv('sales.csv')" in code and "index=['region']" in code and "values='revenue'" in code
    assert "columns='region', values='revenue'" in code and "plt.show()" in code
    assert why == (
        "I'll load `sales.csv` into `df` and compare the last quarter with the one before, by region, "
        "then plot the monthly revenue by region."
    )
    follow_up = snippet("Compare the last quarter with the previous one for each region and product.", "df: DataFrame, 144 × 6")[
        0
    ]
    assert "read_csv" not in follow_up and "index=['region', 'product']" in follow_up and "plt" not in follow_up


async def test_the_answer_names_the_group_that_dropped_most():
    output = "        2024Q3   2024Q4  change %\nEast   18163.5  11515.0     -36.6\nlargest drop 2024Q3 -> 2024Q4: East (-36.6 %)"
    run = run_agent(demo_model(), QUESTION, tools=fake_tools([], output=output), stream_fn=demo_stream_fn(delay=0))
    result = await run.result()
    assert "**East** dropped the most from 2024Q3 to 2024Q4: -36.6 %." in result.text


@pytest.mark.parametrize(
    "prompt, variables, name",
    [
        ("Now plot both regions over the year.", "sales: DataFrame, 12 rows × 3 columns", "sales"),
        ("Load sales.csv and tell me which region dropped last quarter. Plot it.", "", "df"),
    ],
)
def test_the_demos_plots_put_the_months_on_the_x_axis(prompt, variables, name, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    months = [str(month) for month in pd.period_range("2024-01", periods=12, freq="M")]
    # The quick-start's frame (a column per region) and data-exploration's sales.csv (a row per region).
    wide = pd.DataFrame({"month": months, "north": range(12), "south": range(12)})
    long = pd.DataFrame({"month": months * 2, "region": ["north"] * 12 + ["south"] * 12, "revenue": range(24)})
    long.to_csv(tmp_path / "sales.csv", index=False)
    monkeypatch.chdir(tmp_path)
    code, _ = snippet(prompt, variables)
    namespace = {name: wide if name == "sales" else None}
    monkeypatch.setattr(plt, "show", lambda: None)
    try:
        exec(code, namespace)
        axes = plt.gca()
        axes.figure.canvas.draw()
        assert [label.get_text() for label in axes.get_xticklabels()] == months
    finally:
        plt.close("all")
