"""A real LiteLLM proxy (litellm's own proxy server) on 127.0.0.1 in front of the fake provider.

Without PostgreSQL the proxy keeps no virtual keys; ``proxy_hooks.py`` (copied beside the config)
defines them through the proxy's ``custom_auth``, with ``custom_auth_run_common_checks`` so the
proxy enforces their budgets itself, and logs what the proxy attributes each request to.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from jupyter_agent.testing.waiting import wait_until_blocking, wait_until_serving

MASTER_KEY = "sk-proxy-master"
ALIAS = "team-model"
# USD per token, on the proxy's deployment: what the proxy bills (the client knows no price).
INPUT_PRICE = 0.000001
OUTPUT_PRICE = 0.000002
START_TIMEOUT = 150.0  # a cold start imports litellm's whole proxy (tens of seconds under load)

CONFIG = """\
model_list:
  - model_name: {alias}
    litellm_params:
      model: openai/fake-model
      api_base: {upstream}
      api_key: upstream-key
      input_cost_per_token: {input_price}
      output_cost_per_token: {output_price}
litellm_settings:
  callbacks: proxy_hooks.spend_log
  telemetry: false
general_settings:
  master_key: {master_key}
  custom_auth: proxy_hooks.user_api_key_auth
  custom_auth_run_common_checks: true
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiteLLMProxy:
    def __init__(self, folder: Path, upstream: str, keys: dict[str, dict]) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / "spend.jsonl"
        self.output = folder / "proxy.log"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(__file__).with_name("proxy_hooks.py"), folder / "proxy_hooks.py")
        (folder / "config.yaml").write_text(
            CONFIG.format(
                alias=ALIAS, upstream=upstream, input_price=INPUT_PRICE, output_price=OUTPUT_PRICE, master_key=MASTER_KEY
            )
        )
        self.env = {
            **os.environ,
            "JUPYTER_AGENT_PROXY_KEYS": json.dumps(keys),
            "JUPYTER_AGENT_PROXY_LOG": str(self.log),
            # The price map comes with litellm: the proxy must not try to fetch it.
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        self.process: subprocess.Popen | None = None

    def start(self) -> "LiteLLMProxy":
        command = [sys.executable, "-m", "litellm.proxy.proxy_cli", "--config", "config.yaml"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--num_workers", "1"]
        with open(self.output, "wb") as output:
            self.process = subprocess.Popen(command, cwd=self.folder, env=self.env, stdout=output, stderr=subprocess.STDOUT)
        try:
            wait_until_serving(f"{self.url}/health/liveliness", self.process, START_TIMEOUT, "the LiteLLM proxy")
        except RuntimeError as error:
            self.stop()
            raise RuntimeError(f"{error}:\n{self.tail()}") from None
        return self

    def tail(self, lines: int = 40) -> str:
        text = self.output.read_text(errors="replace") if self.output.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def logged(self, count: int, timeout: float = 20.0) -> list[dict]:
        """The spend log once it has ``count`` lines (the proxy writes it after the response)."""

        def lines() -> list[str]:
            return self.log.read_text().splitlines() if self.log.exists() else []

        wait_until_blocking(lambda: len(lines()) >= count, timeout, f"{count} lines in the spend log", every=0.05)
        return [json.loads(line) for line in lines()]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
