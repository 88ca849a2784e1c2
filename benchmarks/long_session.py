"""A long session: from a ``%%agent`` cell to the provider's HTTP request, with 2 000 and 20 000 prior messages.

A real ipykernel (through jupyter_client) and the fake OpenAI-compatible provider over HTTP,
served from this process, which notes when each request arrives (its body read, before it is
parsed). The session file holds the prior messages (a prompt, a tool call, its result, repeated), written before the kernel starts;
the model is registered with a 1M-token window, so nothing is compacted and every request carries
the whole history. Rows, for each size:

* cell → request: a ``%%agent`` cell (default tools, ``-p yolo``) sent → its request at the
  provider, against a cell calling ``litellm.acompletion`` with that request's own messages and
  tools (the last request the agent sent). Rounds alternate (≥ 5), each the median of 3
  alternating agent/raw pairs; wall time is the send → arrival interval on the machine's monotonic
  clock, CPU time the kernel process's user + system time over the same interval (/proc, 10 ms
  resolution). Targets: agent ≤ 1.3× raw at 2 000 messages, ≤ 1.5× at 20 000, worst round.
* ``1+1`` round trips from the request's arrival (the answer streams for 1 s) until 3 s after the
  turn ended, against ``1+1`` in the same kernel idle just before. Target: max < 100 ms.
* the first turn after a restart: the kernel restarted, ``%load_ext`` and what it imports in the
  background done (litellm, then the modules of a turn: a few seconds after the cell), then the
  ``%%agent`` cell → its request; this turn opens (loads) the session file. Against the next turn
  in the same kernel. Target: ≤ 1 s, worst round.

The garbage collector is on, as in a notebook.

    python benchmarks/long_session.py [--messages 2000 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "notebook"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_stats import process_cpu, ratios, row, spread, verdict  # noqa: E402
from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402
from session import conversation  # noqa: E402

from jupyter_agent.messages import AssistantMessage, TextContent  # noqa: E402
from jupyter_agent.session import SessionStore  # noqa: E402
from jupyter_agent.testing.fake_provider import FakeProvider, text, usage  # noqa: E402

TARGETS = {2000: 1.3, 20000: 1.5}  # agent / raw litellm, wall, by prior messages
DEFAULT_TARGET = 1.5
RTT_TARGET = 0.100  # s: 1+1 max during and after a response
RESTART_TARGET = 1.0  # s: the first turn after a restart
AFTER_RESPONSE = 3.0  # s of 1+1 after each turn ended
# A round's figure is the median of this many alternating agent/raw pairs: a collection in the
# kernel lands in one request or the other at random and would decide a single pair's ratio.
PAIRS_PER_ROUND = 3
MODEL = "openai/fake-long-model"
SESSION = "long"
AGENT_CELL = f"%%agent -s {SESSION} -p yolo\nWhat is the trend of the last column?"

# A 1M-token window (as gpt-4.1 or a Claude 1M model has): a 20 000-message history fits uncompacted.
KERNEL_SETUP = """
from jupyter_agent.model.litellm_loader import litellm_module_sync
from jupyter_agent.notebook import warm_up
litellm = litellm_module_sync()
assert warm_up.done.wait(120), "the modules of a turn were not imported after %load_ext"
litellm.register_model({{{model!r}: {{"max_input_tokens": 1_048_576, "max_output_tokens": 32_768,
    "litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 0.0, "output_cost_per_token": 0.0}}}})
%config AgentMagics.api_base = {api_base!r}
"""

RAW_SETUP = """
import asyncio, json, litellm
_raw_request = json.load(open({path!r}))
_raw_request = {{"model": {model!r}, "messages": _raw_request["messages"], "tools": _raw_request.get("tools"),
    "api_base": {api_base!r}, "api_key": "no-key", "stream": True, "stream_options": {{"include_usage": True}},
    "max_retries": 0, "drop_params": True}}

async def _raw_call():
    response = await litellm.acompletion(**_raw_request)
    async for _chunk in response:
        pass
"""


def write_session(folder: pathlib.Path, count: int) -> None:
    # A prompt, a tool call, its result, repeated, by the model of the turns to come; an answer last.
    messages = conversation(count - 1, model="fake-long-model")
    messages.append(AssistantMessage(content=[TextContent(text="Done.")], model="fake-long-model"))
    with SessionStore(folder / "bench.agent" / f"{SESSION}.jsonl") as store:
        for message in messages:
            store.append(message)


class Arrivals:
    """Answers every request and notes when it arrived (and the kernel's CPU time then): when the
    provider has read its body, before parsing it (a 20 000-message body, 3 MB, takes the fake
    provider ~30 ms to parse and check, which is no part of the client's time to send it)."""

    def __init__(self) -> None:
        self.pid = 0
        self.bodies: list[dict] = []
        self.times: list[tuple[float, float]] = []
        self.streaming = False  # answer in 1 s of chunks instead of at once
        self._event = threading.Condition()
        self._received: tuple[float, float] | None = None

    def received(self) -> None:
        """The provider's ``on_received``: one request is in flight at a time here."""
        self._received = (time.monotonic(), process_cpu(self.pid))

    def __call__(self, body: dict):
        arrived, cpu = self._received or (time.monotonic(), process_cpu(self.pid))
        self._received = None
        with self._event:
            self.bodies.append(body)
            self.times.append((arrived, cpu))
            self._event.notify_all()
        # With its usage, as providers report it: litellm would otherwise count the tokens itself.
        reported = usage(prompt_tokens=25 * len(body.get("messages", ())), completion_tokens=5)
        if self.streaming:
            return text(*(["The trend is flat. "] * 20), usage=reported, delay=0.05)
        return text("ok", usage=reported)

    def wait(self, count: int, timeout: float = 120.0) -> tuple[float, float]:
        with self._event:
            if not self._event.wait_for(lambda: len(self.times) >= count, timeout):
                raise TimeoutError("the provider saw no request")
            return self.times[count - 1]


def _timed(h: KernelHarness, arrivals: Arrivals, code: str) -> tuple[float, float]:
    """(wall, kernel CPU) from sending ``code`` to the next request's arrival."""
    count = len(arrivals.times) + 1
    cpu = process_cpu(arrivals.pid)
    sent = time.monotonic()
    h.send(code)
    arrived, cpu_then = arrivals.wait(count)
    return arrived - sent, cpu_then - cpu


def _median_pair(times: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def _turn_done(h: KernelHarness) -> bool:
    return h.evaluate(f"turn_done({SESSION!r})") == "True"


def _setup(h: KernelHarness, arrivals: Arrivals, api_base: str) -> None:
    arrivals.pid = h.km.provisioner.process.pid
    h.execute("%load_ext jupyter_agent")
    h.execute(AGENT_TEST_SETUP)
    h.execute(KERNEL_SETUP.format(model=MODEL, api_base=api_base), timeout=180)


def request_rows(h: KernelHarness, arrivals: Arrivals, folder: pathlib.Path, api_base: str, rounds: int) -> tuple:
    """(agent, raw) per round, each (wall, CPU): cell → request."""
    body_file = folder / "request.json"
    raw_cell = "_raw_task = asyncio.ensure_future(_raw_call())"
    agent, raw = [], []
    for index in range(rounds + 1):  # the first round warms both paths up and is not counted
        pairs = []
        for _ in range(PAIRS_PER_ROUND):
            timed = _timed(h, arrivals, AGENT_CELL)
            h.wait_for(lambda: _turn_done(h), 300, "the agent turn")
            body_file.write_text(json.dumps(arrivals.bodies[-1]))
            h.execute(RAW_SETUP.format(path=str(body_file), model=MODEL, api_base=api_base), timeout=120)
            raw_timed = _timed(h, arrivals, raw_cell)
            h.wait_for(lambda: h.evaluate("_raw_task.done()") == "True", 300, "the raw request")
            pairs.append((timed, raw_timed))
        if index:
            agent.append(_median_pair([p[0] for p in pairs]))
            raw.append(_median_pair([p[1] for p in pairs]))
    return agent, raw


def rtt_rows(h: KernelHarness, arrivals: Arrivals, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Per round: the max and p50 of 1+1 from the request's arrival to 3 s after the turn, and idle max."""
    worst, typical, idle_worst = [], [], []
    arrivals.streaming = True
    try:
        for _ in range(rounds):
            idle = [h.round_trip() for _ in range(30)]
            count = len(arrivals.times) + 1
            h.send(AGENT_CELL)
            arrivals.wait(count)
            samples = []
            ended: float | None = None
            while ended is None or time.monotonic() - ended < AFTER_RESPONSE:
                samples.append(h.round_trip())
                h.drain(0)  # the page's part: answer the panel's comm_open with a hello
                if ended is None and _turn_done(h):
                    ended = time.monotonic()
            worst.append(max(samples))
            typical.append(statistics.median(samples))
            idle_worst.append(max(idle))
    finally:
        arrivals.streaming = False
    return worst, typical, idle_worst


def restart_rows(h: KernelHarness, arrivals: Arrivals, api_base: str, rounds: int) -> tuple[list, list]:
    """Per round (a restart each): the first turn's (wall, CPU) cell → request, and the next turn's."""
    first, warm = [], []
    for _ in range(rounds):
        h.restart()
        _setup(h, arrivals, api_base)
        first.append(_timed(h, arrivals, AGENT_CELL))
        h.wait_for(lambda: _turn_done(h), 300, "the first turn")
        warm.append(_timed(h, arrivals, AGENT_CELL))
        h.wait_for(lambda: _turn_done(h), 300, "the next turn")
    return first, warm


def main(sizes: list[int], rounds: int) -> None:
    arrivals = Arrivals()
    report: list[str] = []
    with FakeProvider(fallback=arrivals, models=["fake-long-model"], on_received=arrivals.received) as fp:
        for count in sizes:
            with tempfile.TemporaryDirectory() as tmp:
                folder = pathlib.Path(tmp)
                (folder / "bench.ipynb").write_text("{}")
                write_session(folder, count)
                env = {"JPY_SESSION_NAME": str(folder / "bench.ipynb"), "JUPYTER_AGENT_MODEL": MODEL, "OPENAI_API_KEY": "no-key"}
                h = KernelHarness(env=env, cwd=tmp).start()
                try:
                    _setup(h, arrivals, fp.api_base)
                    agent, raw = request_rows(h, arrivals, folder, fp.api_base, rounds)
                    messages = len(arrivals.bodies[-1]["messages"])
                    worst, typical, idle = rtt_rows(h, arrivals, rounds)
                    first, warm = restart_rows(h, arrivals, fp.api_base, rounds)
                finally:
                    h.shutdown()
            target = TARGETS.get(count, DEFAULT_TARGET)
            report += [
                f"== long session: {count} prior messages ({messages} in the request), {rounds} interleaved rounds, real kernel ==",
                row("cell → HTTP request, wall", [a[0] for a in agent], [r[0] for r in raw]),
                row("cell → HTTP request, kernel CPU", [a[1] for a in agent], [r[1] for r in raw]),
                verdict("agent / raw litellm, wall", ratios([a[0] for a in agent], [r[0] for r in raw]), target, unit="×"),
                f"1+1 from the request to {AFTER_RESPONSE:.0f} s after the turn: max {spread(worst, 1000)} ms, "
                f"median {spread(typical, 1000)} ms; idle just before: max {spread(idle, 1000)} ms",
                verdict("1+1 max during and after the response", worst, RTT_TARGET, "<", " ms", 1000, 1),
                row(
                    "first turn after a restart (loads the session), cell → request, wall",
                    [f[0] for f in first],
                    [w[0] for w in warm],
                )
                + " (baseline: the next turn)",
                row("first turn after a restart, kernel CPU", [f[1] for f in first], [w[1] for w in warm]),
                verdict("first turn after a restart", [f[0] for f in first], RESTART_TARGET, unit=" s"),
            ]
    print("\n".join(report))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    main(options.messages, options.rounds)
