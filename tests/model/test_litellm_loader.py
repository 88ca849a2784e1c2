"""litellm is imported lazily, in a background thread, without blocking the event loop."""

import json
import subprocess
import sys
import textwrap
import threading

import anyio
import pytest

from jupyter_agent import Context, Model, UserMessage
from jupyter_agent.model import litellm_loader
from jupyter_agent.model.litellm_stream import litellm_stream
from jupyter_agent.testing.waiting import wait_until

FRESH_PROCESS = textwrap.dedent("""
    import asyncio, json, os, sys, threading, time
    os.environ.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)
    os.environ.pop("MAX_BASE64_LENGTH_FOR_LOGGING", None)
    import jupyter_agent
    from jupyter_agent.model.litellm_loader import preload_litellm
    jupyter_agent.litellm_stream, jupyter_agent.get_model  # resolve the lazy names
    report = {"imported_by_package": "litellm" in sys.modules}

    async def main():
        from jupyter_agent.model.litellm_loader import litellm_module
        preload_litellm()
        preload_litellm()  # idempotent
        report["preload_threads"] = sum(t.name == "litellm-preload" for t in threading.enumerate())
        ticks, gaps, done = [time.perf_counter()], [], False

        async def ticker():
            while not done:
                await asyncio.sleep(0.01)
                gaps.append(time.perf_counter() - ticks[-1])
                ticks.append(time.perf_counter())

        task = asyncio.create_task(ticker())
        started = time.perf_counter()
        module = await litellm_module()
        report["wait"] = time.perf_counter() - started
        done = True
        await task
        report["ticks"], report["max_gap"] = len(gaps), max(gaps)
        report["suppressed"] = module.suppress_debug_info
        report["cost_map_env"] = os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP")
        # A response's success logging keeps the request's messages as they are: no copy of a long session.
        from litellm.litellm_core_utils.logging_utils import truncate_base64_in_messages_async
        messages = [{"role": "user", "content": "x" * 300_000}, {"role": "user", "content": "data:image/png;base64," + "A" * 999}]
        report["log_copy"] = (await truncate_base64_in_messages_async(messages)) is not messages

    asyncio.run(main())
    print(json.dumps(report))
""")


def test_the_package_imports_no_litellm_and_the_preload_leaves_the_loop_running():
    output = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True, text=True, timeout=120)
    assert output.returncode == 0, output.stderr
    report = json.loads(output.stdout)
    assert report["imported_by_package"] is False
    assert report["preload_threads"] == 1
    assert report["suppressed"] is True and report["cost_map_env"] == "True" and report["log_copy"] is False
    # The import takes seconds; the loop kept ticking every ~10 ms meanwhile instead of freezing.
    assert report["wait"] > 0.5
    assert report["ticks"] >= 10 and report["max_gap"] < report["wait"] / 2
    assert "Provider List" not in output.stdout + output.stderr


@pytest.fixture
def unimportable_litellm(monkeypatch):
    """The loader in a fresh state, with ``import litellm`` failing."""
    monkeypatch.setattr(litellm_loader, "_module", None)
    monkeypatch.setattr(litellm_loader, "_thread", None)
    monkeypatch.setattr(litellm_loader, "_failure", None)
    monkeypatch.setitem(sys.modules, "litellm", None)  # makes "import litellm" raise ImportError


def test_a_failed_import_is_reported_to_every_waiter(unimportable_litellm):
    for _ in range(2):
        with pytest.raises(ImportError, match="^litellm could not be imported: "):
            litellm_loader.litellm_module_sync()


@pytest.mark.anyio
async def test_a_failed_import_ends_the_stream_with_an_error_instead_of_hanging(unimportable_litellm):
    stream = litellm_stream(Model(id="m"), Context(messages=[UserMessage(content="hi")]))
    events = [event async for event in stream]
    assert [event.type for event in events] == ["error"]
    assert events[0].error.error_message.startswith("openai: unexpected error (ImportError): litellm could not be imported")


@pytest.mark.anyio
async def test_an_abort_while_litellm_is_still_importing_ends_the_stream_at_once(monkeypatch):
    release, waited_on = threading.Event(), threading.Event()

    class SlowImport(threading.Thread):
        def join(self, timeout: float | None = None) -> None:
            waited_on.set()
            super().join(timeout)

    slow_import = SlowImport(target=release.wait, args=(30,), daemon=True)
    slow_import.start()
    monkeypatch.setattr(litellm_loader, "_module", None)
    monkeypatch.setattr(litellm_loader, "_thread", slow_import)
    try:
        stream = litellm_stream(Model(id="m"), Context(messages=[UserMessage(content="hi")]))
        await wait_until(waited_on.is_set, what="the producer to wait for the import")
        await stream.aclose()
        with anyio.fail_after(1):
            result = await stream.result()
        assert result.stop_reason == "aborted"
    finally:
        release.set()


def test_once_loaded_the_module_is_returned_without_waiting(litellm):
    assert litellm_loader.is_litellm_loaded()
    assert litellm_loader.litellm_module_sync() is litellm


def test_the_import_runs_with_the_collector_paused_and_json_in_python_and_leaves_litellm_frozen(monkeypatch):
    import gc
    import importlib.abc
    import importlib.machinery

    seen = {}

    class FakeLitellm(importlib.abc.Loader):
        def create_module(self, spec):
            return None

        def exec_module(self, module):
            seen["collector during the import"] = gc.isenabled()
            seen["json in Python during the import"] = json.loads.__module__ == "jupyter_agent.model.yielding_json"
            module.suppress_debug_info = False

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            return importlib.machinery.ModuleSpec(name, FakeLitellm()) if name == "litellm" else None

    monkeypatch.delitem(sys.modules, "litellm", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    for name, value in (("_module", None), ("_thread", None), ("_failure", None)):
        monkeypatch.setattr(litellm_loader, name, value)
    frozen_before = gc.get_freeze_count()
    assert gc.isenabled()
    try:
        module = litellm_loader.litellm_module_sync()
        assert seen == {"collector during the import": False, "json in Python during the import": True}
        assert module.suppress_debug_info is True
        assert gc.isenabled()
        assert gc.get_freeze_count() > frozen_before
    finally:
        gc.unfreeze()
