"""A library run whose session file hits a size limit mid-run, as on a full disk, in a process of its own.

    python -m jupyter_agent.testing.full_disk SESSION_FILE [ROOM_BYTES]

The session gets one message, then the file may grow by ``ROOM_BYTES`` more (``RLIMIT_FSIZE``;
a write past it fails with EFBIG as one on a full disk fails with ENOSPC) while a scripted run
recorded with ``run.add_listener(store.recorder())`` makes a 5 000-character tool result. Prints
one JSON line: the run's ``reason`` and ``error``, the ``messages`` of its transcript, and the
messages the file gives back (``kept``).
"""

from __future__ import annotations

import asyncio
import json
import resource
import signal
import sys

from pydantic import BaseModel

from jupyter_agent.loop import AgentTool, ToolOutput
from jupyter_agent.messages import UserMessage
from jupyter_agent.runtime import run_agent
from jupyter_agent.session import SessionStore
from jupyter_agent.testing.scripted import ScriptedModel, call, reply, tool_calls


class _Size(BaseModel):
    size: int


async def _fill(args: _Size, signal_: object) -> ToolOutput:
    return ToolOutput(content="x" * args.size)


async def full_disk_run(path: str, room: int) -> dict[str, object]:
    store = SessionStore(path)
    store.append(UserMessage(content="earlier"))
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (store.path.stat().st_size + room, hard))
    tool = AgentTool(name="fill", description="Fill", parameters=_Size, execute=_fill, label="Fill")
    model = ScriptedModel([tool_calls(call("fill", {"size": 5000})), tool_calls(call("fill", {"size": 10})), reply("done")])
    run = run_agent(model.model("m"), "go", tools=[tool], stream_fn=model, messages=store.messages())
    run.add_listener(store.recorder())
    result = await run.result()
    store.close()
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    kept = SessionStore(path, read_only=True).history()
    return {"reason": result.reason, "error": result.error, "messages": len(result.messages), "kept": len(kept)}


def main() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG instead of killing
    room = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    print(json.dumps(asyncio.run(full_disk_run(sys.argv[1], room))))


if __name__ == "__main__":
    main()
