"""notebook_run's guards in a real kernel: the kernel times each cell, slow cells ask, stale cells are named."""

import ast
import json

import pytest
from kernel_harness import notebook_kernel

pytestmark = pytest.mark.kernel

LOAD = "import pandas as pd\ndf = pd.DataFrame({'x': [1, 2, 3]})"
SAVED = {
    "cells": [
        {"id": "load", "cell_type": "code", "execution_count": 1, "metadata": {}, "source": LOAD, "outputs": []},
        {"id": "total", "cell_type": "code", "execution_count": 2, "metadata": {}, "source": "total = df.x.sum()", "outputs": []},
        {"id": "show", "cell_type": "code", "execution_count": 3, "metadata": {}, "source": "print(total)", "outputs": []},
        {"id": "other", "cell_type": "code", "execution_count": 4, "metadata": {}, "source": "other = 5", "outputs": []},
        {"id": "twice", "cell_type": "code", "execution_count": 5, "metadata": {}, "source": "other * 2", "outputs": []},
        {"id": "md", "cell_type": "markdown", "metadata": {}, "source": "df is the frame"},
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("notebook-run"))
    (harness.folder / "analysis.ipynb").write_text(json.dumps(SAVED))
    harness.execute(LOAD)  # the saved cell's own source: the kernel's history adds no cell for it
    yield harness
    harness.shutdown()


def test_a_cell_that_took_3_s_makes_notebook_run_ask_even_when_allowed_for_the_session(kernel):
    kernel.wait_reply(kernel.send("import time\ntime.sleep(3)", cell_id="slow"))
    kernel.wait_reply(kernel.send("quick = 1", cell_id="fast"))
    kernel.execute("%config AgentMagics.ask_slow_cells = 1.0")
    kernel.execute(
        "m = script('runner', tool_calls(call('notebook_run', {'cell_id': 'fast'})),"
        " tool_calls(call('notebook_run', {'cell_id': 'slow'})), reply('done'))"
    )
    msg_id, reply = kernel.agent_cell("-m runner -s slow -p ask", "Run the fast cell, then the slow one.")
    assert reply.ok
    kernel.click(kernel.button(msg_id, "Allow notebook_run for this session").comm_id)
    asked = kernel.wait_for(
        lambda: "took 3." in kernel.widget_text(msg_id) and kernel.widget_text(msg_id), what="the slow cell's approval"
    )
    assert "last time (asks above AgentMagics.ask_slow_cells = 1 s)" in asked
    kernel.click(kernel.button(msg_id, "Deny").comm_id)
    kernel.wait_turn("slow")
    assert "denied by the user" in kernel.evaluate("last_turn('slow').result.messages[-2].content[0].text")
    assert kernel.evaluate("m.requests[1].context.messages[-1].tool_name") == "'notebook_run'"  # the fast one ran unasked


def test_the_stale_list_after_df_x_0_names_the_cells_below_that_read_df_and_not_the_others(kernel):
    kernel.execute("m = script('changer', tool_calls(call('python', {'code': 'df[\"x\"] = 0'})), reply('Changed.'))")
    msg_id, _ = kernel.agent_cell("-m changer -s stale -p yolo", "Zero the x column.")
    kernel.wait_turn("stale")
    result = ast.literal_eval(kernel.evaluate("last_turn('stale').result.messages[-2].content[-1].text"))
    assert result == (
        "Stale now (re-run them in JupyterLab): 2 stale cells in order: "
        "cell 1 `total` reads df; cell 2 `show` reads total (total from cell 1)"
    )
    assert "`other`" not in result and "`twice`" not in result and "`load`" not in result
    sent = kernel.evaluate("repr([b.text for b in m.requests[-1].context.messages[-1].content])")
    assert "2 stale cells in order" in sent  # the model's next step reads the list
    kernel.wait_for(lambda: "2 stale cells in order" in kernel.widget_text(msg_id), what="the list in the card")
