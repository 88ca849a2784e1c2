"""Package facades that import what they export on first use (PEP 562).

A facade declares its exports once, as imports under ``if TYPE_CHECKING:`` (what type checkers and
readers see) and in ``__all__``; ``lazy_facade`` reads that block from the facade's source and
returns the module's ``__getattr__`` and ``__dir__``, which import a name's defining module when the
name is first asked for. So importing one leaf module (``jupyter_agent.session.site_policy``) no
longer imports every sibling its package re-exports: ``%load_ext jupyter_agent`` imports what it
uses and nothing else (pydantic models, anyio and the session store wait for the first turn).

    from typing import TYPE_CHECKING

    from jupyter_agent.lazy_facade import lazy_facade

    if TYPE_CHECKING:
        from jupyter_agent.session.store import SessionStore

    __all__ = ["SessionStore"]
    __getattr__, __dir__ = lazy_facade(__name__, __file__)

An export must not share its name with a submodule of its package: importing that submodule binds
the name to the module (``tests/test_lazy_facade.py`` checks every facade).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from jupyter_agent.errors import JupyterAgentError


class FacadeDeclarationError(JupyterAgentError):
    """A facade's ``if TYPE_CHECKING:`` block is not a list of ``from <module> import <names>``."""


def lazy_facade(package: str, source: str) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the facade ``package`` whose file is ``source``."""
    exports = declared_exports(package, Path(source).read_text(encoding="utf-8"))
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # later lookups are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__


def declared_exports(package: str, source: str) -> dict[str, str]:
    """Exported name -> the module defining it, from the ``if TYPE_CHECKING:`` blocks of ``source``."""
    exports: dict[str, str] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or statement.module is None:
                raise FacadeDeclarationError(
                    f"{package}: line {statement.lineno} of its TYPE_CHECKING block is not 'from <module> import <names>'"
                )
            module = statement.module
            if statement.level:  # a relative import: resolved against the facade's own package
                module = importlib.util.resolve_name("." * statement.level + module, package)
            for alias in statement.names:
                exports[alias.asname or alias.name] = module
    return exports
