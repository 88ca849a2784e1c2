"""Agent cells behave like code cells in a real kernel: a re-run redoes its turn, Run All twice
leaves one turn per cell, an edited prompt forks the session (frontend-style requests carrying
JupyterLab's ``cellId``; headless runs without one are in test_headless_cells.py)."""

import pytest
from kernel_harness import notebook_kernel

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("cells"))
    yield harness
    harness.shutdown()


# The user messages of a scripted model's request, and how often each prompt appears in them.
SETUP = """
def prompts_in(model, request=-1):
    users = [m for m in model.requests[request].context.messages if m.role == 'user']
    texts = [m.content if isinstance(m.content, str) else ''.join(b.text for b in m.content if b.type == 'text') for m in users]
    return texts

def count_in(model, prompt, request=-1):
    return sum(text.count(prompt) for text in prompts_in(model, request))

def branch_turns(session):
    return [turn.prompt for turn in _agent.sessions.get(session).store.turns()]
"""


def run(kernel, session, prompt, cell_id, options=""):
    kernel.agent_cell(f"-m cells -s {session} {options}", prompt, cell_id=cell_id)
    kernel.wait_turn(session)


def test_running_a_cell_again_redoes_its_turn(kernel):
    kernel.execute(SETUP)
    kernel.execute("m = script('cells', *[reply(f'answer {n}') for n in range(20)])")
    run(kernel, "again", "What data do I have?", "cell-1")
    run(kernel, "again", "What data do I have?", "cell-1")
    assert kernel.evaluate("count_in(m, 'What data do I have?')") == "1"
    assert kernel.evaluate("branch_turns('again')") == "['What data do I have?']"


def test_run_all_twice_leaves_one_turn_per_cell_and_each_prompt_once(kernel):
    for _ in range(2):
        run(kernel, "runall", "Summarise the sales.", "cell-a")
        run(kernel, "runall", "Now plot both regions.", "cell-b")
    assert kernel.evaluate("count_in(m, 'Summarise the sales.')") == "1"
    assert kernel.evaluate("count_in(m, 'Now plot both regions.')") == "1"
    assert kernel.evaluate("branch_turns('runall')") == "['Summarise the sales.', 'Now plot both regions.']"
    # The first Run All's turns stay readable as a branch.
    replaced = "[t.prompt for t in _agent.sessions.get('runall').store.branches()[1].own_turns]"
    assert kernel.evaluate(replaced) == "['Summarise the sales.', 'Now plot both regions.']"


def test_editing_an_earlier_cell_forks_there(kernel):
    run(kernel, "edit", "Load the data.", "cell-x")
    run(kernel, "edit", "Plot it.", "cell-y")
    run(kernel, "edit", "Load the data, without the outliers.", "cell-x")
    assert kernel.evaluate("count_in(m, 'Load the data.')") == "0"  # the old prompt is gone
    assert kernel.evaluate("count_in(m, 'Plot it.')") == "0"  # the cell below it ran after the old prompt
    assert kernel.evaluate("branch_turns('edit')") == "['Load the data, without the outliers.']"


def test_append_adds_a_turn_after_the_newest(kernel):
    run(kernel, "appending", "Keep going.", "cell-k")
    run(kernel, "appending", "Keep going.", "cell-k", options="--append")
    assert kernel.evaluate("count_in(m, 'Keep going.')") == "2"
    assert kernel.evaluate("branch_turns('appending')") == "['Keep going.', 'Keep going.']"


def test_the_panel_says_what_the_turn_continues(kernel):
    run(kernel, "said", "First question.", "cell-s1")
    msg_id, _ = kernel.agent_cell("-m cells -s said", "Second question.", cell_id="cell-s2")
    kernel.wait_turn("said")
    shown = kernel.widget_text(msg_id)
    assert "This turn continues session said: 1 earlier turn, ≈ " in shown and "%%agent --new starts afresh" in shown
    msg_id, _ = kernel.agent_cell("-m cells -s said", "Second question, again.", cell_id="cell-s2")
    kernel.wait_turn("said")
    assert "; it replaces this cell's earlier turn (kept on a branch: %agent sessions lists it)" in kernel.widget_text(msg_id)


def test_a_redone_turn_has_the_plan_the_cells_above_it_left(kernel):
    kernel.execute(
        "p = script('planner', tool_calls(call('plan', {'items': [{'text': 'Load the data'}]})), reply('planned'),"
        " tool_calls(call('plan', {'items': [{'text': 'Fit a model'}]})), reply('replanned'), reply('again'))"
    )
    for prompt, cell_id in (("Make a plan.", "cell-p1"), ("Change the plan.", "cell-p2"), ("Change the plan.", "cell-p2")):
        kernel.agent_cell("-m planner -s planned", prompt, cell_id=cell_id)
        kernel.wait_turn("planned")
    # The re-run of cell-p2 replaced the turn that made "Fit a model": its plan went with it.
    step_context = kernel.evaluate("p.requests[-1].context.step_context")
    assert "Load the data" in step_context and "Fit a model" not in step_context
    shown = kernel.outputs_of(kernel.execute("%agent plan -s planned").msg_id)
    assert "Load the data" in shown and "Fit a model" not in shown


def test_a_replayed_cell_runs_its_own_recorded_calls_when_another_cell_asks_the_same(kernel):
    kernel.execute(
        "script('twins', tool_calls(call('python', {'code': 'twin_a = 1'})), reply('a set'),"
        " tool_calls(call('python', {'code': 'twin_b = 2'})), reply('b set'))"
    )
    for cell_id in ("cell-t1", "cell-t2"):
        kernel.agent_cell("-m twins -p yolo -s twins", "Set it up.", cell_id=cell_id)
        kernel.wait_turn("twins")
    kernel.execute("del twin_a, twin_b")
    msg_id, _ = kernel.agent_cell("--replay -s twins", "Set it up.", cell_id="cell-t2")
    kernel.wait_turn("twins")
    assert "Replayed the recorded turn 2" in kernel.widget_text(msg_id)
    assert kernel.evaluate("'twin_a' in globals(), 'twin_b' in globals()") == "(False, True)"
