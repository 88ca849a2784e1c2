"""Making many objects that live as long as the kernel: the garbage collector paused, what lives frozen.

Imports (litellm's ~450 000 objects, the modules of a turn) and reading a long session (some
300 000 objects for 20 000 messages) make objects in a burst that then live on. Made with the
collector running, they set off collection after collection that free nothing and scan the heap
each time; kept, they make every later full collection (0.1–0.3 s, a stall of whichever thread runs
it, the kernel's loop included) scan them again. So such work runs with the collector paused, and
what lives after it moves to the permanent generation (``gc.freeze()``), which collections no
longer scan. Garbage among what lives then (made meanwhile, or the kernel's own) is never
collected; a kernel's worth of that is small.

Standard library only: the model layer (litellm's import) and the sessions both use it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# A pass that makes values for this many messages or more at once (a long session's first request)
# pauses the collector: fewer make a few thousand objects, which a collection scans in no time.
MANY_NEW_VALUES = 1_000


@contextmanager
def long_lived_objects(enabled: bool = True) -> Iterator[None]:
    """Pauses the collector for the ``with`` block and freezes what lives after it (when ``enabled``)."""
    if not enabled or not gc.isenabled():
        yield  # little to make; or someone else paused the collector and will resume it
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


__all__ = ["MANY_NEW_VALUES", "long_lived_objects"]
