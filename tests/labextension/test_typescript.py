"""The JupyterLab extension's TypeScript unit tests (``labextension/test``), run with the suite.

They type-check the extension with its tests, then run vitest: pure logic (protocol parsing,
materialized cells, ``%%agent`` detection), the extension's side of the comm schema, and the live
panel's own JavaScript (``jupyter_agent/notebook/panel/``: loader and front end) in a happy-dom page
against recorded operation streams, with its shipped minified files checked against their sources.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"


def jlpm(*args, timeout):
    return subprocess.run(["jlpm", *args], cwd=LABEXTENSION, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "CI": "true", "FORCE_COLOR": "0"})


def test_the_extensions_typescript_tests_pass():
    if shutil.which("node") is None or shutil.which("jlpm") is None:
        if os.environ.get("CI"):
            pytest.fail("Node.js and jlpm (JupyterLab) are needed in CI for the extension's tests")
        pytest.skip("Node.js is not installed here: the extension's TypeScript tests cannot run")
    if not (LABEXTENSION / "node_modules" / ".bin" / "vitest").exists():
        installed = jlpm("install", timeout=900)  # once per checkout; `pip install` does it too
        assert installed.returncode == 0, f"jlpm install failed:\n{installed.stdout[-4000:]}\n{installed.stderr[-4000:]}"
    done = jlpm("test", timeout=600)
    assert done.returncode == 0, f"jlpm test failed:\n{done.stdout[-6000:]}\n{done.stderr[-4000:]}"
    # The panel's front end is tested here only: its files must not drop out of vitest's selection.
    for name in ("panel.test.mjs", "panel_build.test.mjs", "panel_mount.test.ts"):
        assert f"test/{name}" in done.stdout, f"vitest did not run test/{name}:\n{done.stdout[-3000:]}"
