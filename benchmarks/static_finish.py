"""The static finish of a turn: its size, and the kernel memory it saves.

* Bytes of the static rendering (``text/markdown`` + ``text/html`` of the finished cell, images
  aside) against the answer's own length, for a 20 KB Markdown answer (target: ≤ 2.5×).
* Kernel RSS growth over 30 ``%%agent`` turns (20 KB answers, scripted model) with the static
  finish against the same turns with the panel's widgets retained (the live panel left as it was
  when the turn ended), measured in two kernels started by the same run. The turns run in 5
  interleaved rounds of 6; growth is reported min–median–max over rounds and in total.

Run: ``python benchmarks/static_finish.py`` (``--rounds N --turns-per-round M``).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))

from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402

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


def rendering_bytes(chars: int = ANSWER_CHARS) -> tuple[int, int, int]:
    """(answer bytes, markdown bytes, html bytes) of one finished turn answering ``chars`` of Markdown."""
    answer = sample_answer(chars)
    recorder = TranscriptRecorder(model_label="bench")

    class Event:
        def __init__(self, kind: str, **fields: object) -> None:
            self.type = kind
            self.__dict__.update(fields)

    for start in range(0, len(answer), 10):
        recorder.handle(Event("text_delta", delta=answer[start : start + 10]))
    recorder.handle(Event("finish", reason="completed", text=answer, usage=None))
    [bundle] = recorder.document.bundles(summary=recorder.summary())
    size = len(answer.encode())
    return size, len(bundle["text/markdown"].encode()), len(bundle["text/html"].encode())


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


def memory_growth(rounds: int, per_round: int) -> dict[str, list[int]]:
    growth: dict[str, list[int]] = {"static": [], "retained": []}
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
                    _turns(harness, per_round, 1 + round_ * per_round)
                    harness.execute("gc.collect()")
                    growth[mode].append(int(harness.evaluate(RSS)) - before)
        finally:
            for harness in kernels.values():
                harness.shutdown()
    return growth


def _mb(value: float) -> str:
    return f"{value / 1e6:.2f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--turns-per-round", type=int, default=6)
    args = parser.parse_args()

    answer, markdown, html = rendering_bytes()
    ratio = (markdown + html) / answer
    print(
        f"static rendering of a {answer / 1000:.0f} KB answer: markdown {markdown:,} B + html {html:,} B "
        f"= {ratio:.2f}x the answer (target <= {BYTES_TARGET}x): {'ok' if ratio <= BYTES_TARGET else 'MISSED'}"
    )

    growth = memory_growth(args.rounds, args.turns_per_round)
    turns = args.rounds * args.turns_per_round
    print(
        f"kernel RSS growth over {turns} turns ({args.rounds} interleaved rounds of {args.turns_per_round}), "
        "per round min-median-max, total:"
    )
    for mode, values in growth.items():
        print(f"  {mode:9s} {_mb(min(values))} - {_mb(statistics.median(values))} - {_mb(max(values))}; total {_mb(sum(values))}")
    static, retained = sum(growth["static"]), sum(growth["retained"])
    if static > 0:
        print(f"  retained widgets grow RSS {retained / static:.1f}x as much as the static finish")
    else:
        print(f"  static finish: no net growth; retained widgets: {_mb(retained)}")


if __name__ == "__main__":
    main()
