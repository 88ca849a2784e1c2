"""Layers are law: a module imports only its own layer and the layers before it.

messages (and files, errors, long_lived, lazy_facade) → model → loop → runtime → tools → session → features → notebook → testing;
sessions import nothing of the tools. The core
never imports Jupyter or widget packages, and litellm is imported only in model/litellm* modules,
lazily. A feature's ``view.py`` (``features/<name>/view.py``) draws the feature in the panel: it
belongs to the notebook layer, so only the notebook layer (other views included) imports it.
Sessions import no Jupyter package at all; tools and features only inside functions.
"""

import ast
import pathlib
import re
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "jupyter_agent"
LAYERS = {
    "messages": 0,
    "files": 0,
    "errors": 0,
    "long_lived": 0,
    "lazy_facade": 0,
    "model": 1,
    "loop": 2,
    "runtime": 3,
    "tools": 4,
    "session": 5,
    "features": 6,
    "notebook": 7,
    "testing": 8,
}
CORE = {"messages", "model", "loop", "runtime"}
JUPYTER = {"IPython", "ipywidgets", "ipykernel", "jupyter_client", "jupyter_server", "comm", "traitlets", "nbformat"}


def layer_of(path: pathlib.Path) -> str | None:
    relative = path.relative_to(PACKAGE)
    first = relative.parts[0]
    if is_view(relative.with_suffix("").parts):
        return "notebook"
    if len(relative.parts) == 1:
        return relative.stem if relative.stem in LAYERS else None  # messages.py, files.py, long_lived.py, lazy_facade.py
    return first if first in LAYERS else None


def is_view(parts: tuple[str, ...]) -> bool:
    """``features/<name>/view``: a feature's panel view, part of the notebook layer."""
    return len(parts) == 3 and parts[0] == "features" and parts[2] == "view"


def target_layer(parts: list[str]) -> str | None:
    """The layer of an imported ``jupyter_agent`` module, from its dotted name without the root."""
    if is_view(tuple(parts[:3])):
        return "notebook"
    return parts[0] if parts and parts[0] in LAYERS else None


def imports(path: pathlib.Path):
    """(module name, is top level) for every import in the file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in top_level
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, id(node) in top_level


def violations():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = layer_of(path)
        if layer is None:
            continue
        name = str(path.relative_to(PACKAGE))
        for module, top_level in imports(path):
            root = module.split(".")[0]
            if root == "jupyter_agent":
                target = target_layer(module.split(".")[1:])
                if target is None:
                    found.append(f"{name} imports the package root {module}")
                elif LAYERS[target] > LAYERS[layer]:
                    found.append(f"{name} ({layer}) imports upward: {module}")
                elif layer == "session" and target == "tools":
                    # Sessions keep files, not tools: what both need (atomic_write) is in files.py.
                    found.append(f"{name} (session) imports the tools layer: {module}")
            elif root in JUPYTER:
                if layer in CORE or layer == "session" or (layer in ("tools", "features") and top_level):
                    found.append(f"{name} ({layer}) imports {module}")
            elif root == "litellm":
                if not (layer == "model" and path.name.startswith("litellm")):
                    found.append(f"{name} imports litellm outside model/litellm*")
                elif top_level:
                    found.append(f"{name} imports litellm at module level (must be lazy)")
    return found


def test_no_module_imports_upward_or_outside_its_layer():
    assert violations() == []


def test_the_checker_catches_violations(tmp_path, monkeypatch):
    fake = tmp_path / "jupyter_agent"
    (fake / "loop").mkdir(parents=True)
    (fake / "model").mkdir()
    (fake / "tools").mkdir()
    (fake / "features" / "plan").mkdir(parents=True)
    (fake / "loop" / "bad.py").write_text("import IPython\nfrom jupyter_agent.runtime import run_agent\n")
    (fake / "tools" / "up.py").write_text("from jupyter_agent.session import SessionStore\n")
    (fake / "features" / "plan" / "state.py").write_text(
        "import ipywidgets\nfrom jupyter_agent.features.plan.view import PlanView\nfrom jupyter_agent.notebook import x\n"
    )
    (fake / "features" / "plan" / "view.py").write_text("import ipywidgets\nfrom jupyter_agent.notebook.panel import shared\n")
    (fake / "model" / "litellm_x.py").write_text("import litellm\n")
    (fake / "model" / "other.py").write_text("def f():\n    import litellm\n")
    (fake / "session").mkdir()
    (fake / "session" / "store.py").write_text("from jupyter_agent.tools.regular_file import current_umask\n")
    (fake / "files.py").write_text("from jupyter_agent.loop import x\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert sorted(violations()) == [
        "features/plan/state.py (features) imports ipywidgets",
        "features/plan/state.py (features) imports upward: jupyter_agent.features.plan.view",
        "features/plan/state.py (features) imports upward: jupyter_agent.notebook",
        "files.py (files) imports upward: jupyter_agent.loop",
        "loop/bad.py (loop) imports IPython",
        "loop/bad.py (loop) imports upward: jupyter_agent.runtime",
        "model/litellm_x.py imports litellm at module level (must be lazy)",
        "model/other.py imports litellm outside model/litellm*",
        "session/store.py (session) imports the tools layer: jupyter_agent.tools.regular_file",
        "tools/up.py (tools) imports upward: jupyter_agent.session",
    ]


@pytest.mark.parametrize("heavy", ["litellm", "IPython", "ipywidgets", "openai"])
def test_importing_the_package_imports_nothing_heavy(heavy):
    code = f"import jupyter_agent, sys; print({heavy!r} in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert output.returncode == 0, output.stderr
    assert output.stdout.strip() == "False"


# -- no private reach ----------------------------------------------------------------------------
# A module uses only its own private names: no ``from jupyter_agent.x import _y``, and no
# ``obj._y`` (``module._y``) of a private name another module of the package defines but this one
# does not (on ``self``/``cls``, as a function, class, argument or module-level name). Libraries'
# private names (pandas' ``_mgr``, IPython's ``_showtraceback``) are outside the rule; the
# panel's nodes mirror ipywidgets' ``_dom_classes`` trait, which every part sets.
LIBRARY_PRIVATE = {"_dom_classes"}


def defined_private_names(tree):
    """The private names a module defines: functions, classes, module and class-level names,
    and attributes it sets on ``self`` or ``cls``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.keyword) and node.arg:
            names.add(node.arg)  # a dataclass field given by name, a trait set at construction
    return {name for name in names if name.startswith("_")}


def private_reaches(path, package_private):
    """(line, what) for every private name of another module of the package this module uses."""
    tree = ast.parse(path.read_text(), filename=str(path))
    own = defined_private_names(tree)
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in ("jupyter_agent", package_private[1])
        ):
            for alias in node.names:
                if _is_private(alias.name):
                    found.append((node.lineno, f"imports {alias.name} from {node.module}"))
        elif (
            isinstance(node, ast.Attribute)
            and _is_private(node.attr)
            and node.attr in package_private[0]
            and node.attr not in LIBRARY_PRIVATE
        ):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and node.value.func.id == "super":
                continue
            if node.attr not in own:
                found.append((node.lineno, f"uses {ast.unparse(node)}"))
    return sorted(found)


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reach_violations(package=None):
    package = package or PACKAGE
    paths = sorted(package.rglob("*.py"))
    defined = set()
    for path in paths:
        defined |= defined_private_names(ast.parse(path.read_text(), filename=str(path)))
    return [
        f"{path.relative_to(package)}:{line} {what}"
        for path in paths
        for line, what in private_reaches(path, (defined, package.name))
    ]


def test_no_module_reaches_into_another_modules_private_names():
    assert private_reach_violations() == []


def test_the_private_reach_checker_catches_each_kind(tmp_path):
    (tmp_path / "b.py").write_text(
        "_cache = {}\n\ndef _helper():\n    pass\n\nclass Panel:\n    def _end_streams(self):\n        pass\n"
    )
    (tmp_path / "a.py").write_text(
        f"from {tmp_path.name}.b import _helper\n"
        "import b\n"
        "class Panel:\n"
        "    def __init__(self):\n"
        "        self._mine = 1\n"
        "    def use(self, other):\n"
        "        b._cache.clear()\n"
        "        other._end_streams()\n"
        "        return self._mine + other._mine + super()._base() + other._library_private\n"
    )
    assert private_reach_violations(tmp_path) == [
        f"a.py:1 imports _helper from {tmp_path.name}.b",
        "a.py:7 uses b._cache",
        "a.py:8 uses other._end_streams",
    ]


# -- long functions --------------------------------------------------------------------------------
# A function over ~60 lines usually does several things; it is named in a warning (not a failure:
# a long but linear function, a table or a state machine may read best whole).
LONG_FUNCTION_LINES = 60


def long_functions(package=None):
    package = package or PACKAGE
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONG_FUNCTION_LINES:
                    found.append(f"{path.relative_to(package)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_functions_over_60_lines_are_named_in_a_warning(tmp_path, recwarn):
    import warnings

    (tmp_path / "long.py").write_text("def f():\n" + "    x = 1\n" * 70 + "def g():\n    return 1\n")
    assert long_functions(tmp_path) == ["long.py:1 f (71 lines)"]
    found = long_functions()
    if found:
        warnings.warn(f"functions over {LONG_FUNCTION_LINES} lines: " + "; ".join(found), stacklevel=1)


# -- the feature rule ------------------------------------------------------------------------------
# A feature is one package behind one contract (features/feature.py), listed in features/registry.py.
# The turn's machinery (runner, toolset, renderers, panel, views) reaches features only through
# the registry and the contract; a feature's view module is loaded by the view registry alone.
FEATURE_MACHINERY = ("notebook/runner.py", "notebook/toolset.py", "notebook/renderer.py", "notebook/views.py", "notebook/panel/")
CONTRACT = {"feature", "registry", "settings", "turn_features", "frontend"}


def feature_packages(package=None):
    package = package or PACKAGE
    return sorted(path.name for path in (package / "features").iterdir() if (path / "__init__.py").exists())


def feature_rule_violations(package=None):
    package = package or PACKAGE
    features = set(feature_packages(package))
    found = []
    for path in sorted(package.rglob("*.py")):
        name = str(path.relative_to(package))
        own = path.relative_to(package).parts[1] if name.startswith("features/") and len(path.parts) > 1 else None
        for module, _top in imports(path):
            parts = module.split(".")
            if parts[:2] != ["jupyter_agent", "features"] or len(parts) < 3 or parts[2] in CONTRACT:
                continue
            feature = parts[2]
            if name.startswith(FEATURE_MACHINERY):
                found.append(f"{name} imports the feature {module} (reach it through the registry)")
            elif parts[3:4] == ["view"] and own != feature:
                found.append(f"{name} imports the view {module} (the view registry loads it)")
            elif own in features and own != feature:
                found.append(f"{name} imports another feature: {module}")
    return found


def test_features_are_reached_through_the_registry_and_the_contract():
    assert feature_rule_violations() == []


def test_every_feature_package_is_registered_with_its_contract_and_views():
    import importlib

    from jupyter_agent.features.feature import Feature
    from jupyter_agent.features.registry import FEATURES

    registered = {type(feature).__module__.split(".")[2] for feature in FEATURES}
    assert registered == set(feature_packages())
    assert all(isinstance(feature, Feature) for feature in FEATURES)
    assert len({feature.name for feature in FEATURES}) == len(FEATURES)
    for feature in FEATURES:
        if feature.view:
            assert feature.view.startswith(f"jupyter_agent.features.{type(feature).__module__.split('.')[2]}.")
            assert hasattr(importlib.import_module(feature.view), "VIEWS"), feature.view


def test_the_feature_rule_checker_catches_each_kind(tmp_path):
    fake = tmp_path / "jupyter_agent"
    for folder in ("features/plan", "features/memory", "notebook/panel"):
        (fake / folder).mkdir(parents=True)
    for package in ("features/plan", "features/memory"):
        (fake / package / "__init__.py").write_text("")
    (fake / "notebook" / "runner.py").write_text("from jupyter_agent.features.plan.state import PlanState\n")
    (fake / "notebook" / "panel" / "panel.py").write_text("from jupyter_agent.features.registry import FEATURES\n")
    (fake / "notebook" / "subcommands.py").write_text("from jupyter_agent.features.plan.view import plan_report\n")
    (fake / "features" / "memory" / "tool.py").write_text("from jupyter_agent.features.plan.state import PlanState\n")
    (fake / "features" / "plan" / "feature.py").write_text("from jupyter_agent.features.plan.view import X\n")
    assert feature_rule_violations(fake) == [
        "features/memory/tool.py imports another feature: jupyter_agent.features.plan.state",
        "notebook/runner.py imports the feature jupyter_agent.features.plan.state (reach it through the registry)",
        "notebook/subcommands.py imports the view jupyter_agent.features.plan.view (the view registry loads it)",
    ]


# Files the map names that are the user's, not the project's (made beside a notebook at run time).
_USER_FILES = {"MEMORY.md"}


def _named_paths(text: str) -> set[str]:
    """The file paths ``docs/architecture.md`` names in backticks (``path.py`` or ``path.py:name``)."""
    return set(re.findall(r"`([A-Za-z0-9_./-]+\.(?:py|ts|js|md))(?::[A-Za-z_.]+)?`", text))


def _missing(paths: set[str], root: pathlib.Path) -> list[str]:
    """A path with a folder must exist under one of the places the map speaks from; a bare file name
    (a table row names its package once) must be some file of the package or the extension."""
    bases = [root, root / "jupyter_agent", root / "jupyter_agent" / "notebook", root / "docs", root / "labextension"]
    names = {path.name for pattern in ("jupyter_agent/**/*", "labextension/src/**/*", "docs/*") for path in root.glob(pattern)}
    return sorted(
        path
        for path in paths - _USER_FILES
        if not (any((base / path).exists() for base in bases) if "/" in path else path in names)
    )


def test_every_module_path_the_architecture_map_names_exists():
    root = pathlib.Path(__file__).resolve().parents[1]
    paths = _named_paths((root / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert len(paths) > 50  # the map names the modules it describes
    assert _missing(paths, root) == []


def test_the_map_checker_catches_a_moved_module(tmp_path):
    (tmp_path / "jupyter_agent" / "features").mkdir(parents=True)
    (tmp_path / "jupyter_agent" / "features" / "feature.py").write_text("")
    named = _named_paths("`features/feature.py`, `features/registry.py:FEATURES`, `feature.py`, `gone.py`, `MEMORY.md`")
    assert _missing(named, tmp_path) == ["features/registry.py", "gone.py"]
