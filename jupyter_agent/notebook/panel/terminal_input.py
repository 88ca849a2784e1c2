"""One line from the terminal, read on the event loop so that cancelling the read ends it.

``input()`` in a worker thread cannot be cancelled: after Ctrl-C at ``allow? [y/n/a/A]`` the
abandoned thread kept reading the terminal, swallowing the next line typed at IPython's prompt
(and holding stdin's lock, so IPython's own prompt did not appear). Instead the loop watches the
terminal's file descriptor: while a cell runs the terminal is in canonical mode, so each read
returns one line the user typed, and cancelling simply stops watching. Where the loop cannot watch
a descriptor (Windows, a stdin without one), the worker thread is the fallback.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TextIO

import anyio.to_thread


async def read_line(prompt: str, out: TextIO) -> str:
    """The next line typed (without its newline); ``EOFError`` at the end of input."""
    descriptor = _descriptor()
    loop = asyncio.get_running_loop()
    if descriptor is None:
        return await anyio.to_thread.run_sync(input, prompt, abandon_on_cancel=True)
    answer: asyncio.Future[str] = loop.create_future()
    received: list[bytes] = []

    def readable() -> None:
        if answer.done():
            return
        try:
            data = os.read(descriptor, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            answer.set_exception(EOFError())
            return
        received.append(data)
        if b"\n" in data:
            answer.set_result(b"".join(received).split(b"\n", 1)[0].decode(errors="replace").rstrip("\r"))

    try:
        loop.add_reader(descriptor, readable)
    except (NotImplementedError, ValueError, OSError):
        return await anyio.to_thread.run_sync(input, prompt, abandon_on_cancel=True)
    try:
        out.write(prompt)
        out.flush()
        return await answer
    finally:
        loop.remove_reader(descriptor)


def _descriptor() -> int | None:
    try:
        return sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return None


__all__ = ["read_line"]
