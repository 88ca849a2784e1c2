"""The fake provider as a process: ``python -m jupyter_agent.testing.fake_provider --script FILE``.

It serves scripted OpenAI-compatible streams on 127.0.0.1 until interrupted (the stream benchmark
runs it beside raw litellm).
"""

from __future__ import annotations

import argparse
import itertools
import json
import threading
from collections.abc import Sequence

from jupyter_agent.testing.fake_provider import FakeProvider, echo_responder, response_from_json


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve scripted OpenAI-compatible streams on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on start)")
    parser.add_argument(
        "--script",
        help='JSON list: {"text": ...} | {"reasoning": ..., "text": ...} | '
        '{"tool_calls": [{"name": ..., "arguments": {...}}], "text": ...} | {"error": 429, "message": ...}',
    )
    parser.add_argument("--echo", action="store_true", help="echo the user once the script is exhausted")
    parser.add_argument("--repeat", action="store_true", help="play the script in a loop, forever")
    args = parser.parse_args(argv)
    responses = []
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            responses = [response_from_json(spec) for spec in json.load(handle)]
    fallback = echo_responder if args.echo else None
    if args.repeat and responses:
        cycle = itertools.cycle(responses)
        fallback, responses = (lambda body: next(cycle)), []
    provider = FakeProvider(responses, port=args.port, fallback=fallback)
    with provider:
        print(f"fake provider listening on {provider.api_base}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
