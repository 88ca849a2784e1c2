"""``CompletionThread``: the completions' own thread and event loop, away from the kernel's.

A completion does nothing the kernel's loop needs: it reads the namespace statically (no user
code runs), builds a prompt, reads a model's HTTP stream and sends each piece over the comm (the
kernel's iopub socket takes sends from any thread). On the kernel's loop that work would queue
behind the cells and the turns, and they behind it: each request's pre-request work (~20–40 ms
with litellm) and every chunk would delay a ``1+1`` typed meanwhile. On a thread of its own it
waits for nothing the kernel does, and the kernel's loop never sees it.

The thread starts with the first call and lives until ``close``; it is a daemon, so a kernel
that exits without closing it is not held up.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Awaitable, Callable, TypeVarTuple

_Args = TypeVarTuple("_Args")

CLOSE_TIMEOUT = 5.0  # seconds ``close`` waits for the thread: its streams end within one read


class CompletionThread:
    def __init__(self, name: str = "jupyter-agent-completion") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def ident(self) -> int | None:
        """The thread's identifier once it started (``threading.get_ident()`` there)."""
        return self._thread.ident if self._thread is not None else None

    def on_thread(self) -> bool:
        """Whether the caller runs on this thread (its loop)."""
        return self._thread is not None and threading.current_thread() is self._thread

    def call(self, function: Callable[[*_Args], object], *args: *_Args) -> None:
        """Calls ``function(*args)`` on the thread's loop, soon (at once when already there)."""
        loop = self._started()
        if self.on_thread():
            function(*args)
        else:
            loop.call_soon_threadsafe(function, *args)

    def close(self, cleanup: Callable[[], Awaitable[None]] | None = None) -> None:
        """Cancels what runs there, awaits ``cleanup`` (closing HTTP clients) on the loop, stops it."""
        with self._lock:
            loop, thread, self._closed = self._loop, self._thread, True
        if loop is None or thread is None or not thread.is_alive():
            return

        async def wind_down() -> None:
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if cleanup is not None:
                try:
                    await cleanup()
                except Exception:  # noqa: BLE001 - a client that fails to close must not keep the thread
                    pass
            asyncio.get_running_loop().stop()

        loop.call_soon_threadsafe(lambda: loop.create_task(wind_down()))
        if threading.current_thread() is not thread:
            thread.join(CLOSE_TIMEOUT)

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise RuntimeError("the completion thread is closed")
            if self._loop is None:
                ready = threading.Event()
                loop = asyncio.new_event_loop()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    ready.set()
                    try:
                        loop.run_forever()
                        loop.run_until_complete(loop.shutdown_asyncgens())
                    finally:
                        loop.close()

                self._thread = threading.Thread(target=run, name=self.name, daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop


__all__ = ["CLOSE_TIMEOUT", "CompletionThread"]
