"""The notebook tools in a real kernel without the lab extension: the file on disk is the source."""

import ast
import json

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.messages import without_turn_context

pytestmark = pytest.mark.kernel

SAVED = {
    "cells": [
        {"id": "intro", "cell_type": "markdown", "metadata": {}, "source": "# Quarterly sales\nRevenue per region."},
        {
            "id": "boom",
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": "1/0",
            "outputs": [
                {
                    "output_type": "error",
                    "ename": "ZeroDivisionError",
                    "evalue": "division by zero",
                    "traceback": ["Traceback (most recent call last)", "ZeroDivisionError: division by zero"],
                }
            ],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("notebook-tools"))
    yield harness
    harness.shutdown()


def test_notebook_read_without_the_extension_reads_the_saved_file(kernel):
    (kernel.folder / "analysis.ipynb").write_text(json.dumps(SAVED))
    kernel.execute("m = script('reader', tool_calls(call('notebook_read', {})), reply('I read it.'))")
    kernel.agent_cell("-m reader -s reading", "What is in my notebook?")
    kernel.wait_turn("reading")
    result = ast.literal_eval(kernel.evaluate("last_turn('reading').result.messages[-2].content[0].text"))
    assert "source: the notebook file on disk analysis.ipynb" in result
    assert "0 · intro · markdown" in result and "# Quarterly sales" in result
    assert "ZeroDivisionError: division by zero" in result


def test_notebook_edit_replace_and_run_explain_that_they_need_the_extension(kernel):
    kernel.execute(
        "m = script('editor', tool_calls(call('notebook_edit', {'op': 'delete', 'cell_id': 'boom'}),"
        " call('notebook_run', {'cell_id': 'boom'})), reply('ok'))"
    )
    kernel.agent_cell("-m editor -s editing -p yolo", "Delete the failing cell and run it")
    kernel.wait_turn("editing")
    texts = ast.literal_eval(
        kernel.evaluate("[m.content[0].text for m in last_turn('editing').result.messages if m.role == 'tool_result']")
    )
    assert "notebook_edit delete needs the jupyter-agent JupyterLab extension" in texts[0]
    assert "run the code with the `python` tool instead" in texts[1]


def test_agent_fix_tells_the_model_the_exception_the_cell_and_the_frame_locals(kernel):
    kernel.execute("def ratio(total, parts):\n    share = total / parts\n    return share")
    failing = kernel.execute("revenue = 120\nratio(revenue, 0)", check=False)
    assert not failing.ok
    kernel.execute("fixer = script('fixer', reply('The divisor is zero.'))\n%config AgentMagics.model = 'fixer'")
    kernel.execute("%agent fix")
    kernel.wait_for(lambda: kernel.evaluate("len(fixer.requests)") == "1", what="the fix request")
    request = ast.literal_eval(kernel.evaluate("fixer.requests[0].context.messages[-1].content"))
    assert "Exception: ZeroDivisionError: division by zero" in request
    assert "revenue = 120\nratio(revenue, 0)" in request  # the cell that raised it
    assert "Local variables of the failing frame (ratio):" in request
    assert "- total: int = 120" in request and "- parts: int = 0" in request
    assert "notebook_edit" in request
    kernel.execute("%config AgentMagics.model = ''")


def test_a_mention_attaches_the_variable_and_an_unknown_one_stays_text(kernel):
    kernel.execute("import pandas as pd\nsales = pd.DataFrame({'region': ['north', 'south'], 'revenue': [10, 20]})")
    kernel.execute("m = script('mentioned', reply('Two regions.'))")
    kernel.agent_cell("-m mentioned -s mentions", "Compare @sales with @nothing_here, see @cell[0]")
    kernel.wait_turn("mentions")
    sent = ast.literal_eval(kernel.evaluate("m.requests[0].context.messages[-1].content"))
    request = without_turn_context(sent)  # the turn's context (date, notebook outline) leads the prompt
    assert sent.startswith("<turn-context>\n") and request.startswith("Compare @sales with @nothing_here, see @cell[0]")
    assert "@sales:" in request and "region" in request and "revenue" in request
    assert "@nothing_here: (note: no variable 'nothing_here' in the kernel; the mention was left as text)" in request
    assert "@cell[0]:" in request and "# Quarterly sales" in request
