"""The kernel's Interrupt (■) and Ctrl-C stop agent runs without killing the kernel.

ipykernel ignores SIGINT while idle and swaps in ``default_int_handler`` around each shell
message, restoring ``kernel.saved_sigint_handler`` afterwards (ipykernel 6.29 to 7.4).
While any run is active we put our handler there. On SIGINT it stops every active run:

* inside a run's blocking code (the ``python`` tool executing user code on the main thread, as
  the run's ``code_running`` says), it raises ``AgentInterrupted``, an ``Exception``: a
  ``KeyboardInterrupt`` raised inside a task escapes the event loop and kills the kernel. The tool turns it into an "interrupted" result,
  and the run is told (``in_code``) so it stops once that result is recorded;
* otherwise (the loop is parked, e.g. waiting on the model, or another step of the run is
  running) it schedules ``interrupt()`` with ``call_soon_threadsafe``, which wakes the selector at
  once: raised in the run's own machinery, the exception would end the run as an error.

In the foreground (terminal IPython, a blocking ``--wait`` cell) the handler is installed
directly with ``signal.signal`` and the previous one restored afterwards.

The panel's Stop stops running Python the same way where its click arrives on another thread
(JupyterLab sends widget messages to a kernel subshell): ``interrupt_code`` sends SIGINT to the
main thread, aimed at that one run, provided our handler is the one in place; otherwise the
caller says that ■ is needed.

Time limits work the same way without stopping the run: ``time_limit(seconds)`` around a
``python`` call starts a timer thread that, at the limit, sends SIGINT to the main thread (again
every ``RETRY_SECONDS`` while the code goes on, if it swallowed the first one); the handler raises
``AgentInterrupted`` inside that call's code, the call becomes a "timed out" error result and the
run goes on. ``cell_time_limit`` interrupts a notebook cell that ``notebook_run`` waits for at its
limit, only while that cell is the one executing (``notebook/cell_clock.py``), through ipykernel's
own handler: exactly ■.
"""

from __future__ import annotations

import asyncio
import contextvars
import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Callable, Iterator, Union

from jupyter_agent.loop import RunCancelled

if TYPE_CHECKING:
    from ipykernel.kernelbase import Kernel
    from IPython.core.interactiveshell import InteractiveShell

# What signal.signal accepts and returns: a function, SIG_IGN/SIG_DFL, or None (set outside Python).
Handler = Union[Callable[[int, Union[FrameType, None]], object], int, signal.Handlers, None]

INTERRUPTED = "Interrupted by the user"
TIMED_OUT = "Interrupted at its time limit"
# Code that caught the interrupt (a bare except) is interrupted again this often while it runs on.
RETRY_SECONDS = 2.0

# Set in the context a run is started from; its tasks inherit it, so the handler can tell
# whether the code it interrupted belongs to an agent run.
_ACTIVE_RUN: contextvars.ContextVar[object | None] = contextvars.ContextVar("jupyter_agent_run", default=None)


class AgentInterrupted(RunCancelled):
    def __init__(self, message: str = INTERRUPTED) -> None:
        super().__init__(message)


class TimeLimitState:
    """What a ``time_limit`` block tells the code it limits: whether the limit was reached."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False


class _Entry:
    def __init__(
        self,
        stop: Callable[[], None],
        in_code: Callable[[], None] | None,
        code_running: Callable[[], bool],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.stop = stop
        self.in_code = in_code or stop
        self.code_running = code_running
        self.loop = loop


class InterruptRouter:
    """One per process: routes SIGINT to the active runs; installed only while one is active."""

    def __init__(self, kernel: Kernel | None = None) -> None:
        self.kernel = kernel
        self._entries: dict[object, _Entry] = {}
        self._previous: Handler = None
        self._installed = False
        self._target: object | None = None  # the run a self-sent SIGINT is meant for
        self._limits: dict[object, object] = {}  # a running time_limit block -> the run its code belongs to
        self._expired: set[object] = set()  # blocks whose limit passed: the next SIGINT is theirs

    @property
    def active(self) -> bool:
        return bool(self._entries)

    def bind(self, token: object) -> contextvars.Context:
        """A context to start a run's task in: its tasks are recognised as that run's code."""
        context = contextvars.copy_context()
        context.run(_ACTIVE_RUN.set, token)
        return context

    @contextmanager
    def guard(
        self,
        token: object,
        stop: Callable[[], None],
        *,
        in_code: Callable[[], None] | None = None,
        code_running: Callable[[], bool] = lambda: True,
        foreground: bool = False,
    ) -> Iterator[None]:
        """While the block runs, SIGINT calls ``stop`` (thread-safely) for the run ``token``.

        When the signal lands in the run's own task while ``code_running()`` (its blocking code,
        the ``python`` tool), ``in_code`` is called instead (on the loop's thread, before
        ``AgentInterrupted`` is raised there).
        """
        if threading.current_thread() is not threading.main_thread():
            yield  # signals reach only the main thread; nothing to route from here
            return
        self._entries[token] = _Entry(stop, in_code, code_running, asyncio.get_running_loop())
        previous_foreground = None
        if foreground:
            previous_foreground = signal.signal(signal.SIGINT, self._on_sigint)
        else:
            self._install()
        try:
            yield
        finally:
            self._entries.pop(token, None)
            if foreground:
                signal.signal(signal.SIGINT, previous_foreground)
            if not self._entries:
                self._uninstall()

    def _install(self) -> None:
        if self._installed:
            return
        self._installed = True
        if self.kernel is not None and hasattr(self.kernel, "saved_sigint_handler"):
            # Restored by ipykernel's post_handler_hook after the current (and every) shell message.
            self._previous = self.kernel.saved_sigint_handler
            self.kernel.saved_sigint_handler = self._on_sigint
            if signal.getsignal(signal.SIGINT) is self._previous:
                signal.signal(signal.SIGINT, self._on_sigint)  # started while the kernel is idle
        else:
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)

    def _uninstall(self) -> None:
        if not self._installed:
            return
        self._installed = False
        previous, self._previous = self._previous, None
        if self.kernel is not None and hasattr(self.kernel, "saved_sigint_handler"):
            if self.kernel.saved_sigint_handler == self._on_sigint:
                self.kernel.saved_sigint_handler = previous
        if signal.getsignal(signal.SIGINT) == self._on_sigint:
            # Otherwise a cell is executing with its own handler; the kernel restores `previous`.
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_IGN)

    def interrupt_code(self, token: object) -> bool:
        """From another thread: interrupts the code run ``token`` executes on the main thread, as ■
        does. ``False`` when SIGINT would not reach our handler (a cell is executing, or no run
        is guarded): the caller must then say that ■ is needed."""
        if token not in self._entries or threading.current_thread() is threading.main_thread():
            return False
        main = threading.main_thread().ident
        if not self._handler_in_place() or not hasattr(signal, "pthread_kill") or main is None:
            return False
        self._target = token
        signal.pthread_kill(main, signal.SIGINT)
        return True

    @contextmanager
    def time_limit(self, seconds: float) -> Iterator[TimeLimitState]:
        """Interrupts the code run inside the block (on the main thread) once it has run ``seconds``,
        as ■ would, without stopping its run; ``state.expired`` says whether it came to that."""
        state = TimeLimitState(seconds)
        main = threading.main_thread().ident
        if threading.current_thread() is not threading.main_thread() or main is None or not hasattr(signal, "pthread_kill"):
            yield state  # signals reach only the main thread: no limit can be enforced from here
            return
        key = object()
        self._limits[key] = _ACTIVE_RUN.get()

        def expire() -> None:
            state.expired = True
            self._expired.add(key)
            signal.pthread_kill(main, signal.SIGINT)

        try:
            with _repeating_after(seconds, expire, "jupyter-agent-time-limit"):
                yield state
        finally:
            self._limits.pop(key, None)
            self._expired.discard(key)

    @contextmanager
    def cell_time_limit(self, seconds: float, is_running: Callable[[], bool]) -> Iterator[TimeLimitState]:
        """Interrupts the notebook cell the block waits for (``notebook_run``) once the block has lasted
        ``seconds``, exactly as ■ does: a SIGINT while ``is_running()`` says that cell executes (with
        ipykernel's own handler in place, so it raises KeyboardInterrupt in the cell), again every
        ``RETRY_SECONDS`` while it runs on; ``state.expired`` says whether the limit passed."""
        state = TimeLimitState(seconds)
        main = threading.main_thread().ident
        if main is None or not hasattr(signal, "pthread_kill"):
            yield state  # no way to signal the main thread: the wait alone is bounded
            return

        def expire() -> None:
            state.expired = True
            # Only that cell: not the agent's own code (our handler), not a cell of the user's.
            if is_running() and not self._handler_in_place():
                signal.pthread_kill(main, signal.SIGINT)

        with _repeating_after(seconds, expire, "jupyter-agent-cell-time-limit"):
            yield state

    def _timed_out(self) -> bool:
        """A SIGINT sent by a time limit: raise in the limited code, or ignore it if that code is done."""
        if not self._expired:
            return False
        token = _ACTIVE_RUN.get()
        for key in list(self._expired):
            self._expired.discard(key)
            if key in self._limits and self._limits[key] is token:
                raise AgentInterrupted(TIMED_OUT)
        return True  # the limited code ended meanwhile: nothing to interrupt, no run to stop

    def _handler_in_place(self) -> bool:
        # While a cell executes, ipykernel's own handler is there: a SIGINT would hit that cell.
        return signal.getsignal(signal.SIGINT) == self._on_sigint

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self._timed_out():
            return
        target, self._target = self._target, None
        token = _ACTIVE_RUN.get()
        current = self._entries.get(token) if token is not None else None
        in_code = current is not None and _in_task(current.loop) and current.code_running() and target in (None, token)
        if target is None:  # ■ or Ctrl-C: every active run stops
            entries = dict(self._entries)
        else:  # one run's Stop
            entries = {target: self._entries[target]} if target in self._entries else {}
        for key, entry in entries.items():
            if in_code and key is token:
                continue
            # Never call_on_loop here: the handler runs between two bytecodes of whatever the
            # main thread was doing, so ``stop`` is queued, and _threadsafe wakes the selector.
            entry.loop.call_soon_threadsafe(entry.stop)
        if in_code and current is not None:
            current.in_code()
            raise AgentInterrupted()


def _in_task(loop: asyncio.AbstractEventLoop) -> bool:
    # No current task means the loop is parked in its selector: raising there would escape
    # run_forever and end the kernel.
    try:
        return asyncio.current_task(loop) is not None
    except RuntimeError:
        return False


@contextmanager
def _repeating_after(seconds: float, fire: Callable[[], None], name: str) -> Iterator[None]:
    """Calls ``fire`` from a timer thread once the block has lasted ``seconds``, then every
    ``RETRY_SECONDS`` until the block ends; never after its end (the end waits for a call under way)."""
    lock, done = threading.Lock(), threading.Event()

    def repeat() -> None:
        wait = seconds
        while not done.wait(wait):
            with lock:
                if done.is_set():
                    return
                fire()
            wait = RETRY_SECONDS

    threading.Thread(target=repeat, name=name, daemon=True).start()
    try:
        yield
    finally:
        with lock:
            done.set()


_ROUTER: InterruptRouter | None = None


def interrupt_router(shell: InteractiveShell | None = None) -> InterruptRouter:
    """The process's router; given a ``shell`` (``%load_ext``), it uses that shell's kernel.

    Without the kernel the handler can only be set with ``signal.signal``, which ipykernel
    overwrites with its idle handler when the current shell message ends: the kernel's
    ``saved_sigint_handler`` is what survives that.
    """
    global _ROUTER
    if _ROUTER is None:
        _ROUTER = InterruptRouter()
    kernel = getattr(shell, "kernel", None)
    if kernel is not None and not _ROUTER.active:
        _ROUTER.kernel = kernel
    return _ROUTER
