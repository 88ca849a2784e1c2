"""The ``python`` tool: run code in the user's namespace on the calling thread, like a cell.

The agent task runs on the kernel's event loop, so the loop is blocked while the code runs,
exactly as during a cell. An interrupt (KeyboardInterrupt, or the notebook's RunCancelled raised
by its SIGINT handler inside the running code) ends the code and becomes a "stopped" result (the
tool raises RunCancelled, which the loop records as stopped while running, not as a failure);
every swapped stream is restored. A call has a time limit when the host gives one (``TimeLimit``:
the notebook interrupts the code at its limit as ■ does); the model may ask for less, or up to
the limit, per call.

What the model reads obeys the data policy (``tools/disclosure.py``): under ``schema`` and
``sample`` the result's content is the model's copy and the user's copy travels in its details.
"""

from __future__ import annotations

import ast
import inspect
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, Protocol

from pydantic import BaseModel, Field, create_model

from jupyter_agent.loop import AbortSignal, AgentTool, RunCancelled, ToolOutput
from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.tools import figures
from jupyter_agent.tools.caps import OutputCaps, truncate_head_tail
from jupyter_agent.tools.capture import OutputSink, captured_output
from jupyter_agent.tools.data_policy import DataPolicy
from jupyter_agent.tools.disclosure import Disclosure, blocks_for_model, cell_names, disclosed
from jupyter_agent.tools.errors import ToolError
from jupyter_agent.tools.tracebacks import named_as_agent_code

DESCRIPTION = (
    "Run Python code in the notebook's kernel, in the user's namespace (variables persist and "
    "the user sees them). IPython syntax and magics work. Returns printed output, rich displays "
    "as text, the value of the last expression, matplotlib figures as images, and the traceback "
    "on error. Long-running code blocks the notebook until it finishes."
)

_INTERRUPTS = (KeyboardInterrupt, RunCancelled)

# Entered around the code's run; yields where to send its text as it is printed (or None). The
# notebook shows it in the call's card while the code still blocks the event loop.
LiveOutput = Callable[[], AbstractContextManager[Callable[[str], None] | None]]
# Awaited just before the code starts to hold the event loop: what must still reach the loop first
# gets its chance (the notebook: a page's hello to the call's panel, see ``AgentPanel.before_blocking``).
BeforeBlocking = Callable[[], Awaitable[None]]


class LimitState(Protocol):
    expired: bool  # the limit was reached and the code interrupted


# Entered around the code's run with its limit in seconds: interrupts the code at the limit (as
# the kernel's ■ does) and says so in ``expired``. The notebook's is ``InterruptRouter.time_limit``.
TimeLimit = Callable[[float], AbstractContextManager[LimitState]]


class CodeWatch(Protocol):
    """Sees each call's effect on the namespace (the notebook's namespace diff and undo)."""

    def before(self, code: str) -> Any: ...

    # (the line the result ends with, or ""; JSON for the result's details)
    def after(self, token: Any) -> tuple[str, Any]: ...


# The watch of the calls made inside ``watching``: the kernel state feature wraps the turn's python
# tool with it (``features/kernel_state/watch.py:watched``), so the toolset need not know it.
_WATCH: ContextVar[CodeWatch | None] = ContextVar("python_watch", default=None)


@contextmanager
def watching(watch: CodeWatch) -> Iterator[None]:
    """Python calls made inside are seen by ``watch`` (when the tool was given none of its own)."""
    token = _WATCH.set(watch)
    try:
        yield
    finally:
        _WATCH.reset(token)


_FULL = DataPolicy("full")


def timed_out(seconds: float, maximum: float | None) -> str:
    most = f"; a call may ask for up to {maximum:g} s (AgentMagics.python_timeout)" if maximum else ""
    return (
        f"Timed out: the code was still running at its {seconds:g} s limit and was interrupted, as the "
        f"kernel's ■ would{most}. The kernel is alive; variables assigned before the interrupt keep their "
        "values. Run less per call (a sample, fewer iterations), or ask for a longer timeout."
    )


def python_args(default_timeout: float | None) -> type[BaseModel]:
    """The tool's arguments; with a time limit, a ``timeout`` the model may lower or raise up to it."""
    if default_timeout is None:
        return PythonArgs
    cached = _TIMED_ARGS.get(default_timeout)
    if cached is None:
        description = (
            f"Seconds this call may run before it is interrupted (default and maximum {default_timeout:g}). "
            "Ask for less to fail fast."
        )
        cached = create_model(
            "PythonArgs",
            __base__=PythonArgs,
            timeout=(float | None, Field(None, gt=0, description=description)),
        )
        _TIMED_ARGS[default_timeout] = cached
    return cached


class PythonArgs(BaseModel):
    code: str = Field(description="Python code to run, as in a notebook cell.")


_TIMED_ARGS: dict[float, type[BaseModel]] = {}  # one arguments class per limit: tool schemas are cached per class


def python_tool(
    shell: Any,
    caps: OutputCaps,
    live: LiveOutput | None = None,
    watch: CodeWatch | None = None,
    *,
    policy: DataPolicy = _FULL,
    time_limit: TimeLimit | None = None,
    timeout: float | None = None,
    before_blocking: BeforeBlocking | None = None,
) -> AgentTool:
    """``timeout``: the configured limit in seconds (the default and maximum of a call), enforced by
    ``time_limit``; ``None``: no limit."""
    if timeout is not None and not timeout > 0:  # also NaN
        raise ValueError(f"python_timeout must be a positive number of seconds, or None for no limit; got {timeout!r}")
    limit = time_limit if timeout is not None else None

    def seconds_for(args: BaseModel) -> float | None:
        asked = getattr(args, "timeout", None)
        return min(asked, timeout) if asked is not None and timeout is not None else timeout

    async def execute(args: PythonArgs, signal: AbortSignal) -> list | ToolOutput:
        seconds = seconds_for(args)
        if before_blocking is not None:
            await before_blocking()
        return run_python(
            shell, args.code, signal, caps, live, watch, policy=policy, time_limit=limit, seconds=seconds, maximum=timeout
        )

    parameters = python_args(timeout if limit is not None else None)
    return AgentTool(
        name="python",
        description=DESCRIPTION,
        parameters=parameters,
        execute=execute,
        label="Python",
        time_limit=seconds_for if limit is not None else None,
    )


def run_python(
    shell: Any,
    code: str,
    signal: AbortSignal,
    caps: OutputCaps,
    live: LiveOutput | None = None,
    watch: CodeWatch | None = None,
    *,
    policy: DataPolicy = _FULL,
    time_limit: TimeLimit | None = None,
    seconds: float | None = None,
    maximum: float | None = None,
) -> list | ToolOutput:
    if _needs_event_loop(shell, code):
        raise ToolError(
            "Top-level await cannot run here: the agent itself runs on the kernel's event loop. "
            "Start the coroutine with asyncio.ensure_future(...) and look at the task in a later "
            "call, or run synchronous code."
        )
    watch = watch if watch is not None else _WATCH.get()
    disclosure = Disclosure(policy) if policy.mode != "full" else None
    sink = OutputSink(caps, disclosure=disclosure, cell_name=cell_names(shell))
    watched = watch.before(code) if watch is not None else None
    before = figures.snapshot()
    started = time.monotonic()
    interrupt: BaseException | None = None
    result = None
    limited = time_limit(seconds) if time_limit is not None and seconds is not None else nullcontext(None)
    try:
        with limited as limit, live() if live is not None else nullcontext(None) as on_text:
            sink.on_text = on_text
            # A trailing ";" hides the last value, as in a cell.
            with captured_output(shell, sink, quiet=code.rstrip().endswith(";")), named_as_agent_code(shell):
                result = shell.run_cell(code, store_history=False, silent=False)
    except _INTERRUPTS as error:
        # Raised in IPython's own frames rather than the user's code; same meaning.
        interrupt = error
    expired = bool(getattr(limit, "expired", False))
    failure = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
    if isinstance(failure, _INTERRUPTS):
        interrupt = failure
    _add_figures(sink, before)
    output = sink.render()
    elapsed = time.monotonic() - started
    changed, details = watch.after(watched) if watch is not None else ("", None)
    details = {"namespace": details} if details else None
    model_text, withheld = disclosure.render() if disclosure is not None else (output, "")
    if expired:
        header = timed_out(seconds or 0.0, maximum)
        raise _error(f"{header}\n", output or "(no output before the interrupt)", model_text, withheld, changed, policy, details)
    if interrupt is not None or signal.aborted:
        # RunCancelled: the call was stopped, not failed (its card says "stopped"); no class or frame
        # of the interrupt machinery in what the user and the model read.
        cause = "the user interrupted it (Stop or the kernel's Interrupt)" if interrupt is not None else "the run was stopped"
        header = f"Stopped after {elapsed:.1f} s: {cause}. Variables assigned before the interrupt keep their values.\n"
        stopped = _error(header, output or "(no output before the interrupt)", model_text, withheld, changed, policy, details)
        raise RunCancelled(stopped.message, details=stopped.details)
    if failure is not None:
        shown = _with_image_note(output or f"{type(failure).__name__}: {failure}", sink)
        raise _error("", shown, _with_image_note(model_text or type(failure).__name__, sink), withheld, changed, policy, details)
    local: list[TextContent | ImageContent] = [TextContent(text=output or "(no output)")]
    local += [TextContent(text=changed)] if changed else []
    local += sink.images
    if disclosure is None:
        return ToolOutput(content=local, details=details) if details else local
    model = blocks_for_model(truncate_head_tail(model_text, caps) or "(no output)", sink.images, policy)
    if changed:
        model.insert(1, TextContent(text=changed))
    return disclosed(model, local, policy, withheld, details)


def _error(header: str, shown: str, model_text: str, withheld: str, changed: str, policy: DataPolicy, details: Any) -> ToolError:
    """An error result: the header and the model's copy of the output; the user's in its details."""
    local = header + shown + _line(changed)
    if policy.mode == "full":
        return ToolError(local, details=details)
    model = header + (model_text or "(no output)") + _line(changed)
    output = disclosed([TextContent(text=model)], [TextContent(text=local)], policy, withheld, details)
    texts = [block.text for block in output.content or () if isinstance(block, TextContent)]
    return ToolError("\n".join(texts), details=output.details)


def _line(changed: str) -> str:
    return f"\n{changed}" if changed else ""


def _needs_event_loop(shell: Any, code: str) -> bool:
    """Whether the code awaits at top level (IPython would try to run a second event loop)."""
    if "await" not in code and "async" not in code:
        return False
    try:
        source = shell.transform_cell(code)
        compiled = compile(source, "<agent>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError, MemoryError, TypeError):
        return False  # let the shell report the syntax error as a cell would
    return bool(compiled.co_flags & inspect.CO_COROUTINE)


def _add_figures(sink: OutputSink, before: dict[int, bool]) -> None:
    for figure in figures.changed_figures(before):
        if id(figure) in sink.rendered_figures:
            continue
        try:
            sink.add_png(figures.figure_png(figure))
        except Exception as error:  # noqa: BLE001 - a figure that cannot render is reported, not fatal
            sink.notes.append(f"[A figure could not be rendered: {type(error).__name__}: {error}]")


def _with_image_note(text: str, sink: OutputSink) -> str:
    # An error result carries text only; say what was lost.
    if sink.images:
        return text + f"\n[{len(sink.images)} image(s) produced before the error are not included.]"
    return text
