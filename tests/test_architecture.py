"""Layers are law: a module imports only its own layer and the layers before it.

messages → model → loop → runtime → tools/session → notebook → testing. The core never imports
Jupyter or widget packages, and litellm is imported only in model/litellm* modules, lazily.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "jupyter_agent"
LAYERS = {"messages": 0, "model": 1, "loop": 2, "runtime": 3, "tools": 4, "session": 4, "notebook": 5, "testing": 6}
CORE = {"messages", "model", "loop", "runtime"}
JUPYTER = {"IPython", "ipywidgets", "ipykernel", "jupyter_client", "jupyter_server", "comm", "traitlets", "nbformat"}


def layer_of(path: pathlib.Path) -> str | None:
    relative = path.relative_to(PACKAGE)
    first = relative.parts[0]
    return "messages" if first == "messages.py" else (first if first in LAYERS else None)


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
                parts = module.split(".")
                target = parts[1] if len(parts) > 1 else None
                target = "messages" if target == "messages" else target
                if target is None or target not in LAYERS:
                    found.append(f"{name} imports the package root {module}")
                elif LAYERS[target] > LAYERS[layer]:
                    found.append(f"{name} ({layer}) imports upward: {module}")
            elif root in JUPYTER:
                if layer in CORE or layer == "session" or (layer == "tools" and top_level):
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
    (fake / "loop" / "bad.py").write_text("import IPython\nfrom jupyter_agent.runtime import run_agent\n")
    (fake / "model" / "litellm_x.py").write_text("import litellm\n")
    (fake / "model" / "other.py").write_text("def f():\n    import litellm\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    assert sorted(violations()) == [
        "loop/bad.py (loop) imports IPython",
        "loop/bad.py (loop) imports upward: jupyter_agent.runtime",
        "model/litellm_x.py imports litellm at module level (must be lazy)",
        "model/other.py imports litellm outside model/litellm*",
    ]


@pytest.mark.parametrize("heavy", ["litellm", "IPython", "ipywidgets", "openai"])
def test_importing_the_package_imports_nothing_heavy(heavy):
    code = f"import jupyter_agent, sys; print({heavy!r} in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert output.returncode == 0, output.stderr
    assert output.stdout.strip() == "False"
