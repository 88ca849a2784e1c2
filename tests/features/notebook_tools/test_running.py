"""notebook_run's guards: the time limit, slow cells that ask first, and the stale cells it re-runs."""

from contextlib import contextmanager

import pytest

from jupyter_agent.features.notebook_tools import NotebookContext, RunControl, notebook_tools, tracking_stale_cells
from jupyter_agent.loop import AbortController, AgentTool, ToolOutput
from jupyter_agent.loop.execute_tool import normalize_output
from jupyter_agent.messages import TextContent
from jupyter_agent.runtime.limits import HookRunner
from jupyter_agent.runtime.permissions import ApprovalGate, PermissionPolicy
from jupyter_agent.tools.errors import ToolError

pytestmark = pytest.mark.anyio


def code(cell_id, source, count=1, outputs=()):
    return {
        "id": cell_id,
        "cell_type": "code",
        "source": source,
        "execution_count": count,
        "metadata": {},
        "outputs": list(outputs),
    }


CELLS = [
    code("load", "df = load()", 1),
    code("mean", "m = df.x.mean()", 2),
    code("show", "print(m)", 3),
    code("other", "y = 2", 4),
    code("plot", "df.plot()", 5),
]


class Frontend:
    """The live notebook: runs a cell by answering with it, records the order."""

    connected = True

    def __init__(self, cells, fail=()):
        self.cells, self.fail, self.ran = cells, set(fail), []

    async def read_cells(self):
        return [dict(cell) for cell in self.cells]

    async def run_cell(self, cell_id, timeout):
        self.ran.append((cell_id, timeout))
        index = next(i for i, cell in enumerate(self.cells) if cell["id"] == cell_id)
        outputs = (
            [{"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}] if cell_id in self.fail else []
        )
        return {"index": index, "cell": {**self.cells[index], "outputs": outputs}}


def context(frontend, **control):
    return NotebookContext(frontend=frontend, notebook_path=lambda: None, user_ns={}, run=RunControl(**control))


def run_tool(ctx):
    return next(tool for tool in notebook_tools(ctx) if tool.name == "notebook_run")


async def call(tool, **args):
    content, details = normalize_output(await tool.execute(tool.parameters(**args), AbortController().signal))
    return "\n".join(block.text for block in content if block.type == "text")


class Limit:
    """A cell limit that reports the limit passed (the kernel's ■ interrupted the cell)."""

    def __init__(self, expire=True):
        self.expire, self.calls = expire, []

    @contextmanager
    def __call__(self, cell_id, seconds):
        self.calls.append((cell_id, seconds))
        state = type("State", (), {"expired": False})()
        yield state
        state.expired = self.expire


async def test_a_cell_past_its_limit_is_interrupted_into_a_timed_out_error():
    frontend, limit = Frontend(CELLS), Limit()
    tool = run_tool(context(frontend, timeout=2.0, limit=limit))
    with pytest.raises(ToolError) as raised:
        await call(tool, cell_id="mean", timeout=30)  # asks for more than the limit: gets the limit
    assert str(raised.value).startswith("Timed out: cell mean was still running at its 2 s limit and was interrupted")
    assert "up to 2 s (AgentMagics.python_timeout)" in str(raised.value)
    assert limit.calls == [("mean", 2.0)] and frontend.ran == [("mean", 12.0)]  # the wait leaves room for the end
    assert tool.limit_for({"cell_id": "mean", "timeout": 1}) == 1 and tool.limit_for({"cell_id": "mean"}) == 2.0


async def test_a_cell_within_its_limit_finishes_and_without_a_limit_the_wait_alone_is_bounded():
    frontend = Frontend(CELLS)
    assert (await call(run_tool(context(frontend, timeout=5.0, limit=Limit(expire=False))), cell_id="load")).startswith(
        "Cell load finished."
    )
    unlimited = Frontend(CELLS)
    await call(run_tool(context(unlimited)), cell_id="load")
    assert unlimited.ran == [("load", 600.0)] and run_tool(context(unlimited)).limit_for({"cell_id": "load"}) is None


async def gate_label(tool, trusted=True, **args):
    """Runs the call through the approval gate with the tool allowed for the session; the prompt's label or None."""
    policy = PermissionPolicy(
        "ask", prompt=lambda request: asked.append(request.label) or shown.append(request.preview) or "once"
    )
    asked, shown = [], []
    gate_label.preview = None
    if trusted:
        policy.trusted_tools.add(tool.name)
    (gated,) = ApprovalGate(policy, lambda event: None, HookRunner(AbortController().signal), lambda error: None).wrap([tool])
    gate_label.output = await gated.execute(gated.parameters(**args), AbortController().signal)
    gate_label.preview = shown[0] if shown else None
    return asked[0] if asked else None


async def test_a_slow_cell_asks_even_when_notebook_run_is_allowed_for_the_session_and_says_how_long_it_took():
    took = {"mean": 3.2, "load": 0.4}
    tool = run_tool(context(Frontend(CELLS), cell_seconds=took.get, ask_slow_cells=1.0))
    label = await gate_label(tool, cell_id="mean")
    assert label is not None and "cell mean took 3.2 s last time (asks above AgentMagics.ask_slow_cells = 1 s)" in label
    assert await gate_label(tool, cell_id="load") is None  # fast: the session's allowance holds
    assert await gate_label(tool, cell_id="other") is None  # never ran in this kernel: nothing to go by
    never = run_tool(context(Frontend(CELLS), cell_seconds=took.get, ask_slow_cells=None))
    assert await gate_label(never, cell_id="mean") is None


def python_changing(*names):
    async def execute(args, signal):
        namespace = [{"name": name, "kind": "changed", "text": f"~ {name}"} for name in names]
        return ToolOutput(content=[TextContent(text="(no output)")], details={"namespace": namespace})

    from jupyter_agent.tools.python_tool import PythonArgs

    return AgentTool(name="python", description="", parameters=PythonArgs, execute=execute)


async def test_a_python_call_that_changes_a_variable_lists_the_cells_that_read_it_and_notebook_run_reruns_them():
    frontend = Frontend(CELLS)
    ctx = context(frontend)
    python = tracking_stale_cells(python_changing("df"), ctx)
    result = await python.execute(python.parameters(code='df["x"] = 0'), AbortController().signal)
    line = result.content[-1].text
    assert line == (
        "Stale now (notebook_run with stale: true re-runs them): 3 stale cells in order: "
        "cell 1 `mean` reads df; cell 2 `show` reads m (m from cell 1); cell 4 `plot` reads df"
    )
    assert [cell.id for cell in ctx.run.stale] == ["mean", "show", "plot"]
    tool = run_tool(ctx)
    await gate_label(tool, trusted=False, stale=True)
    # The user sees the list before approving: each cell as they find it, in the order it will run.
    assert gate_label.preview.text.splitlines() == [
        "Re-run 3 stale cells in order:",
        "cell 2 [2] · id mean (reads df):",
        "m = df.x.mean()",
        "cell 3 [3] · id show (reads m):",
        "print(m)",
        "cell 5 [5] · id plot (reads df):",
        "df.plot()",
    ]
    out = "\n".join(block.text for block in normalize_output(gate_label.output)[0] if block.type == "text")
    assert out.startswith("Re-ran 3 stale cells in order.\nCell mean finished.\nCell show finished.\nCell plot finished.")
    assert [cell_id for cell_id, _ in frontend.ran] == ["mean", "show", "plot"] and ctx.run.stale == []
    with pytest.raises(ToolError, match="No stale cells"):
        await call(tool, stale=True)


async def test_a_stale_rerun_stops_at_the_first_failing_cell_and_the_rest_stay_stale():
    frontend = Frontend(CELLS, fail={"show"})
    ctx = context(frontend)
    python = tracking_stale_cells(python_changing("df"), ctx)
    await python.execute(python.parameters(code="df = df.head()"), AbortController().signal)
    with pytest.raises(ToolError) as raised:
        await call(run_tool(ctx), stale=True)
    assert "Cell show finished with an error.\nStopped there: plot not run (still stale)." in str(raised.value)
    assert [cell.id for cell in ctx.run.stale] == ["plot"]


async def test_unchanged_variables_add_nothing_and_the_call_needs_one_target():
    ctx = context(Frontend(CELLS))
    python = tracking_stale_cells(python_changing("unrelated"), ctx)
    result = await python.execute(python.parameters(code="unrelated = 1"), AbortController().signal)
    assert [block.text for block in result.content] == ["(no output)"] and ctx.run.stale == []
    with pytest.raises(ToolError, match="notebook_run needs a cell_id, or stale: true"):
        await call(run_tool(ctx))
    with pytest.raises(ToolError, match="notebook_run needs a cell_id, or stale: true"):
        await call(run_tool(ctx), cell_id="load", stale=True)


async def test_code_that_fails_after_changing_a_variable_names_the_stale_cells_in_its_error():
    async def execute(args, signal):
        namespace = [{"name": "df", "kind": "changed", "text": "~ df"}]
        raise ToolError("ZeroDivisionError: division by zero", details={"namespace": namespace})

    from jupyter_agent.tools.python_tool import PythonArgs

    ctx = context(Frontend(CELLS))
    python = tracking_stale_cells(AgentTool(name="python", description="", parameters=PythonArgs, execute=execute), ctx)
    with pytest.raises(ToolError) as raised:
        await python.execute(python.parameters(code='df["x"] = 0\n1/0'), AbortController().signal)
    assert str(raised.value).startswith("ZeroDivisionError: division by zero\nStale now (notebook_run with stale: true")
    assert raised.value.details["namespace"][0]["name"] == "df" and [cell.id for cell in ctx.run.stale] == [
        "mean",
        "show",
        "plot",
    ]
