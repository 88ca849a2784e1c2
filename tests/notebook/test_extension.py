import subprocess
import sys


def test_loading_imports_nothing_heavy():
    code = (
        "import sys, time\n"
        "from IPython.testing.globalipapp import start_ipython\n"
        "ip = start_ipython()\n"
        "before = set(sys.modules)\n"
        "ip.run_line_magic('load_ext', 'jupyter_agent')\n"
        "new = set(sys.modules) - before\n"
        "print(sorted(m for m in new if m.split('.')[0] in ('litellm', 'ipywidgets', 'openai', 'pandas')))\n"
    )
    assert last_line_printed(code, model="demo") == "[]"


def last_line_printed(code: str, model: str) -> str:
    """The last line ``code`` prints in a fresh interpreter, with ``model`` as JUPYTER_AGENT_MODEL."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={"JUPYTER_AGENT_MODEL": model, "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


LOAD_IN_A_KERNEL_LOOP = """
import asyncio, sys
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
async def load():
    shell.run_line_magic("load_ext", "jupyter_agent")  # as in a kernel: what follows the cell waits for the loop
    heavy = ("pydantic", "anyio", "jupyter_agent.messages", "jupyter_agent.notebook.runner", "jupyter_agent.runtime.run",
             "jupyter_agent.session.store", "jupyter_agent.features.registry", "jupyter_agent.notebook.comm.protocol")
    print(sorted(name for name in sys.modules if name.startswith(heavy)), flush=True)
asyncio.run(load())
# Not the interpreter's own exit while litellm's import runs in its daemon thread: that
# finalization crashes now and then (SIGSEGV or SIGABRT, 1 exit in 10 with litellm 1.110).
import os
os._exit(0)
"""


def test_loading_in_a_kernel_imports_none_of_a_turns_modules_nor_pydantic():
    # %load_ext must take well under 0.1 s: the models, the runtime and the turn's modules are
    # the warm-up's to import, in the background, after the cell.
    assert last_line_printed(LOAD_IN_A_KERNEL_LOOP, model="") == "[]"


UNLOAD = """
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
shell.config.AgentMagics.preload = False
shell.run_line_magic("load_ext", "jupyter_agent")
assert shell.find_cell_magic("agent") and shell.find_line_magic("agent")
shell.run_line_magic("unload_ext", "jupyter_agent")
assert shell.find_cell_magic("agent") is None and shell.find_line_magic("agent") is None
def other_agent(line):  # another extension's %agent, registered over ours
    return "other"
shell.run_line_magic("load_ext", "jupyter_agent")
shell.register_magic_function(other_agent, "line", "agent")
shell.run_line_magic("unload_ext", "jupyter_agent")
assert shell.find_cell_magic("agent") is None
assert shell.find_line_magic("agent") is other_agent, "another extension's %agent was removed"
print("ok")
"""


def test_unloading_removes_our_agent_magics_and_no_one_elses(tmp_path):
    done = subprocess.run([sys.executable, "-c", UNLOAD], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.stdout.strip().endswith("ok"), done.stderr


REGISTER_AFTER_THE_CELL = """
import asyncio, threading
from IPython.core.interactiveshell import InteractiveShell
from jupyter_agent.notebook import extension
shell = InteractiveShell.instance()
shell.config.AgentMagics.preload = False
registered = []
extension._register_lab_target = lambda ipython, magics: registered.append(threading.current_thread().name)
async def main():
    shell.run_line_magic("load_ext", "jupyter_agent")
    assert registered == [], "registered in the %load_ext cell"
    for _ in range(500):  # bounded: 5 s
        await asyncio.sleep(0.01)
        if registered:
            break
    assert registered == [threading.current_thread().name], registered  # on the loop's thread
    shell.run_line_magic("load_ext", "jupyter_agent")
    shell.run_line_magic("unload_ext", "jupyter_agent")  # before the new load's registration
    await asyncio.sleep(0.5)
    assert len(registered) == 1, "an unloaded extension registered its target"
asyncio.run(main())
print("ok")
"""


def test_the_comm_target_is_registered_on_the_loop_after_the_cell_and_never_after_an_unload(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", REGISTER_AFTER_THE_CELL], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.stdout.strip().endswith("ok"), done.stderr
