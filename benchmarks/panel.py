"""Panel streaming benchmark: comm bytes and update rate of a 20 KB answer.

In-process part (this file): a 20 000-character Markdown answer is fed to `AgentPanel.handle`
as 10-character `text_delta` events at several paces, with a comm that counts what would be
sent to the frontend, against the naive renderer (`html.value += delta`) measured in the same
run. Time is virtual (a manual clock), so paces are exact and the run takes seconds.

Each round streams the naive renderer once (its bytes do not depend on the pace) and the panel
at every pace, interleaved; 5 rounds by default. Printed per pace, each min–median–max over the
rounds: messages, content bytes / answer bytes (the JSON of every comm message, as jupyter_client
serializes it), the same with the ~540-byte wire envelope per message, update flushes per second
(virtual time), wall and CPU time per delta (real time spent in the renderer) and the panel's
figures over the naive renderer's of the same round. Targets: ≤ 2× bytes, ≤ 25 updates/s, judged
on the worst round of every pace. The panel is connected as a page connects it (its hello
answered, the front end already loaded by the page).

The kernel part (load time, execute_request round trips while the agent streams, paced traffic
in a real kernel) lives in benchmarks/panel_kernel.py and runs with `--kernel`.
`kernel_cell()` gives the source of a cell streaming the same answer through a renderer.

    python benchmarks/panel.py [--chars 20000] [--delta 10] [--rounds 5] [--kernel]
"""

from __future__ import annotations

import argparse
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import ipywidgets as W

from jupyter_agent.notebook.panel import AgentPanel
from jupyter_agent.notebook.panel.coalescer import ManualClock
from jupyter_agent.notebook.panel.comm_meter import CommMeter
from jupyter_agent.notebook.panel.turn_widget import VERSION
from jupyter_agent.testing.sample_answer import sample_answer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stats import Clock, ratios, spread, verdict  # noqa: E402

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
    wall_seconds: float
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

    @property
    def wall_per_delta(self) -> float:
        return self.wall_seconds / self.deltas

    @property
    def cpu_per_delta(self) -> float:
        return self.cpu_seconds / self.deltas


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
        # advance() is timed too: it fires the coalescer's due flushes, the panel's real work.
        timer = Clock()
        for piece in pieces:
            panel.handle(SimpleNamespace(type="text_delta", delta=piece))
            clock.advance(pace)
        panel.handle(SimpleNamespace(type="finish", reason="completed", text=answer, usage=None))
        wall, cpu = timer.elapsed()
        return Row(
            "panel",
            pace,
            len(answer),
            meter.messages,
            meter.content_bytes,
            meter.wire_bytes_estimate,
            panel._coalescer.flushes,
            clock.now(),
            wall,
            cpu,
            len(pieces),
        )


def stream_naive(answer: str, pace: float, delta: int = 10) -> Row:
    """The baseline: one HTML widget, `value += delta` for every delta."""
    pieces = deltas(answer, delta)
    with CommMeter() as meter:
        html = W.HTML()
        meter.reset()
        timer = Clock()
        for piece in pieces:
            html.value += piece
        wall, cpu = timer.elapsed()
        return Row(
            "naive",
            pace,
            len(answer),
            meter.messages,
            meter.content_bytes,
            meter.wire_bytes_estimate,
            len(pieces),
            pace * len(pieces),
            wall,
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


def in_process(chars: int = 20_000, delta: int = 10, paces: tuple[float, ...] = PACES, rounds: int = 5) -> list[list[Row]]:
    """One list of rows per round: the naive renderer first, then the panel at each pace."""
    answer = sample_answer(chars)
    stream_panel(answer[:2000], 0.0, delta)  # warm-up: imports and first-call costs out of the timings
    stream_naive(answer[:2000], 0.0, delta)
    # The naive renderer's bytes do not depend on the pace: each round measures it once, unpaced.
    return [[stream_naive(answer, 0.0, delta)] + [stream_panel(answer, pace, delta) for pace in paces] for _ in range(rounds)]


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


def format_rows(rounds: list[list[Row]]) -> list[str]:
    """Per renderer and pace, min–median–max over the rounds; the panel against the same round's naive renderer."""
    naive = [row for row in rounds[0] if row.renderer == "naive"][0]
    lines = [
        f"answer: {naive.answer_chars:,} characters in {naive.deltas:,} deltas; {len(rounds)} interleaved rounds, "
        "min–median–max; ×naive: the panel's time over the naive renderer's of the same round",
    ]
    bytes_worst, rate_worst = [], []
    for column in range(len(rounds[0])):
        runs = [rows[column] for rows in rounds]
        baseline = [rows[0] for rows in rounds]
        first = runs[0]
        pace = f"{first.pace * 1000:.1f} ms" if first.pace else "unpaced"
        chars_per_second = f"{first.answer_chars / first.duration:,.0f} chars/s" if first.duration else "∞ chars/s"
        rates = [rate for rate in (row.updates_per_second for row in runs) if rate is not None]
        line = (
            f"{first.renderer:<5} {pace:>8} ({chars_per_second}): msgs {spread([row.messages for row in runs], digits=0)}, "
            f"content× {spread([row.content_ratio for row in runs], digits=2)}, wire× {spread([row.wire_ratio for row in runs], digits=2)}, "
            f"updates/s {spread(rates) if rates else 'n/a'}; per delta wall {spread([row.wall_per_delta for row in runs], 1e6)} µs, "
            f"CPU {spread([row.cpu_per_delta for row in runs], 1e6)} µs"
        )
        if first.renderer == "panel":
            bytes_worst += [row.content_ratio for row in runs]
            rate_worst += rates
            line += (
                f"; naive bytes / panel {spread(ratios([b.content_bytes for b in baseline], [row.content_bytes for row in runs]), digits=0)}, ×naive: "
                f"wall {spread(ratios([row.wall_per_delta for row in runs], [b.wall_per_delta for b in baseline]), digits=2)}, "
                f"CPU {spread(ratios([row.cpu_per_delta for row in runs], [b.cpu_per_delta for b in baseline]), digits=2)}"
            )
        lines.append(line)
    lines.append(verdict("panel content bytes / answer, every pace", bytes_worst, BYTES_TARGET, unit="×"))
    if rate_worst:
        lines.append(verdict("panel updates per second, every paced run", rate_worst, RATE_TARGET, unit="/s", digits=1))
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chars", type=int, default=20_000)
    parser.add_argument("--delta", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--kernel", action="store_true", help="also run the kernel part (benchmarks/panel_kernel.py: kernel_report())"
    )
    args = parser.parse_args(argv)
    print("== panel, in process (virtual clock, counting comm) ==")
    for line in format_rows(in_process(args.chars, args.delta, rounds=args.rounds)):
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
