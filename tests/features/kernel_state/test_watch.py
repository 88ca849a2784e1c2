"""The python tool's watch: a diff per call, copies only of named values, history per step."""

import numpy as np
import pandas as pd
import pytest

from jupyter_agent.features.kernel_state.undo_store import NamespaceHistory
from jupyter_agent.features.kernel_state.watch import NamespaceWatch, named_in
from jupyter_agent.testing.recording_watch import RecordingWatch


def run(watch, namespace, code):
    token = watch.before(code)
    exec(code, namespace)  # noqa: S102 - the test plays the kernel
    return watch.after(token)


def make(namespace, **options):
    history = NamespaceHistory()
    return NamespaceWatch(namespace, history, lambda: (1, 1), **options), history


def test_a_call_reports_and_records_its_changes_and_undo_restores_them():
    namespace = {"b": 5, "__builtins__": __builtins__, "_": "ipython output", "_i3": "input", "In": []}
    watch, history = make(namespace, hidden={"In"})
    line, details = run(watch, namespace, "a = 1; b = 99")
    assert line == "Namespace: + a (int), ~ b (int)"
    assert details == [{"name": "a", "kind": "added", "text": "+ a (int)"}, {"name": "b", "kind": "rebound", "text": "~ b (int)"}]
    result = history.undo(1, namespace)
    assert result.restored == ["b"] and result.removed == ["a"] and "a" not in namespace and namespace["b"] == 5


def test_an_unchanged_namespace_records_nothing():
    namespace = {"x": [1]}
    watch, history = make(namespace)
    assert run(watch, namespace, "print(x)") == ("", [])
    assert history.steps == []


def test_in_place_changes_are_restored_from_the_copy_and_big_arrays_are_not():
    frame = pd.DataFrame({"v": range(1000)})
    big = np.zeros(2**28)
    namespace = {"df": frame, "big": big}
    watch, history = make(namespace)
    line, _ = run(watch, namespace, "df['x'] = 0\nbig[0] = 1.0")
    assert line == "Namespace: ~ df (column x added), ~ big (values changed)"
    result = history.undo(1, namespace)
    assert result.restored == ["df"] and list(namespace["df"].columns) == ["v"]
    assert result.not_restored == {"big": "2.0 GB, over the 100.0 MB snapshot limit"}
    assert namespace["big"] is big and big[0] == 1.0  # left as the agent made it, and said so


def test_a_global_changed_by_a_function_the_code_calls_is_seen_and_restored():
    namespace = {"items": [1, 2]}
    exec("def grow():\n    items.append(3)\n\ndef outer():\n    grow()", namespace)  # noqa: S102
    watch, history = make(namespace)
    assert run(watch, namespace, "outer()")[0] == "Namespace: ~ items (2 → 3 items)"
    assert history.undo(1, namespace).restored == ["items"] and namespace["items"] == [1, 2]


def test_a_value_changed_through_an_alias_is_not_seen():
    items = [1, 2]
    namespace = {"items": items, "grow": lambda: items.append(3)}  # a closure, not a global
    watch, history = make(namespace)
    assert run(watch, namespace, "grow()") == ("", [])


def test_undo_refuses_naming_a_variable_the_user_changed_since():
    namespace = {"b": 5}
    watch, history = make(namespace)
    run(watch, namespace, "b = 99; c = 1")
    namespace["b"] = 100
    result = history.undo(1, namespace)
    assert result.conflicts == {"b": "assigned again since the agent's step"} and not result.ok
    assert namespace == {"b": 100, "c": 1, "__builtins__": namespace["__builtins__"]}  # nothing changed
    namespace["b"] = 99
    assert history.undo(1, namespace).ok and namespace["b"] == 5


def test_calls_of_one_step_merge_into_one_undo():
    namespace = {"b": 5}
    watch, history = make(namespace)
    run(watch, namespace, "b = 6")
    run(watch, namespace, "b = 7; t = 1")
    run(watch, namespace, "del t")
    assert [change.text for change in history.steps[0].changes()] == ["~ b (int)"]
    history.undo(1, namespace)
    assert namespace["b"] == 5 and "t" not in namespace


def test_a_copy_is_reused_while_the_value_is_unchanged():
    frame = pd.DataFrame({"v": range(10)})
    namespace = {"df": frame}
    watch, _ = make(namespace)
    first = watch.before("df.head()").kept["df"]
    assert watch.before("print(df)").kept["df"] is first
    frame["w"] = 1
    assert watch.before("df").kept["df"] is not first


def test_named_in_reads_ipython_syntax_through_the_transform_and_survives_bad_code():
    assert named_in("x = y + z.w\nglobal g") == {"x", "y", "z", "g"}
    assert named_in("%time a = b", transform=lambda code: "get_ipython().run_line_magic('time', 'a = b')") == {"get_ipython"}
    assert named_in("def (:") == set()


def test_ipython_names_and_odd_keys_are_not_user_variables():
    namespace = {"_": 1, "__": 2, "_5": 3, "_i5": 4, "_oh": {}, "__name__": "m", "": 5, 7: "key", "_mine": 6}
    watch, _ = make(namespace, hidden={"In"})
    assert list(watch.state(set())) == ["", "_mine"]


@pytest.fixture
def shell():
    from IPython.testing.globalipapp import get_ipython

    ipython = get_ipython()  # the process's one shell (the notebook tests load the extension in it)
    ipython.reset(new_session=False)
    yield ipython
    ipython.reset(new_session=False)


@pytest.mark.anyio
async def test_a_watch_line_ends_the_python_result_and_its_details_ride_along(shell):
    from jupyter_agent.features.kernel_state.watch import watched
    from jupyter_agent.loop import AbortController
    from jupyter_agent.loop.execute_tool import execute_tool
    from jupyter_agent.messages import ToolCall
    from jupyter_agent.tools import kernel_tools

    watch = RecordingWatch()
    tools = {tool.name: watched(tool, watch) if tool.name == "python" else tool for tool in kernel_tools(shell)}
    result = await execute_tool(ToolCall(id="c1", name="python", arguments={"code": "a = 1"}), tools, AbortController().signal)
    assert [block.text for block in result.content] == ["(no output)", "Namespace: + a (int)"]
    assert result.details["namespace"] == [{"token": 1}] and watch.seen == ["a = 1"]
    failed = await execute_tool(
        ToolCall(id="c2", name="python", arguments={"code": "a = 2; 1/0"}), tools, AbortController().signal
    )
    assert failed.is_error and failed.content[0].text.endswith("ZeroDivisionError: division by zero\nNamespace: + a (int)")
    watch.line = ""
    quiet = await execute_tool(ToolCall(id="c3", name="python", arguments={"code": "pass"}), tools, AbortController().signal)
    assert [block.text for block in quiet.content] == ["(no output)"] and "namespace" not in (quiet.details or {})
