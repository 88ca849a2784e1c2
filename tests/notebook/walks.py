"""The three walks of issue 26, measured in a real kernel: a prompt, an approval, the ``permissions`` setting.

Each walk lists the ``jupyter_agent`` modules the value passes on its way from where the user
gives it to where it takes effect: those whose functions are handed it or hand it back, and those
on the route of the call where it takes effect (``walk_trace.Walk``):

* **prompt**: from the ``%%agent`` cell to the model's stream function receiving it;
* **approval**: from the click on "Allow once" (the comm message) to the permission gate letting
  the call through (``ApprovalGate.authorize`` returns);
* **permissions**: from ``%config AgentMagics.permissions = "readonly"`` to the gate refusing a
  mutating call (``denied_readonly``).

``python tests/notebook/walks.py`` prints them (``PYTHONPATH`` chooses the checkout measured);
``test_walks.py`` keeps them at most as long as they are now.
"""

from __future__ import annotations

import json
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from kernel_harness import notebook_kernel  # noqa: E402

TRACER = pathlib.Path(__file__).with_name("walk_trace.py")
MARK = "WALKMARK"


def measure(kernel) -> dict[str, dict[str, list[str]]]:
    kernel.execute(TRACER.read_text())
    walks: dict[str, dict[str, list[str]]] = {}

    kernel.execute("script('walk-prompt', reply('done'))")
    # The marker is spelt in two halves here: this cell enters the kernel's history, which the
    # notebook outline reads, and the walk is the prompt's, not this cell's.
    kernel.execute(
        f"walk = Walk(lambda text: {MARK[:4]!r} + {MARK[4:]!r} in text,"
        " stop=('jupyter_agent.model.scripted', '__call__', 'call')).start()"
    )
    kernel.agent_cell("-m walk-prompt -s walk-prompt", f"Say hello {MARK}")
    kernel.wait_turn("walk-prompt")
    walks["prompt"] = json.loads(kernel.evaluate("__import__('json').dumps(walk.calls)").strip("'"))
    kernel.execute("walk.end()")

    kernel.execute("script('walk-approval', tool_calls(call('python', {'code': 'walked = 1'})), reply('done'))")
    msg_id, _ = kernel.agent_cell("-m walk-approval -s walk-approval", "Run it")
    kernel.wait_for(lambda: "to run?" in kernel.widget_text(msg_id), what="the approval bar")
    button = kernel.button(msg_id, "Allow once")
    kernel.execute(
        "walk = Walk(lambda text: text == 'once', stop=('jupyter_agent.runtime.permissions', 'authorize', 'return'),"
        " trigger='comm_msg').start()"
    )
    kernel.click(button.comm_id)
    kernel.wait_turn("walk-approval")
    walks["approval"] = json.loads(kernel.evaluate("__import__('json').dumps(walk.calls)").strip("'"))
    kernel.execute("walk.end()")

    kernel.execute("script('walk-permissions', tool_calls(call('python', {'code': 'walked = 2'})), reply('done'))")
    kernel.execute(
        "walk = Walk(lambda text: text == 'readonly', stop=('jupyter_agent.runtime.permissions', 'denied_readonly', 'call'))"
        ".start()"
    )
    kernel.execute('%config AgentMagics.permissions = "readonly"')
    kernel.agent_cell("-m walk-permissions -s walk-permissions", "Try it")
    kernel.wait_turn("walk-permissions")
    walks["permissions"] = json.loads(kernel.evaluate("__import__('json').dumps(walk.calls)").strip("'"))
    kernel.execute("walk.end()")
    kernel.execute("%config AgentMagics.permissions = None")
    return walks


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        kernel = notebook_kernel(pathlib.Path(folder))
        try:
            walks = measure(kernel)
        finally:
            kernel.shutdown()
    for name, calls in walks.items():
        print(f"{name}: {len(calls)} modules")
        for module, functions in calls.items():
            print(f"  {module}: {', '.join(functions)}")


if __name__ == "__main__":
    main()
