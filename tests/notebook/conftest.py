"""Shared fixtures of the notebook tests: a recording renderer, sessions in a temp folder, and an
in-process IPython shell with the extension loaded."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # kernel_harness and turn_helpers, for several modules

from turn_helpers import RecordingRenderer  # noqa: E402

from jupyter_agent.notebook.model_resolution import ModelChoice, register_model, unregister_model  # noqa: E402
from jupyter_agent.notebook.session_manager import SessionManager  # noqa: E402


@pytest.fixture
def renderer():
    return RecordingRenderer()


@pytest.fixture
def manager(tmp_path):
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text("{}")
    manager = SessionManager({}, workspace_for=lambda folder: folder, env={"JPY_SESSION_NAME": str(notebook)})
    yield manager
    manager.close()


@pytest.fixture
def scripted():
    """Registers scripted models by name for the duration of a test."""
    names = []

    def register(name, model):
        register_model(name, model, model.model(name))
        names.append(name)
        return ModelChoice(name, "option")

    yield register
    for name in names:
        unregister_model(name)


@pytest.fixture(scope="module")
def ip(tmp_path_factory):
    from IPython.testing.globalipapp import get_ipython

    shell = get_ipython()
    folder = tmp_path_factory.mktemp("shell")
    previous = os.getcwd()
    os.chdir(folder)  # sessions of a shell without a notebook go to the working folder
    shell.config.AgentMagics.preload = False  # these tests never call a model: no litellm import
    result = shell.run_cell("%load_ext jupyter_agent")
    assert result.success
    yield shell
    shell.run_cell("%unload_ext jupyter_agent")
    os.chdir(previous)
