from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from jupyter_agent.notebook.comm.materialize import (
    combined_source,
    last_turn_cells,
    materialize_fallback,
    python_cells,
    turn_start,
)
from jupyter_agent.notebook.comm.protocol import CellSpec, Provenance


def call(call_id, code, name="python"):
    return ToolCall(id=call_id, name=name, arguments={"code": code} if name == "python" else {"path": code})


def result(call_id, error=False):
    return ToolResultMessage(tool_call_id=call_id, tool_name="python", is_error=error, content=[TextContent(text="ok")])


def test_cells_are_the_successful_python_calls_in_order_with_their_step_and_model():
    messages = [
        UserMessage(content="plot it"),
        AssistantMessage(content=[call("a", "import pandas as pd\n"), call("b", "raise ValueError")], model="m1"),
        result("a"),
        result("b", error=True),
        AssistantMessage(content=[call("c", "/tmp/x", name="read"), call("d", "df.plot()")], model="m2"),
        result("c"),
        result("d"),
        AssistantMessage(content=[call("e", "never answered")], model="m2"),
    ]
    assert python_cells(messages, session="main") == [
        CellSpec(code="import pandas as pd", metadata=Provenance(session="main", step=1, model="m1")),
        CellSpec(code="df.plot()", metadata=Provenance(session="main", step=2, model="m2")),
    ]


def test_the_model_falls_back_to_the_given_one():
    messages = [AssistantMessage(content=[call("a", "1")], model=""), result("a")]
    assert python_cells(messages, session="s", model="fallback")[0].metadata.model == "fallback"


def test_a_turn_starts_at_a_prompt_not_at_a_steer():
    first = [UserMessage(content="one"), AssistantMessage(content=[TextContent(text="done")])]
    second = [
        UserMessage(content="two"),
        AssistantMessage(content=[call("a", "x = 1")]),
        result("a"),
        UserMessage(content="steer: use y"),
        AssistantMessage(content=[call("b", "y = 1")]),
        result("b"),
        AssistantMessage(content=[TextContent(text="done")]),
    ]
    assert turn_start(first + second) == 2
    assert turn_start([]) == 0
    codes = [cell.code for cell in last_turn_cells(first + second, session="main")]
    assert codes == ["x = 1", "y = 1"]


def test_the_fallback_puts_all_code_into_the_next_input():
    cells = [
        CellSpec(code="x = 1", metadata=Provenance(session="main", step=1, model="m")),
        CellSpec(code="print(x)", metadata=Provenance(session="main", step=3)),
    ]

    class Shell:
        calls = []

        def set_next_input(self, text, replace=False):
            self.calls.append((text, replace))

    shell = Shell()
    assert materialize_fallback(shell, cells) is True
    assert shell.calls == [(combined_source(cells), False)]
    assert combined_source(cells) == ("# agent session 'main', step 1 (m)\nx = 1\n\n# agent session 'main', step 3\nprint(x)\n")


def test_the_fallback_needs_cells_and_a_shell_that_takes_input():
    cell = CellSpec(code="x", metadata=Provenance(session="s", step=1))
    assert materialize_fallback(object(), [cell]) is False
    assert materialize_fallback(type("S", (), {"set_next_input": lambda *a, **k: None})(), []) is False
