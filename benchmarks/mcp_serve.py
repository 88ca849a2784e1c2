"""``%agent serve``: what the MCP server adds to a call, and what it costs the notebook.

* Round trip of a ``variables`` call through the server (the SDK's streamable HTTP client in this
  process, a real kernel serving) against the same tool called in process in that kernel, the way
  a turn calls it (``execute_tool``): p50 added, target ≤ 15 ms.
* ``1+1`` in the notebook while a client calls ``variables`` 20 times a second, against the idle
  kernel measured just before in the same round: target max < 100 ms.

Each figure is min–median–max over interleaved rounds (5 by default): wall time per call with its
round-by-round ratio to the baseline, and the kernel's CPU time (``time.process_time`` in the
kernel) per call or, for the ``1+1`` probes, as a share of a core over the probing, idle and
loaded. Targets are judged on the worst round.

    python benchmarks/mcp_serve.py [--rounds 5] [--calls 60]
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import statistics
import sys
import tempfile
import threading
import time
from typing import Any

# Run as a script, this folder comes first on sys.path, and benchmarks/mcp.py would shadow the SDK.
_HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent / "tests" / "notebook"))

from kernel_harness import KernelHarness, notebook_kernel  # noqa: E402
from serve_client import served_from  # noqa: E402

sys.path.append(str(_HERE))  # after the SDK's own path: bench_stats shadows nothing
from bench_stats import row, spread, verdict  # noqa: E402

ADDED_P50_TARGET = 0.015
LOADED_MAX_TARGET = 0.100
RATE = 20.0  # client calls per second during the notebook probe

NAMESPACE = """
import numpy as np
frame_like = {f"col{i}": list(range(100)) for i in range(8)}
values = np.arange(100_000, dtype=float)
counts = {"a": 1, "b": 2}
label = "benchmark"
numbers = list(range(1000))
"""

IN_PROCESS = """
import asyncio as _asyncio, time as _time
from jupyter_agent.features.mcp_server import serving as _serving
from jupyter_agent.loop import AbortController as _Abort
from jupyter_agent.loop.execute_tool import execute_tool as _execute
from jupyter_agent.messages import ToolCall as _Call
_tools = {t.name: t for t in _serving().tools}
async def _in_process(n):
    walls, cpus = [], []
    for i in range(n):
        wall, cpu = _time.perf_counter(), _time.process_time()
        await _execute(_Call(id=f"b{i}", name="variables", arguments={}), _tools, _Abort().signal)
        walls.append(_time.perf_counter() - wall)
        cpus.append(_time.process_time() - cpu)
    return walls, cpus
"""


class Client:
    """One MCP client session kept open on an event loop in a thread of its own."""

    def __init__(self, url: str, token: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self._closed: asyncio.Future[None] | None = None
        self.session = self.run(self._open(url, token), timeout=60)

    def run(self, coroutine: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _open(self, url: str, token: str) -> Any:
        opened = self.loop.create_future()
        self._closed = self.loop.create_future()
        self._task = self.loop.create_task(self._hold(url, token, opened))
        return await opened

    async def _hold(self, url: str, token: str, opened: asyncio.Future[Any]) -> None:
        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=120.0)) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    opened.set_result(session)
                    assert self._closed is not None
                    await self._closed

    def close(self) -> None:
        async def finish() -> None:
            assert self._closed is not None
            self._closed.set_result(None)
            await self._task

        self.run(finish(), timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def variables_times(self, n: int) -> list[float]:
        times = []
        for _ in range(n):
            started = time.perf_counter()
            result = await self.session.call_tool("variables", {})
            times.append(time.perf_counter() - started)
            assert not result.is_error, result
        return times

    async def paced_calls(self, stop: threading.Event, rate: float) -> int:
        calls, next_at = 0, time.perf_counter()
        while not stop.is_set():
            await self.session.call_tool("variables", {})
            calls += 1
            next_at += 1 / rate
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        return calls


def kernel_cpu(h: KernelHarness) -> float:
    return float(h.evaluate("__import__('time').process_time()"))


def probe(h: KernelHarness, samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        times.append(h.round_trip())
        h.drain(0)
        time.sleep(0.02)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=60, help="variables calls per round and way")
    parser.add_argument("--probes", type=int, default=60, help="1+1 round trips per round and phase")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        h = notebook_kernel(pathlib.Path(folder), notebook_name="bench.ipynb")
        try:
            h.execute(NAMESPACE)
            served = served_from(h, h.execute("%agent serve -p yolo").msg_id)
            h.execute(IN_PROCESS)
            client = Client(served.url, served.token)
            try:
                report(h, client, options)
            finally:
                client.close()
                h.execute("%agent serve stop")
        finally:
            h.shutdown()


def report(h: KernelHarness, client: Client, options: argparse.Namespace) -> None:
    client.run(client.variables_times(10))  # warm both paths
    h.execute("await _in_process(10)")
    rounds: list[dict[str, float]] = []
    for _ in range(options.rounds):
        walls, cpus = eval(h.evaluate(f"await _in_process({options.calls})"))  # noqa: S307 - our own kernel's repr of floats
        cpu_before = kernel_cpu(h)
        served = client.run(client.variables_times(options.calls), timeout=300)
        served_cpu = (kernel_cpu(h) - cpu_before) / options.calls
        cpu_before, started = kernel_cpu(h), time.perf_counter()
        idle = probe(h, options.probes)
        idle_cpu_share = (kernel_cpu(h) - cpu_before) / (time.perf_counter() - started)
        stop = threading.Event()
        cpu_before, started = kernel_cpu(h), time.perf_counter()
        pacing = asyncio.run_coroutine_threadsafe(client.paced_calls(stop, RATE), client.loop)
        loaded = probe(h, options.probes)
        stop.set()
        paced = pacing.result(60)
        seconds = time.perf_counter() - started
        rounds.append(
            {
                "inproc_p50": statistics.median(walls),
                "inproc_cpu": statistics.median(cpus),
                "served_p50": statistics.median(served),
                "served_cpu": served_cpu,
                "added_p50": statistics.median(served) - statistics.median(walls),
                "idle_p50": statistics.median(idle),
                "idle_max": max(idle),
                "idle_cpu_share": idle_cpu_share,
                "loaded_p50": statistics.median(loaded),
                "loaded_max": max(loaded),
                "rate": paced / seconds,
                "loaded_cpu_share": (kernel_cpu(h) - cpu_before) / seconds,
            }
        )

    def column(key: str) -> list[float]:
        return [row[key] for row in rounds]

    print(f"== %agent serve, {options.rounds} interleaved rounds (min–median–max over rounds) ==")
    print(
        row("variables through the server (HTTP) p50 wall", column("served_p50"), column("inproc_p50"), digits=2)
        + " (baseline: in process, execute_tool in the kernel)"
    )
    print(row("  kernel CPU per call", column("served_cpu"), column("inproc_cpu"), digits=2))
    print(f"  added at p50: {spread(column('added_p50'), 1000)} ms")
    print("  " + verdict("added at p50", column("added_p50"), ADDED_P50_TARGET, unit=" ms", scale=1000, digits=1))
    print(f"1+1 while a client calls variables {spread(column('rate'))}/s (baseline: the idle kernel just before, same round):")
    print(row("  p50", column("loaded_p50"), column("idle_p50")))
    print(row("  max", column("loaded_max"), column("idle_max")))
    print(row("  kernel CPU, % of a core", column("loaded_cpu_share"), column("idle_cpu_share"), unit="%", scale=100, digits=0))
    # The target is a max: every sample of every round counts, not a typical round.
    print(
        "  "
        + verdict("max", column("loaded_max"), LOADED_MAX_TARGET, "<", " ms", 1000, 1)
        + f" (idle worst {max(column('idle_max')) * 1000:.1f} ms: the machine's own noise)"
    )


if __name__ == "__main__":
    main()
