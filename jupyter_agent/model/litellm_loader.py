"""Lazy, off-loop import of litellm: the only place that imports it.

Importing litellm costs about 8 s on a small machine, so it is never imported at
``import jupyter_agent`` time. ``preload_litellm()`` starts the import in a daemon thread (the
notebook extension calls it at ``%load_ext``); ``litellm_module()`` waits for it from async code
without blocking the event loop; ``litellm_module_sync()`` waits for it from plain code.

The import creates ~450 000 objects. Python's cyclic garbage collector runs in whichever thread
allocates, holding the interpreter lock: during the import its full collections (0.15–0.3 s each)
froze the kernel's main thread, and afterwards every full collection scanned litellm's objects
again. So the collector is paused while the import runs and the imported objects are then moved
to the permanent generation (``gc.freeze()``), which collections no longer scan.

After each response litellm's success logging used to copy every message of the request (to cut
base64 images in its log payloads), on the kernel's loop: the import sets litellm's own switch for
that (``MAX_BASE64_LENGTH_FOR_LOGGING``) to 0 unless the user set it.

The import also parses litellm's price table and tokenizer (5 MB of JSON); the C parser holds the
interpreter lock for a whole document, so the import thread parses them in Python
(``yielding_json``), which lets the kernel answer cells in between.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import warnings
from types import ModuleType

import anyio.to_thread

from jupyter_agent.long_lived import long_lived_objects
from jupyter_agent.model.yielding_json import yielding_json

# While the import runs, the kernel's threads wait this long (not 5 ms) for the interpreter lock
# each time they give it up: a cell's reply passes it between threads dozens of times.
IMPORT_SWITCH_INTERVAL = 0.0005

# litellm's setting: base64 payloads longer than this are cut in log payloads; 0 (ours): no copy.
NO_LOG_COPY_VARIABLE = "MAX_BASE64_LENGTH_FOR_LOGGING"

_lock = threading.Lock()
_thread: threading.Thread | None = None
_module: ModuleType | None = None
_failure: BaseException | None = None


def preload_litellm() -> None:
    """Starts importing litellm in a background daemon thread; calling it again does nothing."""
    global _thread
    with _lock:
        if _thread is not None or _module is not None:
            return
        _thread = threading.Thread(target=_import, name="litellm-preload", daemon=True)
        _thread.start()


def _import() -> None:
    global _module, _failure
    # Without this, importing litellm makes a synchronous fetch of the remote price map (5 s
    # timeout) and retries in the background with WARNINGs; a user's explicit setting wins.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    # After each response litellm's success logging copies every message of the request, to cut
    # base64 images short in its log payloads: 0.3 s on the kernel's loop at 20 000 messages, and
    # some 80 000 objects for the collector, in a notebook that has no logger at all. Without the
    # user's own setting, log payloads get the messages as they were sent (images whole).
    os.environ.setdefault(NO_LOG_COPY_VARIABLE, "0")
    # litellm's own TypedDicts make pydantic warn when their schemas are first built, which
    # would print into whatever notebook cell happens to be running: noise for the user.
    warnings.filterwarnings("ignore", message=r".*using the `ReadOnly` qualifier", category=UserWarning)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, IMPORT_SWITCH_INTERVAL))
    try:
        # Whatever lives after it (litellm's modules, classes and tables, and the objects of the
        # kernel) is long-lived: frozen, later collections skip it (``long_lived``).
        with long_lived_objects(), yielding_json():  # its big JSON documents would otherwise hold the lock for 30-160 ms each
            import litellm

            # Otherwise cost lookups of unmapped models print "Provider List: ..." into the cell.
            litellm.suppress_debug_info = True
            logging.getLogger("LiteLLM").addFilter(_quiet_intended_merge)
        _module = litellm
    except BaseException as error:  # noqa: BLE001 - re-raised to every caller that waits
        _failure = error
    finally:
        sys.setswitchinterval(interval)


# A step's context follows its tool results as a user message (``litellm_convert``). For Bedrock's
# Converse API litellm merges the two into one user turn, which is what is meant, and logs a
# WARNING into the running cell every time it does.
INTENDED_MERGE_WARNING = "Potential consecutive user/tool blocks"


def _quiet_intended_merge(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith(INTENDED_MERGE_WARNING)


def _ready() -> ModuleType:
    if _failure is not None:
        raise ImportError(f"litellm could not be imported: {_failure}") from _failure
    assert _module is not None
    return _module


def litellm_module_sync() -> ModuleType:
    """The litellm module, importing it (in this thread's time) if it is not loaded yet."""
    if _module is not None:
        return _module
    preload_litellm()
    assert _thread is not None
    _thread.join()
    return _ready()


async def litellm_module() -> ModuleType:
    """The litellm module; while the import runs, waits in a worker thread so the loop stays free."""
    if _module is not None:
        return _module
    preload_litellm()
    assert _thread is not None
    # abandon_on_cancel: an abort during the import must not wait for the import to finish.
    await anyio.to_thread.run_sync(_thread.join, abandon_on_cancel=True)
    return _ready()


def is_litellm_loaded() -> bool:
    return _module is not None
