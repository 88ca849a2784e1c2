"""Which modules a value walks through on its way to where it takes effect (run inside a kernel).

``Walk`` is a profile hook. Between ``start()`` and the call (or the return) of ``stop``, a
``jupyter_agent`` module is on the walk when

* one of its functions is handed the value or hands it back: a local (an argument) or the return
  value is the value, or holds it within ``depth`` attribute hops (items of lists, tuples, sets
  and dicts cost none; only the package's own objects are looked into, never the shell's, the
  kernel's or the user's namespace);
* it is on the route of the call that makes the value take effect: that call's stack, then the
  stack that created its asyncio task, and so on back to the cell (a task factory keeps where each
  task was made);
* with ``trigger`` (a function name on the stack, e.g. ipykernel's ``comm_msg``), one of its
  functions runs under it: what a click does before it hands over to the loop.

``holds`` decides which strings are the value (the prompt: a marker inside it; a setting: its
value). What merely holds an object that holds the value (a turn, the settings) is not on the walk.
"""

from __future__ import annotations

import asyncio
import sys
import types
import weakref
from collections import deque
from typing import Any, Callable

_SKIP = (
    int,
    float,
    bool,
    bytes,
    complex,
    type(None),
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.FrameType,
)
_ITEMS = 200  # items of one container looked at: enough for what a turn holds
_LOOKS = 20_000  # objects looked at per call, at most: a big namespace must not stall the walk
PACKAGE = "jupyter_agent."


class Walk:
    def __init__(
        self,
        holds: Callable[[str], bool],
        stop: tuple[str, str, str],  # (module, function, "call" | "return")
        depth: int = 0,
        trigger: str | None = None,
    ) -> None:
        self.holds, self.stop, self.depth, self.trigger = holds, stop, depth, trigger
        self.calls: dict[str, list[str]] = {}  # module -> its functions on the walk, in order
        self.done = False
        self._origins: weakref.WeakKeyDictionary[asyncio.Task[Any], tuple[list[tuple[str, str]], Any]] = (
            weakref.WeakKeyDictionary()
        )
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> "Walk":
        self._loop = asyncio.get_event_loop()
        self._loop.set_task_factory(self._task)
        sys.setprofile(self._profile)
        return self

    def end(self) -> None:
        sys.setprofile(None)
        if self._loop is not None:
            self._loop.set_task_factory(None)

    @property
    def modules(self) -> list[str]:
        return list(self.calls)

    def _task(self, loop: asyncio.AbstractEventLoop, coro: Any, **options: Any) -> asyncio.Task[Any]:
        task = asyncio.Task(coro, loop=loop, **options)
        if not self.done:
            self._origins[task] = (_stack(sys._getframe(1)), _current_task(loop))
        return task

    def _record(self, module: str, name: str) -> None:
        functions = self.calls.setdefault(module, [])
        if name not in functions:
            functions.append(name)

    def _profile(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if self.done or event not in ("call", "return"):
            return
        module = frame.f_globals.get("__name__", "")
        if not isinstance(module, str) or not module.startswith(PACKAGE):
            return
        name = frame.f_code.co_name
        if (module, name, event) == self.stop:
            self._record(module, name)
            self._route(frame)
            self.done = True
            self.end()
            return
        if self.trigger is not None and event == "call" and _under(frame, self.trigger):
            self._record(module, name)
        elif event == "call" and self._reaches(frame.f_locals, self.depth, {}):
            self._record(module, name)
        elif event == "return" and self._reaches(arg, self.depth, {}):
            self._record(module, name)

    def _route(self, frame: types.FrameType) -> None:
        """The effect's route: its stack, then where its task was made, back to the cell."""
        for module, name in _stack(frame):
            self._record(module, name)
        task = _current_task(self._loop)
        seen: set[int] = set()
        while task is not None and id(task) not in seen:
            seen.add(id(task))
            origin = self._origins.get(task)
            if origin is None:
                return
            stack, task = origin
            for module, name in stack:
                self._record(module, name)

    def _reaches(self, value: Any, depth: int, seen: dict[int, int]) -> bool:
        """Whether ``value`` is, or holds within ``depth`` attribute hops, a string ``holds`` accepts."""
        if isinstance(value, str):
            return bool(self.holds(value))
        # An object already looked at with as many hops left holds nothing new.
        if isinstance(value, _SKIP) or seen.get(id(value), -1) >= depth or len(seen) > _LOOKS:
            return False
        seen[id(value)] = depth
        try:
            if isinstance(value, dict):
                if "__builtins__" in value:
                    return False  # a namespace (the user's): it holds everything the user typed
                return any(self._reaches(item, depth, seen) for item in list(value.values())[:_ITEMS])
            if isinstance(value, (list, tuple, set, frozenset, deque)):
                return any(self._reaches(item, depth, seen) for item in list(value)[:_ITEMS])
            if depth <= 0 or not type(value).__module__.startswith(PACKAGE):
                return False
            items = list(getattr(value, "__dict__", {}).values())[:_ITEMS]
            for klass in type(value).__mro__:
                slots = klass.__dict__.get("__slots__", ())
                for slot in (slots,) if isinstance(slots, str) else slots:
                    if slot not in ("__dict__", "__weakref__"):
                        items.append(getattr(value, slot, None))
        except Exception:  # noqa: BLE001 - an object that refuses to be looked at holds nothing we can see
            return False
        return any(self._reaches(item, depth - 1, seen) for item in items)


def _stack(frame: types.FrameType | None) -> list[tuple[str, str]]:
    found = []
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if isinstance(module, str) and module.startswith(PACKAGE):
            found.append((module, frame.f_code.co_name))
        frame = frame.f_back
    return found


def _current_task(loop: asyncio.AbstractEventLoop | None) -> Any:
    try:
        return asyncio.current_task(loop)
    except RuntimeError:
        return None


def _under(frame: types.FrameType, function: str) -> bool:
    caller = frame.f_back
    while caller is not None:
        if caller.f_code.co_name == function:
            return True
        caller = caller.f_back
    return False
