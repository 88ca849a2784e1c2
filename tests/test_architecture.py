"""Layers are law: a module imports only its own layer and the layers before it.

messages → model → loop → runtime → tools → session → features → notebook → testing. The core
never imports Jupyter or widget packages, and litellm is imported only in model/litellm* modules,
lazily. A feature's ``view.py`` (``features/<name>/view.py``) draws the feature in the panel: it
belongs to the notebook layer, so only the notebook layer (other views included) imports it.
Sessions import no Jupyter package at all; tools and features only inside functions.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "jupyter_agent"
LAYERS = {
    "messages": 0,
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
    return "messages" if first == "messages.py" else (first if first in LAYERS else None)


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
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert sorted(violations()) == [
        "features/plan/state.py (features) imports ipywidgets",
        "features/plan/state.py (features) imports upward: jupyter_agent.features.plan.view",
        "features/plan/state.py (features) imports upward: jupyter_agent.notebook",
        "loop/bad.py (loop) imports IPython",
        "loop/bad.py (loop) imports upward: jupyter_agent.runtime",
        "model/litellm_x.py imports litellm at module level (must be lazy)",
        "model/other.py imports litellm outside model/litellm*",
        "tools/up.py (tools) imports upward: jupyter_agent.session",
    ]


@pytest.mark.parametrize("heavy", ["litellm", "IPython", "ipywidgets", "openai"])
def test_importing_the_package_imports_nothing_heavy(heavy):
    code = f"import jupyter_agent, sys; print({heavy!r} in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert output.returncode == 0, output.stderr
    assert output.stdout.strip() == "False"


MAX_MODULE_LINES = 400


def test_no_module_is_over_400_lines():
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
