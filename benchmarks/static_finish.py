"""The static finish of a turn: its size, and the kernel memory it saves.

* Bytes of the static rendering (``text/markdown`` + ``text/plain`` of the finished cell, images
  aside; a saved output has no ``text/html``) against the answer's own length, for a 20 KB
  Markdown answer (target: ≤ 2.5×, judged on the worst round), and the wall and CPU time of
  recording the turn and making its outputs, against rendering the answer's Markdown alone
  (``render_markdown``) in the same rounds.
* Kernel RSS growth over 30 ``%%agent`` turns (20 KB answers, scripted model) with the static
  finish against the same turns with the panel's widgets retained (the live panel left as it was
  when the turn ended), measured in two kernels started by the same run. The turns run in 5
  interleaved rounds of 6; growth is reported min–median–max over rounds and in total, with the
  wall time of each round's turns and the kernel's CPU time over them (/proc, 10 ms resolution),
  against the retained-widgets kernel of the same round.

Every figure is min–median–max over the rounds (5 by default).

Run: ``python benchmarks/static_finish.py`` (``--rounds N --turns-per-round M``).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import Clock, process_cpu, row, spread, verdict  # noqa: E402
from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402

from jupyter_agent.notebook.panel.markdown import render_markdown  # noqa: E402
from jupyter_agent.notebook.panel.static_render import TranscriptRecorder  # noqa: E402
from jupyter_agent.testing.sample_answer import sample_answer  # noqa: E402

BYTES_TARGET = 2.5
ANSWER_CHARS = 20_000

# Retained widgets: what the cell kept before the static finish (the panel stays, nothing closed).
RETAIN_WIDGETS = """
from jupyter_agent.notebook.panel.panel import AgentPanel
AgentPanel.finish = AgentPanel.flush
"""
RSS = "int(open('/proc/self/statm').read().split()[1]) * __import__('os').sysconf('SC_PAGE_SIZE')"


def rendering_bytes(chars: int = ANSWER_CHARS) -> tuple[int, int, int, tuple[float, float]]:
    """(answer bytes, markdown bytes, plain text bytes, (wall, CPU) of recording and rendering) of one
    finished turn answering ``chars`` of Markdown."""
    answer = sample_answer(chars)
    clock = Clock()
    recorder = TranscriptRecorder(model_label="bench")

    class Event:
        def __init__(self, kind: str, **fields: object) -> None:
            self.type = kind
            self.__dict__.update(fields)

    for start in range(0, len(answer), 10):
        recorder.handle(Event("text_delta", delta=answer[start : start + 10]))
    recorder.handle(Event("finish", reason="completed", text=answer, usage=None))
    [bundle] = recorder.document.bundles(summary=recorder.summary())
    elapsed = clock.elapsed()
    size = len(answer.encode())
    return size, len(bundle["text/markdown"].encode()), len(bundle["text/plain"].encode()), elapsed


def markdown_alone(chars: int = ANSWER_CHARS) -> tuple[float, float]:
    """(wall, CPU) of the baseline: the answer's Markdown rendered to HTML, nothing else."""
    answer = sample_answer(chars)
    clock = Clock()
    render_markdown(answer)
    return clock.elapsed()


def _kernel(folder: pathlib.Path, retain: bool) -> KernelHarness:
    notebook = folder / "bench.ipynb"
    notebook.write_text("{}")
    harness = KernelHarness(env={"JPY_SESSION_NAME": str(notebook), "JUPYTER_AGENT_MODEL": "demo"}, cwd=str(folder)).start()
    harness.execute("%load_ext jupyter_agent")
    harness.execute(AGENT_TEST_SETUP)
    if retain:
        harness.execute(RETAIN_WIDGETS)
    harness.execute(f"answer = {sample_answer(ANSWER_CHARS)!r}")
    return harness


def _turns(harness: KernelHarness, count: int, first: int) -> None:
    for n in range(first, first + count):
        harness.execute(f"script('bench{n}', reply(answer), chunk_size=40)")
        harness.agent_cell(f"-m bench{n} -s bench", "Answer at length")
        harness.wait_turn("bench", timeout=120)
        harness.messages.clear()  # the harness keeps iopub messages; the kernel's memory is measured
        harness.widgets.clear()


def memory_growth(rounds: int, per_round: int) -> tuple[dict[str, list[int]], dict[str, list[tuple[float, float]]]]:
    """Per mode, each round's RSS growth and (wall, kernel CPU) of its turns."""
    growth: dict[str, list[int]] = {"static": [], "retained": []}
    times: dict[str, list[tuple[float, float]]] = {mode: [] for mode in growth}
    with tempfile.TemporaryDirectory() as tmp:
        kernels = {}
        for mode in growth:
            folder = pathlib.Path(tmp) / mode
            folder.mkdir()
            kernels[mode] = _kernel(folder, retain=mode == "retained")
        try:
            for harness in kernels.values():  # one warm-up turn: imports and first-use caches
                _turns(harness, 1, 0)
                harness.execute("import gc; gc.collect()")
            for round_ in range(rounds):
                for mode, harness in kernels.items():
                    harness.execute("gc.collect()")
                    before = int(harness.evaluate(RSS))
                    pid = harness.km.provisioner.process.pid
                    cpu, started = process_cpu(pid), time.monotonic()
                    _turns(harness, per_round, 1 + round_ * per_round)
                    times[mode].append((time.monotonic() - started, process_cpu(pid) - cpu))
                    harness.execute("gc.collect()")
                    growth[mode].append(int(harness.evaluate(RSS)) - before)
        finally:
            for harness in kernels.values():
                harness.shutdown()
    return growth, times


def _mb(value: float) -> str:
    return f"{value / 1e6:.2f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--turns-per-round", type=int, default=6)
    args = parser.parse_args()

    rendering_bytes(2_000)  # warm-up: imports and first-call costs out of the timings
    markdown_alone(2_000)
    renders, baseline = [], []
    for _ in range(args.rounds):
        renders.append(rendering_bytes())
        baseline.append(markdown_alone())
    answer = renders[0][0]
    print(f"static rendering of a {answer / 1000:.0f} KB answer, {args.rounds} interleaved rounds (min–median–max):")
    print(f"  markdown {spread([r[1] for r in renders], digits=0)} B + plain text {spread([r[2] for r in renders], digits=0)} B")
    print("  " + verdict("static rendering / answer", [(r[1] + r[2]) / r[0] for r in renders], BYTES_TARGET, unit="×"))
    print(
        "  "
        + row("record + render, wall", [r[3][0] for r in renders], [b[0] for b in baseline])
        + " (baseline: render_markdown alone)"
    )
    print("  " + row("record + render, CPU", [r[3][1] for r in renders], [b[1] for b in baseline]))

    growth, times = memory_growth(args.rounds, args.turns_per_round)
    turns = args.rounds * args.turns_per_round
    print(
        f"kernel RSS growth over {turns} turns ({args.rounds} interleaved rounds of {args.turns_per_round}), "
        "per round min–median–max, total:"
    )
    for mode, values in growth.items():
        print(f"  {mode:9s} {spread([v / 1e6 for v in values], digits=2)} MB; total {_mb(sum(values))}")
    for index, kind, note in ((0, "wall", " (baseline: retained widgets)"), (1, "kernel CPU", "")):
        mine, base = [t[index] for t in times["static"]], [t[index] for t in times["retained"]]
        print(f"  {row(f'{args.turns_per_round} turns, {kind} (static)', mine, base, 's', 1.0, 2)}{note}")
    static, retained = sum(growth["static"]), sum(growth["retained"])
    if static > 0:
        print(f"  retained widgets grow RSS {retained / static:.1f}x as much as the static finish")
    else:
        print(f"  static finish: no net growth; retained widgets: {_mb(retained)}")


if __name__ == "__main__":
    main()
