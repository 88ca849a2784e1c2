"""MCP start-up cost: time a turn spends before its first request with 3 configured stdio MCP
servers (the demo server), cold (a fresh kernel: the servers start, in parallel) and warm (a
later turn: they are reused), against no MCP server configured, in the same run. Each round
measures all three, interleaved; min–median–max over the rounds, wall and CPU (this process).

It times what the notebook runner does before the first request: ``features.mcp.open_turn``
(configuration files, start or reuse, the tools) plus the tools' specs for the request. The
progress the panel shows during a cold start is printed once.

    python benchmarks/mcp.py [--rounds 5] [--servers 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, and its name would shadow the SDK.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

from jupyter_agent.features.mcp import McpRegistry, open_turn  # noqa: E402 - after the sys.path fix
from jupyter_agent.session import Redactor  # noqa: E402
from jupyter_agent.testing import mcp_demo_server  # noqa: E402


@dataclass
class _Store:
    redactor: Redactor = field(default_factory=Redactor)


@dataclass
class _Session:
    folder: Path
    store: _Store = field(default_factory=_Store)

    @property
    def notebook(self) -> Path:
        return self.folder / "bench.ipynb"

    @property
    def workspace(self) -> Path:
        return self.folder

    @property
    def path(self) -> Path:
        return self.folder / "bench.agent" / "main.jsonl"


def configure(folder: Path, servers: int) -> None:
    entry = {"command": sys.executable, "args": [mcp_demo_server.__file__]}
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {f"s{n + 1}": entry for n in range(servers)}}))


async def before_first_request(session: _Session, registry: McpRegistry, notes: list[str]) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    mcp = await open_turn(session, configured=None, selection=None, note=notes.append, servers=registry)
    specs = [tool.spec() for tool in mcp.tools]
    return time.perf_counter() - wall, time.process_time() - cpu, len(specs)


def summary(values: list[float]) -> str:
    ms = sorted(value * 1000 for value in values)
    return f"{ms[0]:8.1f} {statistics.median(ms):8.1f} {ms[-1]:8.1f}"


async def main(rounds: int, servers: int) -> None:
    results: dict[str, list[tuple[float, float]]] = {"no MCP": [], "cold": [], "warm": []}
    progress: list[str] = []
    tool_count = 0
    with tempfile.TemporaryDirectory() as plain_dir, tempfile.TemporaryDirectory() as mcp_dir:
        plain, configured = _Session(Path(plain_dir)), _Session(Path(mcp_dir))
        configure(configured.folder, servers)
        for round_number in range(rounds):
            wall, cpu, _ = await before_first_request(plain, McpRegistry(), [])
            results["no MCP"].append((wall, cpu))
            registry, notes = McpRegistry(), []
            wall, cpu, tool_count = await before_first_request(configured, registry, notes)
            results["cold"].append((wall, cpu))
            if round_number == 0:
                progress = notes
            wall, cpu, _ = await before_first_request(configured, registry, [])
            results["warm"].append((wall, cpu))
            await registry.stop_all()
    baseline = statistics.median(wall for wall, _ in results["no MCP"])
    print(f"{servers} stdio MCP servers ({tool_count} tools), {rounds} rounds; ms before the first request")
    print(f"{'':8} {'wall min':>8} {'median':>8} {'max':>8} | {'cpu min':>8} {'median':>8} {'max':>8} | added (median wall)")
    for name, values in results.items():
        walls, cpus = [wall for wall, _ in values], [cpu for _, cpu in values]
        added = statistics.median(walls) - baseline
        print(f"{name:8} {summary(walls)} | {summary(cpus)} | {added * 1000:+8.1f} ms")
    warm_added = statistics.median(wall for wall, _ in results["warm"]) - baseline
    print(f"warm target <= 20 ms added: {'met' if warm_added <= 0.020 else 'NOT met'} ({warm_added * 1000:.1f} ms)")
    print("panel progress during the cold start:", " → ".join(repr(note) for note in progress))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--servers", type=int, default=3)
    options = parser.parse_args()
    asyncio.run(main(options.rounds, options.servers))
