"""MCP start-up cost: time a turn spends before its first request with 3 configured stdio MCP
servers (the demo server), cold (a fresh kernel: the servers start, in parallel) and warm (a
later turn: they are reused), against no MCP server configured, in the same run. Each round
measures all three, interleaved (5 rounds by default). Printed for cold and warm, each
min–median–max over the rounds: wall and CPU time against the no-MCP baseline of the same round
and their ratio; CPU is this process's plus the MCP server processes' (a cold start's cost is
mostly theirs). The warm target (≤ 20 ms added) is judged on the worst round.

It times what the notebook runner does before the first request: ``features.mcp.open_turn``
(configuration files, start or reuse, the tools) plus the tools' specs for the request. The
progress the panel shows during a cold start is printed once.

    python benchmarks/mcp.py [--rounds 5] [--servers 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path, and its name would shadow the SDK.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _HERE]

from jupyter_agent.features.mcp import McpRegistry, open_turn  # noqa: E402 - after the sys.path fix
from jupyter_agent.session import Redactor  # noqa: E402
from jupyter_agent.testing import mcp_demo_server  # noqa: E402

sys.path.append(str(_HERE))  # after the SDK's own path: bench_stats shadows nothing
from bench_stats import Clock, row, verdict  # noqa: E402

WARM_ADDED_TARGET = 0.020


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
    # children=True: the stdio servers are this process's children; their CPU is the turn's too.
    clock = Clock(children=True)
    mcp = await open_turn(session, configured=None, selection=None, note=notes.append, servers=registry)
    specs = [tool.spec() for tool in mcp.tools]
    wall, cpu = clock.elapsed()
    return wall, cpu, len(specs)


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
    print(
        f"{servers} stdio MCP servers ({tool_count} tools), {rounds} interleaved rounds; before the first request, "
        "min–median–max, baseline: no MCP server configured"
    )
    base_walls, base_cpus = [wall for wall, _ in results["no MCP"]], [cpu for _, cpu in results["no MCP"]]
    for name in ("cold", "warm"):
        walls, cpus = [wall for wall, _ in results[name]], [cpu for _, cpu in results[name]]
        print(row(f"{name} wall", walls, base_walls, digits=2))
        print(row(f"{name} CPU (this process + servers)", cpus, base_cpus, digits=2))
    warm_added = [warm - base for (warm, _), base in zip(results["warm"], base_walls)]
    print(verdict("warm added wall", warm_added, WARM_ADDED_TARGET, unit=" ms", scale=1000, digits=1))
    print("panel progress during the cold start:", " → ".join(repr(note) for note in progress))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--servers", type=int, default=3)
    options = parser.parse_args()
    asyncio.run(main(options.rounds, options.servers))
