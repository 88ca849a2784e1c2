from types import SimpleNamespace

from jupyter_agent.notebook.frontend import blocks, frontend_mode, show, wait_option


def shell(kind):
    fake = SimpleNamespace(user_ns={"__vsc_ipynb_file__": "/x/a.ipynb"} if kind == "vscode" else {})
    if kind != "terminal":
        fake.kernel = object()
    return fake


def test_frontend_modes():
    assert frontend_mode(shell("kernel"), {"JPY_SESSION_NAME": "/x/a.ipynb"}) == "panel"
    assert frontend_mode(shell("vscode"), {}) == "panel"
    assert frontend_mode(shell("kernel"), {}) == "static"  # nbclient, papermill, nbconvert
    assert frontend_mode(shell("terminal"), {}) == "terminal"


def test_blocking_rules():
    assert blocks("terminal", False, False)  # nothing else could show the turn
    assert blocks("static", None, False) and not blocks("static", False, False)
    assert not blocks("panel", None, False) and blocks("panel", True, False) and blocks("panel", None, True)


def test_wait_option_last_one_wins():
    assert wait_option(["-m", "x", "--wait", "--no-wait"]) is False
    assert wait_option(["--wait"]) is True and wait_option([]) is None


def test_show_displays_only_widgets(capsys):
    show(SimpleNamespace())  # a renderer without a widget prints as it goes: nothing to display
    assert capsys.readouterr().out == ""
