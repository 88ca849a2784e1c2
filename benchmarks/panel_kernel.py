"""The panel in real ipykernels, driven through jupyter_client as a page drives them.

The harness plays the page's part: every panel widget is shown by its real front end in a page in
Node (tests/notebook/panel_page.py), whose loader says hello, so every byte a browser would get is
counted. Rows:

* ``%load_ext jupyter_agent`` in fresh kernels (wall and kernel CPU), against ``import ipywidgets``
  in the same kernels (target: ≤ 0.1 s); then ``1+1`` round trips for 6 s after it (target: max < 100 ms).
* Panel bytes: the content (as the wire packs it) and buffers of EVERY iopub message of the agent
  cell — status, execute_input, display_data, comm_open, comm_msg, comm_close — and of the replies
  to the page's hello; the final static rendering (clear_output and its displays) counted apart.
  Against the answer's bytes (targets: 20 KB over 20 s ≤ 1.2×, over 4 s ≤ 2×, 2 KB over 2 s ≤ 2.5×)
  and against the baseline, a coalesced-HTML widget (one HTML widget whose value, the rendered
  Markdown so far, is resent every 100 ms) fed the same answer at the same pace in the same kernel;
  the kernel's CPU time per 20 KB answer against the baseline's (target: ≤ 1.1×, rounds alternate).
* ``1+1`` round trips while a 4 s answer streams (target: max < 100 ms, p95 ≤ idle p95 + 10 ms),
  idle measured just before each round.
* Text lag: for marker words spread over the answer, the time from the model's delta (logged in
  the kernel) to the message that shows it reaching the page; at 100, 1 000 and 10 000 chars/s
  (target at 1 000/s: ≤ 100 ms), the last chunk's lag (target ≤ 50 ms), and the last chunk (the
  end of the model's stream, when the panel hears the assistant message) → the static finish (the
  saved form: the cell's clear_output and its static display) on the page (target ≤ 100 ms). The
  last text delta → the static finish is printed beside it: the scripted model sleeps its delay
  after every event, so its stream ends two delays after its last text (200 ms at 100 chars/s).

Every row: min–median–max over ROUNDS interleaved rounds. ``python benchmarks/panel_kernel.py``
(``PYTHONPATH=<checkout>`` picks the code measured).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import process_cpu, quantile, row, spread, verdict  # noqa: E402
from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402

from jupyter_agent.testing.sample_answer import sample_answer  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
CPU_TARGET = 1.1  # kernel CPU per streamed 20 KB answer / the coalesced-HTML baseline's
LOAD_EXT_TARGET = 0.100  # s: %load_ext jupyter_agent in a fresh kernel
STATIC_TARGET = 0.100  # s: the last chunk → the static finish on the page
DELTA = 10
MARK = re.compile(r"mk(\d{5})")
LOG_DELTAS = """
import time as _time
from jupyter_agent.notebook.panel.panel import AgentPanel as _Panel
_delta_log = []
_stream_ends = []  # when the panel heard each assistant message: its stream had ended
if not hasattr(_Panel, "_bench_handle"):
    _Panel._bench_handle = _Panel.handle
    def _logged(self, event, _log=_delta_log, _ends=_stream_ends):
        if event.type == "text_delta":
            _log.append((_time.monotonic(), len(event.delta)))
        elif event.type == "message" and getattr(event.message, "role", "") == "assistant":
            _ends.append(_time.monotonic())
        _Panel._bench_handle(self, event)
    _Panel.handle = _logged
"""
BASELINE_CELL = """
import asyncio, time, ipywidgets as W
from IPython.display import display
from jupyter_agent.notebook.panel.markdown import render_markdown
_base = W.HTML(); display(_base)
async def _base_stream(text, size, pace):
    shown, last, sent = "", 0.0, 0
    for start in range(0, len(text), size):
        shown += text[start:start + size]
        _delta_log.append((time.monotonic(), len(text[start:start + size])))
        if time.monotonic() - last >= 0.1:
            _base.value = render_markdown(shown); last = time.monotonic(); sent = len(shown)
        await asyncio.sleep(pace)
    if sent < len(shown):
        _base.value = render_markdown(shown)
    _base_done.append(1)
_base_done = []
_base_task = asyncio.get_running_loop().create_task(_base_stream(_base_answer, {delta}, {pace}))
"""


class TimedHarness(KernelHarness):
    """Records when each marker word first reached the page."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: dict[int, float] = {}
        self.static_at: dict[str, float] = {}  # cell msg_id -> when its static display reached the page

    def _record(self, msg: dict) -> None:
        arrived = time.monotonic()
        super()._record(msg)
        if is_static(msg) and msg["msg_type"] == "display_data":
            self.static_at.setdefault(msg["parent_header"].get("msg_id", ""), arrived)
        text = json.dumps(msg["content"], ensure_ascii=False)
        panel = self.panels.get(msg["content"].get("comm_id", "")) if isinstance(msg["content"], dict) else None
        if panel is not None:
            text += panel.last_text
        for match in MARK.finditer(text):
            self.seen.setdefault(int(match.group(1)), arrived)


def start_kernel(folder: pathlib.Path, model: str = "demo") -> TimedHarness:
    notebook = folder / "bench.ipynb"
    notebook.write_text("{}")
    env = {"JPY_SESSION_NAME": str(notebook), "JUPYTER_AGENT_MODEL": model}
    return TimedHarness(env=env, cwd=str(folder)).start()


def agent_kernel(folder: pathlib.Path) -> TimedHarness:
    h = start_kernel(folder)
    h.execute("%load_ext jupyter_agent")
    h.execute(AGENT_TEST_SETUP)
    h.execute(LOG_DELTAS)
    # Warm-up: imports, and the page loads the panel's front end (once per page, reported apart). A
    # turn that ends before its panel's hello is answered leaves the page without it: warm up again.
    for attempt in range(3):
        h.execute(f"script('warm{attempt}', reply({sample_answer(500)!r}), chunk_size={DELTA}, delay=0.005)")
        h.agent_cell(f"-m warm{attempt} -s warm -p yolo --tools none", "warm up")
        h.wait_turn("warm", timeout=120)
        h.drain(0.3)
        if any(panel.version for panel in h.panels.values()):
            break
    return h


def is_static(msg: dict) -> bool:
    if msg["msg_type"] == "clear_output":
        return True
    return msg["msg_type"] == "display_data" and "application/vnd.jupyter.widget-view+json" not in msg["content"]["data"]


def cell_bytes(h: KernelHarness, msg_id: str, start: int) -> tuple[int, int, int]:
    """(panel bytes, static rendering bytes, messages) of one cell, hello replies included."""
    panels = {w.comm_id for w in h.widgets.values() if w.parent_ids and w.parent_ids[0] == msg_id}
    hellos = {hello for hello, comm in h.hellos.items() if comm in panels}
    panel = static = count = 0
    for msg in h.messages[start:]:
        parent = msg["parent_header"].get("msg_id")
        if parent != msg_id and parent not in hellos:
            continue
        size = len(h.kc.session.pack(msg["content"])) + sum(len(bytes(b)) for b in msg.get("buffers") or [])
        count += 1
        if is_static(msg):
            static += size
        else:
            panel += size
    return panel, static, count


def ended(h: KernelHarness, msg_id: str) -> bool:
    """The cell's turn is over: its static rendering arrived."""
    return any(is_static(msg) and msg["msg_type"] == "display_data" for msg in h.of(msg_id))


def kernel_cpu(h: KernelHarness) -> float:
    return float(h.evaluate("__import__('time').process_time()"))


def panel_turn(h: TimedHarness, answer: str, pace: float, name: str) -> dict[str, Any]:
    h.execute(f"script({name!r}, reply({answer!r}), chunk_size={DELTA}, delay={pace})")
    h.execute("_delta_log.clear(); _stream_ends.clear()")
    h.seen.clear()
    cpu = kernel_cpu(h)
    start = len(h.messages)
    started = time.monotonic()
    msg_id, _ = h.agent_cell(f"-m {name} -s {name} -p yolo --tools none", "stream")
    # Only read iopub while it streams (no execute requests): arrival times are when messages arrive.
    deadline = time.monotonic() + 300
    while not ended(h, msg_id) and time.monotonic() < deadline:
        h.drain(0.01)
    h.wait_turn(name, timeout=300)
    wall = time.monotonic() - started
    cpu = kernel_cpu(h) - cpu
    h.drain(0.3)
    panel, static, count = cell_bytes(h, msg_id, start)
    return {
        "panel": panel,
        "static": static,
        "messages": count,
        "wall": wall,
        "cpu": cpu,
        "log": _delta_log(h),
        "stream_end": float(h.evaluate("_stream_ends[-1]")),
        "static_at": h.static_at.get(msg_id),
    }


def baseline_turn(h: KernelHarness, answer: str, pace: float) -> dict[str, Any]:
    # Given beforehand, as the panel's answer is (script()): the cell that streams it does not echo it.
    h.execute(f"_base_answer = {answer!r}")
    h.execute("_delta_log.clear()")
    if isinstance(h, TimedHarness):
        h.seen.clear()
    cpu = kernel_cpu(h)
    start = len(h.messages)
    started = time.monotonic()
    msg_id = h.send(BASELINE_CELL.format(delta=DELTA, pace=pace))
    h.wait_reply(msg_id)
    h.wait_for(lambda: h.evaluate("len(_base_done)") == "1", 300, "the baseline stream")
    wall = time.monotonic() - started
    cpu = kernel_cpu(h) - cpu
    h.drain(0.3)
    panel, static, count = cell_bytes(h, msg_id, start)
    return {"panel": panel, "static": static, "messages": count, "wall": wall, "cpu": cpu, "log": _delta_log(h)}


def _delta_log(h: KernelHarness) -> list[tuple[float, int]]:
    h.execute("__import__('pathlib').Path('delta_log.json').write_text(__import__('json').dumps(_delta_log))")
    return json.loads((pathlib.Path(h.cwd) / "delta_log.json").read_text())


def bytes_rows(folder: pathlib.Path) -> list[str]:
    cases = [(20_000, 20.0, 1.2), (20_000, 4.0, 2.0), (2_000, 2.0, 2.5)]
    lines = []
    h = agent_kernel(folder)
    try:
        for chars, seconds, target in cases:
            answer = sample_answer(chars)
            size = len(answer.encode())
            pace = seconds / (len(answer) / DELTA)
            panel, base = [], []
            for round_ in range(ROUNDS):
                panel.append(panel_turn(h, answer, pace, f"b{chars}x{int(seconds)}r{round_}"))
                base.append(baseline_turn(h, answer, pace))
            ratios = [p["panel"] / size for p in panel]
            judged = "ok" if max(ratios) <= target else "OVER"
            lines += [
                f"{chars / 1000:g} KB over {seconds:g} s: panel {spread(ratios, digits=2)}× the answer "
                f"({spread([p['messages'] for p in panel], digits=0)} messages); target ≤ {target:g}× in every round: {judged}",
                f"  baseline (coalesced HTML widget) {spread([b['panel'] / size for b in base], digits=2)}×; "
                f"panel / baseline {spread([p['panel'] / b['panel'] for p, b in zip(panel, base)], digits=3)}; "
                f"static rendering apart {spread([p['static'] / size for p in panel], digits=2)}×",
                f"  wall {spread([p['wall'] for p in panel], digits=2)} s (baseline {spread([b['wall'] for b in base], digits=2)} s); "
                f"kernel CPU {spread([p['cpu'] for p in panel], digits=2)} s (baseline {spread([b['cpu'] for b in base], digits=2)} s)",
            ]
            if chars == 20_000:
                cpu_ratios = [p["cpu"] / b["cpu"] for p, b in zip(panel, base) if b["cpu"] > 0]
                lines.append("  " + verdict("kernel CPU per turn / baseline's", cpu_ratios, CPU_TARGET, unit="×"))
        runtime = max((panel.runtime_bytes for panel in h.panels.values()), default=0)
        lines.append(f"  once per page (not per turn): the panel's front end and stylesheet, {runtime:,} bytes")
    finally:
        h.shutdown()
    return lines


def marked_answer(chars: int, every: int = 70) -> tuple[str, dict[int, int]]:
    """The sample answer with a marker word about every ``every`` characters; marker -> end offset."""
    words = sample_answer(chars).split(" ")
    out, ends, length, next_mark = [], {}, 0, every
    for word in words:
        if length >= next_mark and "\n" not in word and word:
            marker = f"mk{len(ends):05d}"
            ends[len(ends)] = length + len(marker) + 1
            out.append(marker)
            length += len(marker) + 1
            next_mark += every
        out.append(word)
        length += len(word) + 1
    ends[len(ends)] = length + 7  # the last word: when it shows, the answer is complete
    out.append(f"mk{len(ends) - 1:05d}")
    return " ".join(out), ends


def lags(h: TimedHarness, turn: dict[str, Any], ends: dict[int, int]) -> list[float]:
    emitted, total = [], 0
    for at, size in turn["log"]:
        total += size
        emitted.append((total, at))
    result = []
    for marker, end in ends.items():
        at = next((t for count, t in emitted if count >= end), None)
        if at is not None and marker in h.seen:
            result.append(h.seen[marker] - at)
    return result


def lag_rows(folder: pathlib.Path) -> list[str]:
    """Per rate: the panel's worst marker lag and its last chunk's, against the coalesced-HTML baseline
    (its markers timed the same way) in the same kernel, with the kernel CPU of each turn."""
    lines = []
    h = agent_kernel(folder)
    try:
        for rate, chars in ((100, 1_500), (1_000, 7_000), (10_000, 20_000)):
            answer, ends = marked_answer(chars)
            last = max(ends)
            pace = DELTA / rate
            worst, final, static, from_delta, cpu, base_worst, base_cpu = [], [], [], [], [], [], []
            for round_ in range(ROUNDS):
                turn = panel_turn(h, answer, pace, f"lag{rate}r{round_}")
                worst.append(max(lags(h, turn, ends)))
                final.append(lags(h, turn, {last: ends[last]})[0])
                static.append(turn["static_at"] - turn["stream_end"])
                from_delta.append(turn["static_at"] - turn["log"][-1][0])
                cpu.append(turn["cpu"])
                base = baseline_turn(h, answer, pace)
                base_worst.append(max(lags(h, base, ends)))
                base_cpu.append(base["cpu"])
            lines.append(f"text lag at {rate:,} chars/s ({ROUNDS} rounds, against the coalesced-HTML baseline):")
            lines.append("  " + row("worst marker lag per round", worst, base_worst))
            if rate == 1_000:
                lines.append("  " + verdict("worst marker lag", worst, 0.100, unit=" ms", scale=1000, digits=1))
            lines.append(
                "  " + verdict("last chunk → answer complete on the page", final, 0.050, unit=" ms", scale=1000, digits=1)
            )
            lines.append(
                "  "
                + verdict(
                    "the stream's end → the static finish on the page", static, STATIC_TARGET, unit=" ms", scale=1000, digits=1
                )
            )
            lines.append(
                f"  last text delta → the static finish: {spread([d * 1000 for d in from_delta], digits=1)} ms "
                f"(the scripted model waits {2 * pace * 1000:g} ms after its last delta before it ends the stream)"
            )
            lines.append("  " + row("kernel CPU per turn", cpu, base_cpu, unit="s", scale=1.0))
    finally:
        h.shutdown()
    return lines


def rtt_rows(folder: pathlib.Path) -> list[str]:
    """``1+1`` while a 4 s answer streams, against the same kernel idle just before (40 round trips),
    with the kernel's CPU share (of one core) in each window."""
    h = agent_kernel(folder)
    pid = h.km.provisioner.process.pid
    answer = sample_answer(20_000)
    pace = 4.0 / (len(answer) / DELTA)
    idle_p95, idle_max, idle_cpu, during_p95, during_max, during_cpu = [], [], [], [], [], []
    try:
        for round_ in range(ROUNDS):
            cpu, started = process_cpu(pid), time.monotonic()
            idle = [h.round_trip() for _ in range(40)]
            idle_cpu.append((process_cpu(pid) - cpu) / (time.monotonic() - started))
            name = f"rtt{round_}"
            h.execute(f"script({name!r}, reply({answer!r}), chunk_size={DELTA}, delay={pace})")
            cpu, started = process_cpu(pid), time.monotonic()
            h.agent_cell(f"-m {name} -s {name} -p yolo --tools none", "stream")
            during = []
            while h.evaluate(f"turn_done({name!r})") != "True":
                during.append(h.round_trip())
                h.drain(0)
            during_cpu.append((process_cpu(pid) - cpu) / (time.monotonic() - started))
            idle_p95.append(quantile(idle, 0.95))
            idle_max.append(max(idle))
            during_p95.append(quantile(during, 0.95))
            during_max.append(max(during))
    finally:
        h.shutdown()
    above_idle = [d - i for d, i in zip(during_p95, idle_p95)]
    return [
        f"1+1 while a 4 s answer streams ({ROUNDS} rounds, against the same kernel idle just before):",
        "  " + row("p95", during_p95, idle_p95),
        "  " + row("max", during_max, idle_max),
        "  " + row("kernel CPU, share of a core", during_cpu, idle_cpu, unit="%", scale=100.0),
        "  " + verdict("max", during_max, 0.100, op="<", unit=" ms", scale=1000, digits=1),
        "  " + verdict("p95 above idle p95", above_idle, 0.010, unit=" ms", scale=1000, digits=1),
    ]


def load_ext_rows(folder: pathlib.Path) -> list[str]:
    """``%load_ext`` in fresh kernels against ``import ipywidgets`` in the same kernels; then ``1+1``
    for 6 s after it (litellm importing) against 2 s of ``1+1`` once the import is over."""
    load, load_cpu, widgets, widgets_cpu = [], [], [], []
    after_max, after_p95, after_cpu, rest_max, rest_p95, rest_cpu = [], [], [], [], [], []
    for _ in range(ROUNDS):
        h = start_kernel(folder, model="")  # the real default: no model configured, litellm preloads
        pid = h.km.provisioner.process.pid
        try:
            cpu = process_cpu(pid)
            load.append(h.round_trip("%load_ext jupyter_agent"))
            load_cpu.append(process_cpu(pid) - cpu)
            for seconds, maxes, p95s, cpus in ((6.0, after_max, after_p95, after_cpu), (2.0, rest_max, rest_p95, rest_cpu)):
                if maxes is rest_max:
                    h.execute(
                        "from jupyter_agent.model.litellm_loader import litellm_module_sync; litellm_module_sync()", timeout=120
                    )
                cpu, samples, end = process_cpu(pid), [], time.monotonic() + seconds
                while time.monotonic() < end:
                    samples.append(h.round_trip())
                cpus.append((process_cpu(pid) - cpu) / seconds)
                maxes.append(max(samples))
                p95s.append(quantile(samples, 0.95))
            cpu = process_cpu(pid)
            widgets.append(h.round_trip("import ipywidgets"))
            widgets_cpu.append(process_cpu(pid) - cpu)
        finally:
            h.shutdown()
    return [
        f"%load_ext jupyter_agent in a fresh kernel ({ROUNDS} rounds, against import ipywidgets afterwards):",
        "  " + row("wall", load, widgets),
        "  " + row("kernel CPU", load_cpu, widgets_cpu),
        "  " + verdict("wall", load, LOAD_EXT_TARGET, unit=" ms", scale=1000, digits=0),
        "1+1 in the 6 s after it (litellm importing), against 2 s once the import is over:",
        "  " + row("max", after_max, rest_max),
        "  " + row("p95", after_p95, rest_p95),
        "  " + row("kernel CPU, share of a core", after_cpu, rest_cpu, unit="%", scale=100.0),
        "  " + verdict("max", after_max, 0.100, op="<", unit=" ms", scale=1000, digits=1),
    ]


SECTIONS: dict[str, Callable[[pathlib.Path], list[str]]] = {
    "load": load_ext_rows,
    "bytes": bytes_rows,
    "lag": lag_rows,
    "rtt": rtt_rows,
}


def kernel_report(sections: list[str] | None = None, show: Callable[[str], None] = lambda line: None) -> list[str]:
    """Every line of ``sections`` (all by default), each section's also given to ``show`` as soon as it is measured."""
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sections or list(SECTIONS):
            section = SECTIONS[name](pathlib.Path(tmp))
            for line in section:
                show(line)
            lines += section
    return lines


if __name__ == "__main__":
    print(f"== panel, in real kernels ({ROUNDS} rounds, min–median–max) ==")
    kernel_report(sys.argv[1:] or None, show=lambda line: print(line, flush=True))
