"""The ``python`` tool: run code in the user's namespace on the calling thread, like a cell.

The agent task runs on the kernel's event loop, so the loop is blocked while the code runs,
exactly as during a cell. An interrupt (KeyboardInterrupt, or the notebook's RunCancelled raised
by its SIGINT handler inside the running code) ends the code and becomes an "interrupted" error
result; nothing propagates and every swapped stream is restored.
"""

from __future__ import annotations

import ast
import inspect
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Callable, Protocol

from pydantic import BaseModel, Field

from jupyter_agent.loop import AbortSignal, AgentTool, RunCancelled, ToolOutput
from jupyter_agent.messages import ImageContent, TextContent
from jupyter_agent.tools import figures
from jupyter_agent.tools.caps import OutputCaps
from jupyter_agent.tools.capture import OutputSink, captured_output
from jupyter_agent.tools.errors import ToolError

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


class CodeWatch(Protocol):
    """Sees each call's effect on the namespace (the notebook's namespace diff and undo)."""

    def before(self, code: str) -> Any: ...

    # (the line the result ends with, or ""; JSON for the result's details)
    def after(self, token: Any) -> tuple[str, Any]: ...


class PythonArgs(BaseModel):
    code: str = Field(description="Python code to run, as in a notebook cell.")


def python_tool(shell: Any, caps: OutputCaps, live: LiveOutput | None = None, watch: CodeWatch | None = None) -> AgentTool:
    async def execute(args: PythonArgs, signal: AbortSignal) -> list | ToolOutput:
        return run_python(shell, args.code, signal, caps, live, watch)

    return AgentTool(name="python", description=DESCRIPTION, parameters=PythonArgs, execute=execute, label="Python")


def run_python(
    shell: Any, code: str, signal: AbortSignal, caps: OutputCaps, live: LiveOutput | None = None, watch: CodeWatch | None = None
) -> list | ToolOutput:
    if _needs_event_loop(shell, code):
        raise ToolError(
            "Top-level await cannot run here: the agent itself runs on the kernel's event loop. "
            "Start the coroutine with asyncio.ensure_future(...) and look at the task in a later "
            "call, or run synchronous code."
        )
    sink = OutputSink(caps)
    watched = watch.before(code) if watch is not None else None
    before = figures.snapshot()
    started = time.monotonic()
    interrupt: BaseException | None = None
    result = None
    try:
        with live() if live is not None else nullcontext(None) as on_text:
            sink.on_text = on_text
            # A trailing ";" hides the last value, as in a cell.
            with captured_output(shell, sink, quiet=code.rstrip().endswith(";")):
                result = shell.run_cell(code, store_history=False, silent=False)
    except _INTERRUPTS as error:
        # Raised in IPython's own frames rather than the user's code; same meaning.
        interrupt = error
    failure = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
    if isinstance(failure, _INTERRUPTS):
        interrupt = failure
    _add_figures(sink, before)
    output = sink.render()
    seconds = time.monotonic() - started
    changed, details = watch.after(watched) if watch is not None else ("", None)
    if interrupt is not None or signal.aborted:
        cause = type(interrupt).__name__ if interrupt is not None else "the run was stopped"
        raise ToolError(
            f"Interrupted ({cause}) after {seconds:.1f} s. Variables assigned before the interrupt keep "
            f"their values.\n{output or '(no output before the interrupt)'}" + _line(changed)
        )
    if failure is not None:
        raise ToolError(_with_image_note(output or f"{type(failure).__name__}: {failure}", sink) + _line(changed))
    blocks: list[TextContent | ImageContent] = [TextContent(text=output or "(no output)")]
    blocks += [TextContent(text=changed)] if changed else []
    blocks += sink.images
    return ToolOutput(content=blocks, details={"namespace": details}) if details else blocks


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
