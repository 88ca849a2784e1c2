import pytest

from jupyter_agent import AbortController
from jupyter_agent.tools import ToolError
from jupyter_agent.tools.process import child_environment, run_command

pytestmark = pytest.mark.anyio


def test_child_environment_has_no_pager_and_no_inline_backend(monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    env = child_environment()
    assert env["PAGER"] == "cat" and env["GIT_PAGER"] == "cat" and "MPLBACKEND" not in env
    monkeypatch.setenv("MPLBACKEND", "Agg")
    assert child_environment()["MPLBACKEND"] == "Agg"


async def test_result_fields(tmp_path):
    result = await run_command(
        "printf abc; printf err >&2; exit 4", cwd=str(tmp_path), timeout=10, signal=AbortController().signal, capture_bytes=100
    )
    assert result.exit_code == 4 and not result.timed_out and not result.aborted
    assert result.stdout.value() == b"abc" and result.stderr.value() == b"err"
    assert 0 < result.seconds < 10


async def test_timeout_sets_the_flag_and_a_signal_exit_code(tmp_path):
    result = await run_command("sleep 100", cwd=str(tmp_path), timeout=0.2, signal=AbortController().signal, capture_bytes=100)
    assert result.timed_out and result.exit_code is not None and result.exit_code < 0


async def test_a_missing_folder_is_a_tool_error(tmp_path):
    with pytest.raises(ToolError, match="could not be started"):
        await run_command("true", cwd=str(tmp_path / "gone"), timeout=1, signal=AbortController().signal, capture_bytes=10)
