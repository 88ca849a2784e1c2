"""Kernel memory over a long session: does a finished turn leave anything behind?

Each round starts two fresh kernels and runs the same 50 ``%%agent`` turns (scripted model, a 5 KB
Markdown answer each) in both:

* **panel**: a notebook kernel (the live panel; the page's part played by the test harness, which
  says hello to each panel and reads all it sends);
* **baseline**: a kernel without a notebook server session, where turns render statically (the
  same agent work, no widget at all), so the difference is what the panel keeps.

Printed, min–median–max over ROUNDS interleaved rounds (5 by default): the kernel's RSS growth from
after turn 1 to after turn 50 (garbage collected first), wall and kernel CPU time of the 49 turns
against the baseline's with their round-by-round ratio, and what is still alive at the end
(widgets in ipywidgets' registry, panels, turns). Target: panel growth ≤ baseline growth + 5 MB,
judged on the worst round. ``BENCH_ROUNDS`` and ``BENCH_TURNS`` change the defaults.

Then a longer session, one kernel per round with the live panel (each turn ending in its static
finish): the RSS after turn 10 against after turn 200 (``BENCH_LONG_TURNS``), the session holding
every turn's messages meanwhile. Target: ≤ +20 MB, judged on the worst round.

    PYTHONPATH=<checkout> python benchmarks/memory.py [turns] [long]   (both by default)
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import row, spread, verdict  # noqa: E402
from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402

from jupyter_agent.testing.sample_answer import sample_answer  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
TURNS = int(os.environ.get("BENCH_TURNS", "50"))
TARGET_MB = 5.0
LONG_TURNS = int(os.environ.get("BENCH_LONG_TURNS", "200"))
LONG_FROM = 10  # the long session's growth is measured from this turn on
LONG_TARGET_MB = 20.0
PROBE = (
    "(__import__('gc').collect(), __import__('psutil').Process().memory_info().rss, __import__('time').process_time(),"
    " len(__import__('ipywidgets').Widget.widgets),"
    " sum(type(o).__name__ == 'AgentPanel' for o in __import__('gc').get_objects()),"
    " sum(type(o).__name__ == 'Turn' for o in __import__('gc').get_objects()))[1:]"
)


def long_session(folder: pathlib.Path) -> float:
    """MB of RSS growth from turn LONG_FROM to turn LONG_TURNS of one session, in a notebook kernel."""
    notebook = folder / "long.ipynb"
    notebook.write_text("{}")
    h = KernelHarness(env={"JUPYTER_AGENT_MODEL": "demo", "JPY_SESSION_NAME": str(notebook)}, cwd=str(folder)).start()
    try:
        h.execute("%load_ext jupyter_agent")
        h.execute(AGENT_TEST_SETUP)
        answer = sample_answer(5_000)
        h.execute(f"script('long', *[reply({answer!r}) for _ in range({LONG_TURNS})], chunk_size=10, delay=0)")
        rss = {}
        for turn in range(1, LONG_TURNS + 1):
            h.agent_cell("-m long -s long -p yolo --tools none", f"turn {turn}")
            h.wait_turn("long", timeout=120)
            if turn in (LONG_FROM, LONG_TURNS):
                h.drain(0.2)
                rss[turn] = eval(h.evaluate(PROBE))[0]  # noqa: S307 - our own kernel's tuple of numbers
            h.messages.clear()  # the harness's own memory is not the kernel's
    finally:
        h.shutdown()
    return (rss[LONG_TURNS] - rss[LONG_FROM]) / 2**20


def session(folder: pathlib.Path, *, panel: bool) -> dict[str, float]:
    notebook = folder / "bench.ipynb"
    notebook.write_text("{}")
    env = {"JUPYTER_AGENT_MODEL": "demo"}
    if panel:
        env["JPY_SESSION_NAME"] = str(notebook)
    else:
        env["JPY_SESSION_NAME"] = ""
    h = KernelHarness(env=env, cwd=str(folder)).start()
    try:
        h.execute("%load_ext jupyter_agent")
        h.execute(AGENT_TEST_SETUP)
        answer = sample_answer(5_000)
        h.execute(f"script('mem', *[reply({answer!r}) for _ in range({TURNS})], chunk_size=10, delay=0)")
        first = None
        started = 0.0
        for turn in range(TURNS):
            msg_id, _ = h.agent_cell("-m mem -s mem -p yolo --tools none", f"turn {turn}")
            h.wait_turn("mem", timeout=120)
            if turn == 0:
                h.drain(0.2)
                first = eval(h.evaluate(PROBE))  # noqa: S307 - our own kernel's tuple of numbers
                started = time.monotonic()
            h.messages.clear()  # the harness's own memory is not the kernel's
        wall = time.monotonic() - started
        h.drain(0.2)
        last = eval(h.evaluate(PROBE))  # noqa: S307
    finally:
        h.shutdown()
    return {
        "growth_mb": (last[0] - first[0]) / 2**20,
        "cpu": last[1] - first[1],
        "wall": wall,
        "widgets": last[2],
        "panels": last[3],
        "turns": last[4],
    }


def main(parts: list[str]) -> None:
    if "turns" in parts:
        turns_part()
    if "long" in parts:
        long_part()


def turns_part() -> None:
    panel, base = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(ROUNDS):
            for rows, is_panel in ((panel, True), (base, False)):
                folder = pathlib.Path(tmp) / f"{'panel' if is_panel else 'static'}{round_}"
                folder.mkdir()
                rows.append(session(folder, panel=is_panel))
    over = [p["growth_mb"] - b["growth_mb"] for p, b in zip(panel, base)]
    print(f"== kernel memory, turn 1 → {TURNS} ({ROUNDS} interleaved rounds, min–median–max) ==")
    for name, rows in (("panel", panel), ("baseline (static rendering, no widget)", base)):
        print(
            f"{name}: RSS +{spread([r['growth_mb'] for r in rows], digits=2)} MB; alive at the end: widgets "
            f"{spread([r['widgets'] for r in rows], digits=0)}, panels {spread([r['panels'] for r in rows], digits=0)}, "
            f"turns {spread([r['turns'] for r in rows], digits=0)}"
        )
    for key, label in (("wall", "wall"), ("cpu", "kernel CPU")):
        print(row(f"turns 2–{TURNS}, {label} (panel)", [p[key] for p in panel], [b[key] for b in base], "s", 1.0, 2))
    print(f"panel − baseline: {spread(over, digits=2)} MB")
    print(verdict("panel − baseline", over, TARGET_MB, unit=" MB"))


def long_part() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        long = []
        for round_ in range(ROUNDS):
            folder = pathlib.Path(tmp) / f"long{round_}"
            folder.mkdir()
            long.append(long_session(folder))
    print(f"== one session, turn {LONG_FROM} → {LONG_TURNS} (live panel, static finish; {ROUNDS} rounds) ==")
    print(f"RSS +{spread(long, digits=2)} MB")
    print(verdict(f"RSS after turn {LONG_TURNS} − after turn {LONG_FROM}", long, LONG_TARGET_MB, unit=" MB"))


if __name__ == "__main__":
    main(sys.argv[1:] or ["turns", "long"])
