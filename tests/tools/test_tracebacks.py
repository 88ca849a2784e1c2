"""Tracebacks of agent-run code: named apart from the user's cells, no frame of jupyter-agent's own."""

import re

import pytest

from jupyter_agent.tools.tracebacks import named_as_agent_code, without_own_frames

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def counted_cells(shell):
    """These tests run user cells, which advance the shared shell's count: other modules expect In[1] next."""
    yield
    shell.reset(new_session=True)  # count 1, and a history session of its own


def agent_names(text):
    return re.findall(r"Agent code #\d+", text)


async def test_agent_code_is_not_named_after_the_users_next_cell(kernel, shell):
    shell.run_cell("def halve(x):\n    return 1 / x\n", store_history=True)
    upcoming = shell.execution_count  # the number the user's next cell gets
    text = await kernel.error("python", code="y = 2\nhalve(0)")
    assert f"Cell In[{upcoming}]" not in text
    assert agent_names(text) and ", line 2" in text  # the agent's code, at its own line
    assert f"Cell In[{upcoming - 1}], line 2, in halve(x)" in text  # the user's cell keeps its number
    assert shell.execution_count == upcoming  # and the agent took no count


def users_traceback(shell, code):
    """The traceback IPython shows for ``code`` run as the user's cell."""
    shown = []
    own = vars(shell).get("_showtraceback")
    shell._showtraceback = lambda etype, value, stb: shown.append("\n".join(stb))
    try:
        shell.run_cell(code, store_history=True)
    finally:
        if own is None:
            vars(shell).pop("_showtraceback", None)
        else:
            shell._showtraceback = own
    return re.sub(r"\x1b\[[0-9;]*m", "", shown[-1])


async def test_a_function_the_agent_defined_is_named_as_agent_code_from_a_users_cell(kernel, shell):
    await kernel.text("python", code="def agent_helper():\n    raise ValueError('from the agent')")
    text = users_traceback(shell, "agent_helper()")
    assert "agent_helper()" in text and agent_names(text), text
    assert text.count("Cell In[") == 1  # the user's own cell only


async def test_the_same_text_run_by_the_user_is_the_users_cell(kernel, shell):
    code = "raise KeyError('same text')"
    assert agent_names(await kernel.error("python", code=code))
    number = shell.execution_count
    text = users_traceback(shell, code)  # the user runs the very same text: it is their cell
    assert f"Cell In[{number}], line 1" in text and not agent_names(text), text


async def test_no_frame_or_install_path_of_jupyter_agent(kernel):
    text = await kernel.error("python", code="import sys\nsys.stdout.write(b'bytes')")
    assert "jupyter_agent" not in text and "capture.py" not in text
    assert "(1 frame of jupyter-agent left out)" in text
    assert text.rstrip().endswith("TypeError: write() argument must be str, not bytes")


def test_frames_of_other_code_are_kept_and_runs_of_own_frames_counted():
    import jupyter_agent.files as own

    entries = [
        "----",
        "Cell In[3], line 1\n----> 1 f()\n",
        f"File {own.__file__}:10, in parse_json(text)\n",
        f"File {own.__file__}:12, in parse_json(text)\n",
        "File ~/lib/python3.11/json/__init__.py:346, in loads(s)\n",
        f"File {own.__file__}:14, in other()\n",
        "JSONDecodeError: boom",
    ]
    assert without_own_frames(entries) == [
        "----",
        "Cell In[3], line 1\n----> 1 f()\n",
        "(2 frames of jupyter-agent left out)\n",
        "File ~/lib/python3.11/json/__init__.py:346, in loads(s)\n",
        "(1 frame of jupyter-agent left out)\n",
        "JSONDecodeError: boom",
    ]


def test_a_shell_without_a_caching_compiler_runs_as_before():
    class Plain:
        compile = None

    with named_as_agent_code(Plain()):
        pass
    with named_as_agent_code(object()):
        pass
