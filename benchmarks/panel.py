"""Panel streaming benchmark: comm bytes and update rate of a 20 KB answer.

In-process part (this file): a 20 000-character Markdown answer is fed to `AgentPanel.handle`
as 10-character `text_delta` events at several paces, with a comm that counts what would be
sent to the frontend, against the naive renderer (`html.value += delta`) measured in the same
run. Time is virtual (a manual clock), so paces are exact and the run takes seconds.

Printed per pace: content bytes / answer bytes (the JSON of every comm message, as
jupyter_client serializes it), the same with the ~540-byte wire envelope per message, update
flushes per second, and CPU time per delta. Targets: ≤ 2× bytes, ≤ 25 updates/s. The panel is
connected as a page connects it (its hello answered, the front end already loaded by the page).

The kernel part (load time, execute_request round trips while the agent streams, paced traffic
in a real kernel) lives in benchmarks/panel_kernel.py and runs with `--kernel`.
`kernel_cell()` gives the source of a cell streaming the same answer through a renderer.

    python benchmarks/panel.py [--chars 20000] [--delta 10] [--kernel]
"""

from __future__ import annotations

import argparse
import runpy
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import ipywidgets as W

from jupyter_agent.notebook.panel import AgentPanel
from jupyter_agent.notebook.panel.coalescer import ManualClock
from jupyter_agent.notebook.panel.comm_meter import CommMeter
from jupyter_agent.notebook.panel.turn_widget import VERSION
from jupyter_agent.testing.sample_answer import sample_answer

BYTES_TARGET = 2.0
RATE_TARGET = 25.0
# Seconds between deltas: unpaced; 20 000 / 5 000 / 1 000 / 300 characters per second.
PACES = (0.0, 0.0005, 0.002, 0.01, 0.033)


@dataclass
class Row:
    renderer: str
    pace: float
    answer_chars: int
    messages: int
    content_bytes: int
    wire_bytes: int
    updates: int
    duration: float
    cpu_seconds: float
    deltas: int

    @property
    def content_ratio(self) -> float:
        return self.content_bytes / self.answer_chars

    @property
    def wire_ratio(self) -> float:
        return self.wire_bytes / self.answer_chars

    @property
    def updates_per_second(self) -> float | None:
        return self.updates / self.duration if self.duration > 0 else None


def deltas(answer: str, size: int) -> list[str]:
    return [answer[start : start + size] for start in range(0, len(answer), size)]


def stream_panel(answer: str, pace: float, delta: int = 10) -> Row:
    """Stream through AgentPanel; counts from the first delta to the end of the turn."""
    pieces = deltas(answer, delta)
    with CommMeter() as meter:
        clock = ManualClock()
        panel = AgentPanel(model_label="bench", session="main", context_window=128_000, clock=clock)
        panel.widget._on_message(panel.widget, ["hello", VERSION, True], [])
        panel.handle(SimpleNamespace(type="run_start", step_budget=None))
        meter.reset()
        cpu = 0.0
        for piece in pieces:
            started = time.perf_counter()
            panel.handle(SimpleNamespace(type="text_delta", delta=piece))
            cpu += time.perf_counter() - started
            clock.advance(pace)
        started = time.perf_counter()
        panel.handle(SimpleNamespace(type="finish", reason="completed", text=answer, usage=None))
        cpu += time.perf_counter() - started
        return Row(
            "panel",
            pace,
            len(answer),
            meter.messages,
            meter.content_bytes,
            meter.wire_bytes_estimate,
            panel._coalescer.flushes,
            clock.now(),
            cpu,
            len(pieces),
        )


def stream_naive(answer: str, pace: float, delta: int = 10) -> Row:
    """The baseline: one HTML widget, `value += delta` for every delta."""
    pieces = deltas(answer, delta)
    with CommMeter() as meter:
        html = W.HTML()
        meter.reset()
        started = time.perf_counter()
        for piece in pieces:
            html.value += piece
        cpu = time.perf_counter() - started
        return Row(
            "naive",
            pace,
            len(answer),
            meter.messages,
            meter.content_bytes,
            meter.wire_bytes_estimate,
            len(pieces),
            pace * len(pieces),
            cpu,
            len(pieces),
        )


def construction_bytes() -> tuple[int, int]:
    """(messages, content bytes) of opening an empty panel and answering the page's hello: paid once
    per turn, whatever the answer."""
    with CommMeter() as meter:
        panel = AgentPanel(model_label="bench", session="main", context_window=128_000)
        panel.widget._on_message(panel.widget, ["hello", VERSION, True], [])
        return meter.messages, meter.content_bytes


def in_process(chars: int = 20_000, delta: int = 10, paces: tuple[float, ...] = PACES) -> list[Row]:
    answer = sample_answer(chars)
    stream_panel(answer[:2000], 0.0, delta)  # warm-up: imports and first-call costs out of the timings
    # The naive renderer's bytes do not depend on the pace: measure it once, unpaced.
    rows = [stream_naive(answer, 0.0, delta)]
    rows += [stream_panel(answer, pace, delta) for pace in paces]
    return rows


def kernel_cell(renderer: str = "panel", chars: int = 20_000, delta: int = 10, pace: float = 0.0) -> str:
    """Source of a cell that displays a renderer ("panel" or "naive") and streams the sample
    answer into it from a background task, as `%%agent` does; `_bench_task` is the task.
    For the kernel part: run it through jupyter_client and count the iopub traffic."""
    return f"""
import asyncio, runpy
from types import SimpleNamespace as _Event
import ipywidgets as _W
from IPython.display import display as _display
_bench = runpy.run_path({str(Path(__file__).resolve())!r})
_answer = _bench["sample_answer"]({chars})
if {renderer!r} == "panel":
    from jupyter_agent.notebook.panel import AgentPanel
    _view = AgentPanel(model_label="bench", session="main")
    _display(_view.widget)
    def _show(piece): _view.handle(_Event(type="text_delta", delta=piece))
    def _end(): _view.handle(_Event(type="finish", reason="completed", text=_answer, usage=None))
else:
    _view = _W.HTML()
    _display(_view)
    def _show(piece): _view.value += piece
    def _end(): pass
async def _stream():
    for start in range(0, len(_answer), {delta}):
        _show(_answer[start:start + {delta}])
        await asyncio.sleep({pace})
    _end()
_bench_task = asyncio.get_running_loop().create_task(_stream())
"""


def format_rows(rows: list[Row]) -> list[str]:
    naive = next(row for row in rows if row.renderer == "naive")
    lines = [
        f"answer: {naive.answer_chars:,} characters in {naive.deltas:,} deltas",
        f"{'renderer':<8} {'pace':>9} {'chars/s':>8} {'msgs':>6} {'content×':>9} {'wire×':>8} "
        f"{'updates/s':>10} {'µs/delta':>9} {'vs naive':>9}  targets",
    ]
    for row in rows:
        rate = row.updates_per_second
        chars_per_second = f"{row.answer_chars / row.duration:,.0f}" if row.duration else "∞"
        pace = f"{row.pace * 1000:.1f} ms" if row.pace else "unpaced"
        verdict = ""
        if row.renderer == "panel":
            bytes_ok = row.content_ratio <= BYTES_TARGET
            rate_ok = rate is None or rate <= RATE_TARGET
            verdict = f"bytes {'ok' if bytes_ok else 'OVER'}, rate {'ok' if rate_ok else 'OVER'}"
        lines.append(
            f"{row.renderer:<8} {pace:>9} {chars_per_second:>8} {row.messages:>6} "
            f"{row.content_ratio:>9.2f} {row.wire_ratio:>8.2f} "
            f"{(f'{rate:.1f}' if rate is not None else 'n/a'):>10} "
            f"{1e6 * row.cpu_seconds / row.deltas:>9.1f} "
            f"{naive.content_bytes / row.content_bytes:>8.0f}×  {verdict}"
        )
    lines.append(
        f"targets: content bytes ≤ {BYTES_TARGET:g}× the answer, ≤ {RATE_TARGET:g} updates/s; "
        "naive is measured in the same run (its bytes do not depend on the pace)"
    )
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--delta", type=int, default=10)
    parser.add_argument(
        "--kernel", action="store_true", help="also run the kernel part (benchmarks/panel_kernel.py: kernel_report())"
    )
    args = parser.parse_args(argv)
    print("== panel, in process (virtual clock, counting comm) ==")
    for line in format_rows(in_process(args.chars, args.delta)):
        print(line)
    messages, content = construction_bytes()
    print(
        f"opening the panel (once per turn, not in the rows above): {messages} messages, "
        f"{content:,} content bytes = {content / args.chars:.2f}× a {args.chars:,}-character answer"
    )
    if args.kernel:
        print("== panel, in real kernels ==")
        kernel_part = runpy.run_path(str(Path(__file__).with_name("panel_kernel.py")))
        for line in kernel_part["kernel_report"]():
            print(line)


if __name__ == "__main__":
    main()
