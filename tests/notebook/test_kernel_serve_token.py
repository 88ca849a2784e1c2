"""%agent serve's bearer token in a real kernel: in the live panel, never in what a frontend saves."""

import json

import pytest
from kernel_harness import notebook_kernel

pytestmark = pytest.mark.kernel


def test_the_token_is_in_the_live_panel_and_in_no_saved_output(tmp_path):
    kernel = notebook_kernel(tmp_path)
    try:
        msg_id = kernel.send("%agent serve")
        kernel.wait_reply(msg_id)
        token = kernel.evaluate("__import__('jupyter_agent.features.mcp_server', fromlist=['x']).serving().token").strip("'")
        assert len(token) > 20
        kernel.wait_for(lambda: token in kernel.widget_text(msg_id), what="the token in the live panel")
        saved = json.dumps(kernel.cell_outputs(msg_id))  # what the notebook file gets, autosave included
        assert token not in saved and "<token: in the live panel below>" in saved
        kernel.execute("%agent serve stop")
        kernel.wait_for(lambda: "no longer serving" in json.dumps(kernel.cell_outputs(msg_id)), what="the static rendering")
        assert token not in json.dumps(kernel.cell_outputs(msg_id))
    finally:
        kernel.shutdown()
