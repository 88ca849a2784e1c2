"""The result type and the stop reasons of the spec."""

import dataclasses
import subprocess
import sys

from jupyter_agent.runtime import STOP_REASONS, RunResult


def test_stop_reasons_are_exactly_the_specs():
    assert set(STOP_REASONS) == {
        "completed",
        "max_steps",
        "max_spend",
        "max_output",
        "max_context",
        "stopped_by_caller",
        "aborted",
        "error",
    }


def test_result_fields_in_the_specs_order():
    assert [f.name for f in dataclasses.fields(RunResult)] == [
        "text",
        "reason",
        "usage",
        "messages",
        "steps",
        "compactions",
        "error",
    ]


def test_the_runtime_imports_without_litellm_and_the_package_exposes_it_lazily():
    code = (
        "import sys, jupyter_agent, jupyter_agent.runtime as r; "
        "assert jupyter_agent.run_agent is r.run_agent and jupyter_agent.PermissionPolicy is r.PermissionPolicy; "
        "assert 'litellm' not in sys.modules and 'IPython' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
