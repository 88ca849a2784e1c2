"""JupyterLab on 127.0.0.1 with a copy of the quick-start, and headless Debian Chromium driving it.

Chromium is Debian's package (``.ci/run`` installs it); Playwright never downloads a browser.
Without chromium the tests are skipped with the reason, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from jupyter_agent.testing.waiting import wait_until_serving

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # browser_helpers, for several modules
from browser_helpers import free_port, stop_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
PAGE_WAIT_MS = 60_000  # any single UI wait: a turn of the demo model takes a few seconds
LAB_START_TIMEOUT = 90  # measured ~5 s on an idle 2-core machine; CI machines are busier
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(config, items):
    if os.path.exists(CHROMIUM) or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason=f"Debian chromium is not installed at {CHROMIUM} (apt-get install chromium; CI installs it)")
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(skip)


def lab_command(port: int, root: pathlib.Path, *options: str) -> list[str]:
    """``jupyter lab`` on 127.0.0.1 without token, browser, news or update checks, serving ``root``."""
    return [
        sys.executable,
        "-m",
        "jupyterlab",
        "--allow-root",
        "--no-browser",
        f"--port={port}",
        "--ip=127.0.0.1",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        *options,
    ]


@pytest.fixture(scope="session")
def lab_server_command():
    """``lab_command`` for the browser test modules that start a JupyterLab of their own."""
    return lab_command


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server whose root holds the quick-start notebook; yields its base URL."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    for name in ("quickstart.ipynb", "sales.csv"):
        shutil.copy(ROOT / "notebooks" / name, root / name)
    _write_settings(base / "settings")
    port = free_port()
    extensions = _this_checkouts_extension(base)
    env = {
        **os.environ,
        "HOME": str(base / "home"),
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(base / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        "JUPYTER_AGENT_MODEL": "demo",  # the quick-start's no-key path, deterministic
        "JUPYTER_AGENT_DEMO_DELAY": "0.03",  # slow enough to watch the text stream
    }
    for key in [k for k in env if k.endswith("_API_KEY")]:
        del env[key]
    log = open(base / "lab.log", "w")
    process = subprocess.Popen(
        [
            *lab_command(port, root),
            *extensions,
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process)
        yield url
    finally:
        stop_server(process)
        log.close()


def _this_checkouts_extension(base: pathlib.Path) -> list[str]:
    """The lab extension built in this checkout, ahead of any installed copy (same name: the first wins).

    An editable install copies the extension into the Python prefix once; the tests must load the one
    built from these sources (``cd labextension && jlpm build:prod``), in CI and in any worktree.
    """
    built = ROOT / "jupyter_agent" / "labextension"
    if not (built / "package.json").is_file():
        return []
    folder = base / "labextensions"
    folder.mkdir()
    (folder / "jupyter-agent-labextension").symlink_to(built, target_is_directory=True)
    return [f"--LabApp.extra_labextensions_path={folder}"]


@pytest.fixture(scope="module")
def checkout_extension_args(tmp_path_factory) -> list[str]:
    """``jupyter lab`` options that load this checkout's build of the extension (see above)."""
    return _this_checkouts_extension(tmp_path_factory.mktemp("extensions"))


def _write_settings(folder: pathlib.Path) -> None:
    """No news toast over the panel; every cell attached to the DOM so locators can reach it."""
    settings = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for name, values in settings.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def _wait_until_up(url: str, process: subprocess.Popen) -> None:
    wait_until_serving(f"{url}/api/status", process, LAB_START_TIMEOUT, "jupyter lab")


def launch_chromium(playwright, profile: pathlib.Path, viewport: dict[str, int]):
    """Debian's Chromium, headless, with its own profile folder: every browser test starts it so."""
    return playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, viewport=viewport
    )


@pytest.fixture(scope="session")
def chromium_launcher():
    return launch_chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One Chromium for a module whose tests each open a page of their own (``page``)."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium")
    with sync_playwright() as playwright:
        context = launch_chromium(playwright, profile, {"width": 1400, "height": 900})
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser):
    """A fresh page of ``browser``; the test fails on any console error it logged."""
    page = browser.new_page()
    page.set_default_timeout(PAGE_WAIT_MS)
    page.console_errors = []
    failed = []  # names the resources behind "Failed to load resource" errors
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))
    page.on("response", lambda response: response.status >= 400 and failed.append(f"{response.status} {response.url}"))
    yield page
    errors = page.console_errors
    page.close()
    assert errors == [], f"browser console errors: {errors}; failed requests: {failed}"


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = launch_chromium(playwright, profile, {"width": 1280, "height": 900})
        page = context.new_page()
        page.console_errors = []
        page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
        page.on("pageerror", lambda error: page.console_errors.append(str(error)))
        # A pause for the waiting helpers that lets Playwright deliver the page's events meanwhile
        # (a plain sleep would hold them until the next call into the page).
        page.pause_events = lambda seconds: page.wait_for_timeout(seconds * 1000)
        try:
            yield page
        finally:
            context.close()
