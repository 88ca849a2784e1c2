"""A long session: from a ``%%agent`` cell to the provider's HTTP request, with 2 000 prior messages.

A real ipykernel (through jupyter_client) and the fake OpenAI-compatible provider over HTTP,
served from this process, which notes when each request arrives. The session holds 2 000 prior
messages (a prompt, a tool call, its result, repeated). Each round times, in the kernel:

* the agent: a ``%%agent`` cell (default tools, ``-p yolo``) sent → its request at the provider;
* the baseline: a cell calling ``litellm.acompletion`` with that request's own messages and
  tools (the last request the agent sent), sent → its request at the provider.

Rounds alternate (≥ 5), each the median of 3 alternating agent/raw pairs; wall time is the send → arrival interval on the machine's monotonic
clock, CPU time the kernel process's user + system time over the same interval (/proc, 10 ms
resolution). Printed, min–median–max over the rounds: both, wall and CPU, with the round-by-round
ratio. Target: the agent ≤ 2× raw litellm in wall time, judged on the worst round. The garbage
collector is on, as in a notebook.

    python benchmarks/long_session.py [--messages 2000] [--rounds 5]
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

from bench_stats import process_cpu, ratios, row, verdict  # noqa: E402
from kernel_harness import AGENT_TEST_SETUP, KernelHarness  # noqa: E402

from jupyter_agent.testing.fake_provider import FakeProvider, text  # noqa: E402

TARGET = 2.0
# A round's figure is the median of this many alternating agent/raw pairs: a collection in the
# kernel lands in one request or the other at random and would decide a single pair's ratio.
PAIRS_PER_ROUND = 3
MODEL = "openai/fake-model"

BUILD_SESSION = """
from jupyter_agent.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
_messages = []
for _i in range({count}):
    _kind = _i % 3
    if _kind == 0 or _i == {count} - 1:
        _messages.append(UserMessage(content=f"Plot column {{_i}} of df against time and describe the trend."))
    elif _kind == 1:
        _code = f"ax = df.plot(x='time', y='c{{_i}}')\\nax.set_title('column {{_i}}')\\n"
        _call = ToolCall(id=f"call_{{_i}}", name="python", arguments={{"code": _code}})
        _messages.append(AssistantMessage(content=[TextContent(text="Let me plot that."), _call], model="fake-model"))
    else:
        _out = f"<Axes: title={{{{'center': 'column {{_i}}'}}}}>\\nmean={{_i * 0.5:.2f}}"
        _messages.append(ToolResultMessage(tool_call_id=f"call_{{_i - 1}}", tool_name="python", content=[TextContent(text=_out)]))
_messages.append(AssistantMessage(content=[TextContent(text="Done.")], model="fake-model"))
_store = _agent.sessions.get("long").store
for _m in _messages[-{count}:]:
    _store.append(_m)
del _messages, _m
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


class Arrivals:
    """Answers every request at once and notes when it arrived (and the kernel's CPU time then)."""

    def __init__(self) -> None:
        self.pid = 0
        self.bodies: list[dict] = []
        self.times: list[tuple[float, float]] = []
        self._event = threading.Condition()

    def __call__(self, body: dict):
        arrived, cpu = time.monotonic(), process_cpu(self.pid)
        with self._event:
            self.bodies.append(body)
            self.times.append((arrived, cpu))
            self._event.notify_all()
        return text("ok")

    def wait(self, count: int, timeout: float = 60.0) -> tuple[float, float]:
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


def main(count: int, rounds: int) -> None:
    arrivals = Arrivals()
    with FakeProvider(fallback=arrivals, models=["fake-model"]) as fp, tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        (folder / "bench.ipynb").write_text("{}")
        env = {"JPY_SESSION_NAME": str(folder / "bench.ipynb"), "JUPYTER_AGENT_MODEL": MODEL, "OPENAI_API_KEY": "no-key"}
        h = KernelHarness(env=env, cwd=tmp).start()
        try:
            arrivals.pid = h.km.provisioner.process.pid
            h.execute("%load_ext jupyter_agent")
            h.execute(AGENT_TEST_SETUP)
            h.execute(f"%config AgentMagics.api_base = {fp.api_base!r}")
            h.execute(BUILD_SESSION.format(count=count), timeout=300)
            h.execute("from jupyter_agent.model.litellm_loader import litellm_module_sync; litellm_module_sync()", timeout=120)
            body_file = folder / "request.json"
            agent_cell = "%%agent -s long -p yolo\nWhat is the trend of the last column?"
            raw_cell = "_raw_task = asyncio.ensure_future(_raw_call())"
            agent, raw = [], []
            for index in range(rounds + 1):  # the first round warms both paths up and is not counted
                pairs = []
                for _ in range(PAIRS_PER_ROUND):
                    wall, cpu = _timed(h, arrivals, agent_cell)
                    h.wait_for(lambda: h.evaluate("turn_done('long')") == "True", 120, "the agent turn")
                    body_file.write_text(json.dumps(arrivals.bodies[-1]))
                    h.execute(RAW_SETUP.format(path=str(body_file), model=MODEL, api_base=fp.api_base))
                    raw_wall, raw_cpu = _timed(h, arrivals, raw_cell)
                    h.wait_for(lambda: h.evaluate("_raw_task.done()") == "True", 120, "the raw request")
                    pairs.append(((wall, cpu), (raw_wall, raw_cpu)))
                if index:
                    agent.append(_median_pair([p[0] for p in pairs]))
                    raw.append(_median_pair([p[1] for p in pairs]))
            messages = len(arrivals.bodies[-1]["messages"])
        finally:
            h.shutdown()
    print(f"== long session: {count} prior messages ({messages} in the request), {rounds} interleaved rounds, real kernel ==")
    print(row("cell → HTTP request, wall", [a[0] for a in agent], [r[0] for r in raw]))
    print(row("cell → HTTP request, kernel CPU", [a[1] for a in agent], [r[1] for r in raw]))
    print(verdict("agent / raw litellm, wall", ratios([a[0] for a in agent], [r[0] for r in raw]), TARGET, unit="×"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    main(options.messages, options.rounds)
