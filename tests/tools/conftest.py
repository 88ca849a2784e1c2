"""Shared fixtures: a workspace with its coding tools, a fresh IPython shell, and a tool runner.

Tools are run through the loop's ``execute_tool`` so a test sees exactly what the model would:
a result message whose ``is_error`` is set for refusals, never an exception.
"""

import itertools

import pytest

from jupyter_agent import AbortController, ToolCall
from jupyter_agent.loop.execute_tool import execute_tool
from jupyter_agent.tools import ReadTracker, coding_tools, kernel_tools

_ids = itertools.count()


class Runner:
    def __init__(self, tools):
        self.tools = {tool.name: tool for tool in tools}

    async def __call__(self, tool, /, abort=None, **arguments):
        call = ToolCall(id=f"call-{next(_ids)}", name=tool, arguments=arguments)
        return await execute_tool(call, self.tools, abort or AbortController().signal)

    async def text(self, tool, /, **arguments):
        """The result text of a call that must succeed."""
        result = await self(tool, **arguments)
        assert not result.is_error, result.content[0].text
        return result.content[0].text

    async def error(self, tool, /, **arguments):
        """The result text of a call that must be refused."""
        result = await self(tool, **arguments)
        assert result.is_error, result.content[0].text
        return result.content[0].text


class Snapshots:
    def __init__(self):
        self.paths = []

    def __call__(self, path):
        self.paths.append(path)


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def snapshots():
    return Snapshots()


@pytest.fixture
def tracker():
    return ReadTracker()


@pytest.fixture
def run(workspace, tracker, snapshots):
    return Runner(coding_tools(workspace, read_tracker=tracker, before_write=snapshots, bash_timeout=30.0))


@pytest.fixture
def run_with(workspace):
    """Coding tools over the workspace built with other options (e.g. small caps)."""

    def build(**options):
        return Runner(coding_tools(workspace, **options))

    return build


@pytest.fixture(scope="session")
def ipython():
    """The process-wide IPython shell (a singleton), with history kept in memory."""
    import matplotlib

    matplotlib.use("Agg")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    return InteractiveShell.instance(config=config)


@pytest.fixture
def shell(ipython):
    """The shell with a fresh user namespace for each test; open figures are closed after."""
    ipython.reset(new_session=False)
    yield ipython
    ipython.reset(new_session=False)
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def kernel(shell):
    """Kernel tools over the fresh shell with the default data policy ("sample", 5 rows)."""
    return Runner(kernel_tools(shell))


@pytest.fixture
def kernel_with(shell):
    def build(**options):
        return Runner(kernel_tools(shell, **options))

    return build
