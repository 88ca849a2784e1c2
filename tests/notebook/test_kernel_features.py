"""Plan, memory and delegation in a real kernel, driven like JupyterLab drives it (scripted models).

One kernel serves the module; the test that restarts it runs last.
"""

import json

import pytest
from kernel_harness import AGENT_TEST_SETUP, notebook_kernel

pytestmark = pytest.mark.kernel

FACT = {
    "memories": [
        {"name": "sales-dates", "summary": "sales.csv dates are day-first", "content": "Parse sales.csv with dayfirst=True."}
    ]
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("kernel-features"))
    yield harness
    harness.shutdown()


def shown(kernel, code):
    """What a cell displayed (its Markdown or plain text)."""
    msg_id = kernel.execute(code).msg_id
    return kernel.outputs_of(msg_id)


def test_memory_is_off_by_default_and_on_with_the_option(kernel):
    memory = kernel.folder / "analysis.agent" / "memory"
    kernel.execute("quiet = script('quiet', reply('Dates are day-first.'))")
    kernel.agent_cell("-m quiet -s memory-off", "Dates in sales.csv are day-first")
    kernel.wait_turn("memory-off")
    assert kernel.evaluate("len(quiet.requests)") == "1" and not memory.exists()

    kernel.execute(f"script('keeper', reply('Noted: day-first.'), reply({json.dumps(FACT)!r}))")
    msg_id, _ = kernel.agent_cell("--memory -m keeper -s memory-on", "Dates in sales.csv are day-first")
    kernel.wait_turn("memory-on")
    assert (memory / "sales-dates.md").exists()
    assert "sales-dates" in shown(kernel, "%agent memory")
    # The saved cell says what was saved and how to undo it; the undo works after a kernel restart.
    static = kernel.wait_for(
        lambda: [o["data"]["text/markdown"] for o in kernel.cell_outputs(msg_id) if "text/markdown" in o["data"]],
        what="the static rendering",
    )
    assert "Memory created: sales-dates" in static[0] and "%agent memory undo sales-dates" in static[0]
    kernel.restart()
    kernel.execute("%load_ext jupyter_agent")
    assert "Undid the agent's change of the memory note `sales-dates` (created)" in shown(
        kernel, "%agent memory undo sales-dates"
    )
    assert not (memory / "sales-dates.md").exists()
    kernel.execute(AGENT_TEST_SETUP)


def test_a_delegated_child_gets_its_own_card(kernel):
    kernel.execute(
        "script('boss', tool_calls(call('delegate', {'tasks': ['Count the rows of sales']})),"
        " reply('It has 42 rows.'), reply('The sub-agent counted 42 rows.'))"
    )
    msg_id, _ = kernel.agent_cell("--delegate -m boss -s delegating", "How many rows?")
    kernel.wait_turn("delegating")

    def child_card():
        return [
            w
            for w in kernel.cell_widgets(msg_id)
            if w.model_name == "AccordionModel"
            and any("sub-agent 1: Count the rows of sales" in title for title in w.state.get("titles", ()))
        ]

    [card] = kernel.wait_for(child_card, timeout=5, what="the sub-agent's card")
    kernel.wait_for(lambda: "done · 1 step" in card.state["titles"][0], timeout=5, what="the finished card")
    assert "It has 42 rows." in kernel.widget_text(msg_id)
    assert kernel.evaluate("last_turn('delegating').result.reason") == "'completed'"


def test_the_plan_is_shown_live_and_survives_a_kernel_restart(kernel):
    plan = {"items": [{"text": "Load the data", "status": "in_progress"}, {"text": "Plot revenue"}]}
    # The answer streams slowly: the plan is checked while the panel is live.
    kernel.execute(f"planner = script('planner', tool_calls(call('plan', {plan!r})), reply('Planned. ' * 20, delay=0.05))")
    msg_id, _ = kernel.agent_cell("-m planner -s planning", "Plan the analysis")
    kernel.wait_for(lambda: "Plan · 0/2 done" in kernel.widget_text(msg_id), what="the plan widget")
    kernel.wait_turn("planning")
    assert "Load the data" in kernel.widget_text(msg_id)
    # The notebook's system prompt is the same before and after the plan changed; the plan follows
    # the history as the second request's step context, and never enters the history.
    assert kernel.evaluate("len({r.context.system_prompt for r in planner.requests})") == "1"
    assert kernel.evaluate("planner.requests[0].context.step_context is None") == "True"
    assert kernel.evaluate("'[>] 1. Load the data' in planner.requests[1].context.step_context") == "True"
    assert kernel.evaluate("'<step-context>' in planner.requests[0].context.system_prompt") == "True"
    session_file = kernel.evaluate("str(last_turn('planning').session.path)").strip("'")
    assert "## Current task plan" not in open(session_file, encoding="utf-8").read()
    kernel.restart()
    kernel.execute("%load_ext jupyter_agent")
    printed = shown(kernel, "%agent plan -s planning")
    assert "(0/2 done)" in printed and "**Load the data** *(in progress)*" in printed
