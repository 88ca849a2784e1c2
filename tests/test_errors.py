"""The error hierarchy: one root, and a user-facing branch the notebook shows as it stands."""

import pytest

from jupyter_agent.errors import JupyterAgentError, UserFacingError
from jupyter_agent.features.kernel_state.replay import ReplayError
from jupyter_agent.notebook.model_resolution import UnknownModelError
from jupyter_agent.notebook.runner import describe_error
from jupyter_agent.notebook.session_manager import SessionNameError
from jupyter_agent.session.lock import SessionLockedError
from jupyter_agent.session.store import SessionWriteError


@pytest.mark.parametrize(
    ("kind", "base"),
    [
        (ReplayError, RuntimeError),
        (UnknownModelError, ValueError),
        (SessionNameError, ValueError),
        (SessionLockedError, RuntimeError),
        (SessionWriteError, OSError),
    ],
)
def test_each_user_facing_error_is_one_and_keeps_its_standard_base(kind, base):
    assert issubclass(kind, UserFacingError) and issubclass(kind, JupyterAgentError) and issubclass(kind, base)


def test_a_user_facing_error_is_shown_as_its_message_and_any_other_names_its_type():
    class Mine(UserFacingError):
        pass

    assert describe_error(Mine("the session is busy: wait")) == "the session is busy: wait"
    assert describe_error(ValueError("bad")) == "ValueError: bad"
    assert describe_error(KeyError()) == "KeyError"


# Run as scripts with ``python -S -I``, standard library only: they cannot import the package.
STANDALONE = {"jupyter_agent.features.mcp.launcher"}


def classes_outside(package, skip=frozenset()):
    """The exception classes each module of ``package`` defines outside the hierarchy, and how
    many it defines (warning categories are not errors, and are left out)."""
    import importlib
    import inspect
    import pkgutil

    outside, seen = [], 0
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if info.name in skip:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if not (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__):
                continue
            seen += 1
            if not issubclass(value, (JupyterAgentError, Warning)):
                outside.append(f"{module.__name__}.{value.__qualname__}")
    return outside, seen


def test_every_exception_class_of_the_package_derives_from_the_root():
    import jupyter_agent

    outside, seen = classes_outside(jupyter_agent, STANDALONE)
    assert outside == []
    assert seen > 30  # the walk found the package's classes


def test_the_walk_finds_a_class_outside_the_hierarchy(tmp_path, monkeypatch):
    import importlib

    package = tmp_path / "strays"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "__init__.py").write_text("")
    (package / "inner" / "errors.py").write_text(
        "import warnings\n"
        "from jupyter_agent.errors import JupyterAgentError\n"
        "class Kept(ValueError, JupyterAgentError): pass\n"
        "class Stray(ValueError): pass\n"
        "class Noted(UserWarning): pass\n"
        "Borrowed = KeyError\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert classes_outside(importlib.import_module("strays")) == (["strays.inner.errors.Stray"], 3)
