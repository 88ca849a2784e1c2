"""Kernel part of the panel benchmark: real ipykernels driven through jupyter_client.

* ``%load_ext jupyter_agent`` time in fresh kernels, against a trivial cell and
  ``import ipywidgets`` measured in the same kernels (target: ≤ 0.3 s).
* Round-trip time of a trivial ``execute_request`` (``1+1``) while the agent streams 20 KB
  answers at full speed (scripted model, no pacing) through the panel, against the idle kernel
  measured just before (target: p95 ≤ 50 ms).
* Comm bytes and update rate of a paced 20 KB stream (2 ms per 10-character delta) in the real
  kernel, against the naive ``html.value += delta`` renderer run in the same kernel.

Run through ``python benchmarks/panel.py --kernel``, or alone: ``python benchmarks/panel_kernel.py``.
"""

from __future__ import annotations

import json
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))

from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402

LOAD_TARGET = 0.3
RTT_P95_TARGET = 0.050
BYTES_TARGET = 5.0
RATE_TARGET = 25.0
ANSWER_CHARS = 20_000
DELTA = 10


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _rtt(h: KernelHarness, code: str = "1+1") -> tuple[float, float]:
    """(send time, round trip) of one execute_request, waiting for its execute_reply."""
    sent = time.monotonic()
    msg_id = h.kc.execute(code, store_history=False)
    while True:
        reply = h.kc.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            return sent, time.monotonic() - sent


def _kernel(folder: pathlib.Path, model: str = "demo") -> KernelHarness:
    notebook = folder / "bench.ipynb"
    notebook.write_text("{}")
    return KernelHarness(env={"JPY_SESSION_NAME": str(notebook), "JUPYTER_AGENT_MODEL": model}, cwd=str(folder)).start()


def load_ext_times(runs: int = 5) -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            # The real default: no model configured, so litellm starts preloading in a thread.
            h = _kernel(pathlib.Path(tmp), model="")
            try:
                trivial = statistics.median(_rtt(h, "pass")[1] for _ in range(5))
                load = _rtt(h, "%load_ext jupyter_agent")[1]
                widgets = _rtt(h, "import ipywidgets")[1]
                rows.append((load, trivial, widgets))
            finally:
                h.shutdown()
    load = statistics.median(r[0] for r in rows)
    trivial = statistics.median(r[1] for r in rows)
    widgets = statistics.median(r[2] for r in rows)
    verdict = "ok" if load <= LOAD_TARGET else "OVER"
    return [
        f"%load_ext jupyter_agent: median {load * 1000:.0f} ms over {runs} fresh kernels "
        f"(min {min(r[0] for r in rows) * 1000:.0f}, max {max(r[0] for r in rows) * 1000:.0f}); "
        f"trivial cell {trivial * 1000:.0f} ms, import ipywidgets {widgets * 1000:.0f} ms; "
        f"{load / trivial:.1f}× a trivial cell; target ≤ {LOAD_TARGET * 1000:.0f} ms: {verdict}",
    ]


def rtt_while_streaming(turns: int = 20, idle_samples: int = 60) -> list[str]:
    """RTTs while queued turns stream 20 KB each at full speed, one after another."""
    with tempfile.TemporaryDirectory() as tmp:
        h = _kernel(pathlib.Path(tmp))
        try:
            h.execute("%load_ext jupyter_agent")
            h.execute(AGENT_TEST_SETUP)
            h.execute("import ipywidgets, random; _bench_end = []")
            answer = "".join(f"word{n % 97} " for n in range(ANSWER_CHARS))[:ANSWER_CHARS]
            h.execute(f"bench = script('fullspeed', *[reply({answer!r}) for _ in range({turns})], chunk_size={DELTA}, delay=0)")
            idle = [_rtt(h)[1] for _ in range(idle_samples)]
            started = time.monotonic()
            cells = [h.send("%%agent -m fullspeed -s bench -p yolo --tools none\nstream") for _ in range(turns)]
            for msg_id in cells:  # probe only once every cell has replied: measure the stream, not the queue
                h.wait_reply(msg_id)
            h.execute("last_turn('bench').task.add_done_callback(lambda _: _bench_end.append(__import__('time').monotonic()))")
            probing = time.monotonic()
            samples = []
            while True:
                sent, rtt = _rtt(h)
                samples.append((sent, rtt))
                h.drain(0)
                if len(samples) % 20 == 0 and h.evaluate("bool(_bench_end)") == "True":
                    break
            end = float(h.evaluate("_bench_end[0]"))
            during = [rtt for sent, rtt in samples if sent < end]
            if not during:
                raise RuntimeError("the turns ended before probing began: raise `turns`")
        finally:
            h.shutdown()
    streamed = turns * ANSWER_CHARS
    p95 = _quantile(during, 0.95)
    verdict = "ok" if p95 <= RTT_P95_TARGET else "OVER"
    return [
        f"1+1 round trip while streaming {turns} × {ANSWER_CHARS:,} chars at full speed "
        f"({streamed / (end - started):,.0f} chars/s over {end - started:.1f} s; {len(during)} requests "
        f"in the last {end - probing:.1f} s): "
        f"p50 {statistics.median(during) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {max(during) * 1000:.1f} ms",
        f"  idle kernel just before: p50 {statistics.median(idle) * 1000:.1f} ms, p95 {_quantile(idle, 0.95) * 1000:.1f} ms, "
        f"max {max(idle) * 1000:.1f} ms; p95 while streaming = {p95 / _quantile(idle, 0.95):.2f}× idle; "
        f"target p95 ≤ {RTT_P95_TARGET * 1000:.0f} ms: {verdict}",
    ]


NAIVE_CELL = """
import asyncio, ipywidgets as W
from IPython.display import display
_naive = W.HTML(); display(_naive)
async def _naive_stream(text, size, pace):
    for start in range(0, len(text), size):
        _naive.value += text[start:start + size]
        await asyncio.sleep(pace)
    _naive_done.append(1)
_naive_done = []
_naive_task = asyncio.get_running_loop().create_task(_naive_stream({answer!r}, {delta}, {pace}))
"""


def _cell_traffic(h: KernelHarness, msg_id: str, start_index: int) -> tuple[int, int, int]:
    """(comm_msg count, content bytes, wire-ish bytes) of one cell's widget updates."""
    messages = [m for m in h.messages[start_index:] if m["msg_type"] == "comm_msg" and m["parent_header"].get("msg_id") == msg_id]
    content = sum(len(json.dumps(m["content"], ensure_ascii=False, separators=(",", ":")).encode()) for m in messages)
    return len(messages), content, content + 540 * len(messages)


def paced_stream_traffic(pace: float = 0.002) -> list[str]:
    """A 20 KB answer at 10 characters per ``pace`` through the panel and through the naive renderer."""
    with tempfile.TemporaryDirectory() as tmp:
        h = _kernel(pathlib.Path(tmp))
        try:
            h.execute("%load_ext jupyter_agent")
            h.execute(AGENT_TEST_SETUP)
            answer = "".join(f"word{n % 97} " for n in range(ANSWER_CHARS))[:ANSWER_CHARS]
            h.execute(f"script('paced', reply({answer!r}), chunk_size={DELTA}, delay={pace})")
            index = len(h.messages)
            started = time.monotonic()
            msg_id, _ = h.agent_cell("-m paced -s paced -p yolo --tools none", "stream")
            h.wait_turn("paced", timeout=120)
            duration = time.monotonic() - started
            panel = _cell_traffic(h, msg_id, index)
            index = len(h.messages)
            naive_id = h.send(NAIVE_CELL.format(answer=answer, delta=DELTA, pace=pace))
            h.wait_reply(naive_id)
            h.wait_for(lambda: h.evaluate("len(_naive_done)") == "1", 120, "the naive stream")
            h.drain(0.3)
            naive = _cell_traffic(h, naive_id, index)
        finally:
            h.shutdown()
    chars = len(answer)
    rate = panel[0] / duration
    verdict = f"bytes {'ok' if panel[1] / chars <= BYTES_TARGET else 'OVER'}, rate {'ok' if rate <= RATE_TARGET else 'OVER'}"
    return [
        f"paced stream in a real kernel ({DELTA} chars per {pace * 1000:.0f} ms, {duration:.1f} s incl. setup): "
        f"panel {panel[0]} comm msgs, content {panel[1] / chars:.2f}× / wire {panel[2] / chars:.2f}× the answer, "
        f"{rate:.1f} updates/s; {verdict}",
        f"  naive value += in the same kernel: {naive[0]} comm msgs, content {naive[1] / chars:.0f}× / "
        f"wire {naive[2] / chars:.0f}×; panel sends {naive[1] / max(1, panel[1]):.0f}× fewer bytes",
    ]


def kernel_report() -> list[str]:
    return [*load_ext_times(), *rtt_while_streaming(), *paced_stream_traffic()]


if __name__ == "__main__":
    print("== panel, in a real kernel ==")
    for line in kernel_report():
        print(line)
