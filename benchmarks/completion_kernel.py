"""Inline completion in a real kernel, driven as JupyterLab drives it (the comm on a subshell),
with the completion model being the fake provider over HTTP on 127.0.0.1. Rows:

* Kernel-side latency: ``complete_request`` sent → first ``completion`` message back, minus the fake
  model's own time to first token (two chunk delays: the role chunk, then the first text), against
  the same comm's round trip of a ``list_sessions`` request in the same round.
* ``1+1`` while completions stream: a typist sends a request every ~60 ms (each cancelling the one
  before) while the model streams 30 chunks a second; each ``1+1`` runs with a completion live (the
  cell cancels it, as it must: no completion delays a cell). Against ``1+1`` in the same kernel
  idle just before (target: p95 ≤ idle p95 + 10 ms).

Every row: min–median–max over ROUNDS interleaved rounds. ``python benchmarks/completion_kernel.py``
(``PYTHONPATH=<checkout>`` picks the code measured). The browser's figure (keystroke → ghost
text) is ``benchmarks/completion_latency.py``.
"""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import time
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import quantile, row, verdict  # noqa: E402
from kernel_harness import KernelHarness, comm_target_registered  # noqa: E402

from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME  # noqa: E402
from jupyter_agent.testing.fake_provider import FakeProvider, text  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
SAMPLES = 20  # latency samples per round
RTTS = 40  # 1+1 round trips per window
CHUNK_DELAY = 0.033  # the fake model streams 30 chunks a second
COMM = "bench-frontend"


class Frontend:
    """The page's side of the extension's comm: requests on a subshell, answers timed on arrival."""

    def __init__(self, h: KernelHarness) -> None:
        self.h = h
        self.subshell = h.create_subshell()
        self.arrived: dict[tuple[str, str], float] = {}  # (type, request id) -> first arrival
        original = h._record

        def record(msg: dict) -> None:
            original(msg)
            content = msg.get("content") or {}
            data = content.get("data") if isinstance(content, dict) else None
            if msg["msg_type"] == "comm_msg" and isinstance(data, dict) and content.get("comm_id") == COMM:
                self.arrived.setdefault((str(data.get("type")), str(data.get("request_id"))), time.monotonic())

        h._record = record  # type: ignore[method-assign]
        self.send(
            "comm_open", {"comm_id": COMM, "target_name": TARGET_NAME, "data": {"type": "hello", "version": PROTOCOL_VERSION}}
        )
        self.wait("welcome", "None")

    def send(self, msg_type: str, content: dict) -> float:
        msg = self.h.kc.session.msg(msg_type, content)
        msg["header"]["subshell_id"] = self.subshell
        sent = time.monotonic()
        self.h.kc.shell_channel.send(msg)
        return sent

    def message(self, data: dict) -> float:
        return self.send("comm_msg", {"comm_id": COMM, "data": data})

    def complete(self, request_id: str, prefix: str = "total = df.", replaces: str | None = None) -> float:
        # As the extension asks: the next key's request names the one still streaming, which the kernel cancels.
        return self.message(
            {"type": "complete_request", "request_id": request_id, "prefix": prefix, "suffix": "", "replaces": replaces}
        )

    def wait(self, kind: str, request_id: str, timeout: float = 120.0) -> float:
        return self.h.wait_for(lambda: self.arrived.get((kind, request_id)), timeout, f"{kind} {request_id}")


def streaming(body: dict):
    return text(*[f"x{i}" for i in range(60)], delay=CHUNK_DELAY)


def bench_kernel(folder: pathlib.Path, provider: FakeProvider) -> tuple[KernelHarness, Frontend]:
    notebook = folder / "bench.ipynb"
    notebook.write_text("{}")
    h = KernelHarness(env={"JPY_SESSION_NAME": str(notebook), "JUPYTER_AGENT_MODEL": "demo"}, cwd=str(folder)).start()
    h.execute(
        "%load_ext jupyter_agent\n"
        '%config AgentMagics.completion_model = "openai/fake-model"\n'
        f'%config AgentMagics.api_base = "{provider.api_base}"\n'
        '%config AgentMagics.api_key = "sk-fake"\n'
        "import pandas as pd\n"
        'df = pd.DataFrame({"revenue_q3": [1.0], "region": ["north"]})'
    )
    # Registered once its modules are imported off the loop, just after the cell (a page asks again).
    h.wait_for(lambda: comm_target_registered(h), what="the extension's comm target")
    frontend = Frontend(h)
    warm = "warm"
    frontend.complete(warm)  # imports litellm and opens the first connection
    frontend.wait("completion", warm, timeout=180)
    h.wait_for(lambda: not any(m["status"] == "streaming" for m in _completions(h, warm)[-1:]), 30, "the warm-up")
    return h, frontend


def _completions(h: KernelHarness, request_id: str) -> list[dict]:
    return [
        m["content"]["data"]
        for m in h.messages
        if m["msg_type"] == "comm_msg" and m["content"]["data"].get("request_id") == request_id
    ]


def latency_round(frontend: Frontend) -> tuple[list[float], list[float]]:
    overheads, round_trips = [], []
    for _ in range(SAMPLES):
        listing = uuid.uuid4().hex
        sent = frontend.message({"type": "list_sessions", "request_id": listing})
        round_trips.append(frontend.wait("sessions", listing) - sent)
        request = uuid.uuid4().hex
        sent = frontend.complete(request)
        first = frontend.wait("completion", request)
        overheads.append(first - sent - 2 * CHUNK_DELAY)  # the fake model's own time to first token
        frontend.message({"type": "complete_cancel", "request_id": request})
        frontend.h.drain(0.05)
    return overheads, round_trips


def rtt_round(h: KernelHarness, frontend: Frontend) -> tuple[list[float], list[float]]:
    idle = [h.round_trip() for _ in range(RTTS)]
    during = []
    previous = None
    for _ in range(RTTS):
        request = uuid.uuid4().hex
        frontend.complete(request, replaces=previous)
        previous = request
        frontend.wait("completion", previous)  # it streams now
        during.append(h.round_trip())
    frontend.message({"type": "complete_cancel", "request_id": previous})
    h.drain(0.1)
    return idle, during


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, FakeProvider(fallback=streaming) as provider:
        h, frontend = bench_kernel(pathlib.Path(folder), provider)
        try:
            p95s, base_p95s, idle_p95, during_p95, idle_median, during_median = [], [], [], [], [], []
            for _ in range(ROUNDS):
                overheads, round_trips = latency_round(frontend)
                p95s.append(quantile(overheads, 0.95))
                base_p95s.append(quantile(round_trips, 0.95))
                idle, during = rtt_round(h, frontend)
                idle_p95.append(quantile(idle, 0.95))
                during_p95.append(quantile(during, 0.95))
                idle_median.append(quantile(idle, 0.5))
                during_median.append(quantile(during, 0.5))
        finally:
            h.shutdown()
    print(f"Completion in a kernel, {ROUNDS} rounds ({SAMPLES} requests and {RTTS}+{RTTS} round trips each):")
    print("  " + row("request → first completion minus the model's first token, p95", p95s, base_p95s))
    print("    (baseline: a list_sessions round trip on the same comm)")
    print("  " + row("1+1 p95 while completions stream", during_p95, idle_p95))
    print("  " + row("1+1 median while completions stream", during_median, idle_median))
    print(
        "  "
        + verdict(
            "1+1 p95 above idle p95", [d - i for d, i in zip(during_p95, idle_p95)], 0.010, unit=" ms", scale=1000, digits=1
        )
    )
    print("  " + verdict("kernel-side completion overhead p95", p95s, 0.050, unit=" ms", scale=1000, digits=1))


if __name__ == "__main__":
    main()
