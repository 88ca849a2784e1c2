"""Sessions after a rename without the lab extension, in a real kernel: the kernel restarted with
the new name says where its sessions were, and ``%agent sessions --adopt`` brings them over
(moved when the old notebook is gone, copied when it is still there)."""

import pytest
from kernel_harness import AGENT_TEST_SETUP, notebook_kernel

pytestmark = pytest.mark.kernel


def restarted_as(kernel, notebook):
    """The server restarts the kernel of a renamed notebook with the notebook's new path."""
    kernel.restart(env={"JPY_SESSION_NAME": str(notebook)})
    kernel.execute("%load_ext jupyter_agent")
    kernel.execute(AGENT_TEST_SETUP)


@pytest.mark.parametrize("old_notebook_kept", [False, True], ids=["renamed", "saved-as"])
def test_a_kernel_restarted_after_a_rename_points_to_its_old_sessions_and_adopts_them(tmp_path, old_notebook_kept):
    kernel = notebook_kernel(tmp_path, notebook_name="Untitled.ipynb")
    try:
        kernel.execute("script('before', reply('First answer.'))")
        kernel.agent_cell("-m before -s main", "Remember the sales figures.")
        kernel.wait_turn("main")
        assert (tmp_path / "Untitled.agent" / "main.jsonl").is_file()
        # JupyterLab without the extension renames the notebook (or saves it under a new name):
        # the folder stays behind.
        new = tmp_path / "Analysis.ipynb"
        new.write_text((tmp_path / "Untitled.ipynb").read_text())
        if not old_notebook_kept:
            (tmp_path / "Untitled.ipynb").unlink()
        restarted_as(kernel, new)

        kernel.execute("script('after', reply('Second answer.'))")
        msg_id, _ = kernel.agent_cell("-m after -s scratch", "Anything new?")
        kernel.wait_turn("scratch")
        shown = kernel.widget_text(msg_id)
        assert "this kernel kept its sessions in " in shown and str(tmp_path / "Untitled.agent") in shown
        assert "%agent sessions --adopt Untitled.agent brings them here" in shown

        adopted = kernel.outputs_of(kernel.execute("%agent sessions --adopt Untitled.agent").msg_id)
        verb = "Copied" if old_notebook_kept else "Moved"
        assert adopted.startswith(f"{verb} ") and "main.jsonl" in adopted
        assert (tmp_path / "Analysis.agent" / "main.jsonl").is_file()
        assert (tmp_path / "Untitled.agent" / "main.jsonl").is_file() == old_notebook_kept
        # The adopted session continues here, with its history.
        kernel.execute("after_adopt = script('continued', reply('Third answer.'), reply('Fourth answer.'))")
        kernel.agent_cell("-m continued -s main", "And now?")
        kernel.wait_turn("main")
        assert kernel.evaluate("'Remember the sales figures.' in str(after_adopt.requests[-1].context.messages)") == "True"
        # Said once: the next turn of this kernel does not repeat it.
        msg_id, _ = kernel.agent_cell("-m continued -s scratch", "Still there?")
        kernel.wait_turn("scratch")
        assert "this kernel kept its sessions" not in kernel.widget_text(msg_id)
    finally:
        kernel.shutdown()


def test_a_session_of_the_same_name_made_since_is_kept_and_the_adopted_one_gets_a_free_name(tmp_path):
    kernel = notebook_kernel(tmp_path, notebook_name="Untitled.ipynb")
    try:
        kernel.execute("script('before', reply('First answer.'))")
        kernel.agent_cell("-m before", "Remember the sales figures.")  # the default session, main
        kernel.wait_turn("main")
        (tmp_path / "Untitled.ipynb").rename(tmp_path / "Analysis.ipynb")
        restarted_as(kernel, tmp_path / "Analysis.ipynb")
        # The first turn after the restart, in main as always: it says where the old sessions are,
        # and it starts a new main here.
        kernel.execute("script('after', reply('Second answer.'), reply('Third answer.'))")
        msg_id, _ = kernel.agent_cell("-m after", "Anything new?")
        kernel.wait_turn("main")
        assert "%agent sessions --adopt Untitled.agent brings them here" in kernel.widget_text(msg_id)

        adopted = kernel.outputs_of(kernel.execute("%agent sessions --adopt Untitled.agent").msg_id)
        assert "Session main is here already: the adopted one is main-2 (continue it with -s main-2)." in adopted
        assert "Left in" not in adopted and not (tmp_path / "Untitled.agent").exists()
        kernel.agent_cell("-m after -s main-2", "And now?")
        kernel.wait_turn("main-2")
        assert kernel.evaluate("'Remember the sales figures.' in str(_agent.sessions.get('main-2').store.messages())") == "True"
        assert kernel.evaluate("'Anything new?' in str(_agent.sessions.get('main').store.messages())") == "True"
    finally:
        kernel.shutdown()
