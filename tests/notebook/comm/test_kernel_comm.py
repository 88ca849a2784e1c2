"""The comm target in a real ipykernel, driven the way JupyterLab drives it (comms over a subshell)."""

import pytest
from kernel_harness import KernelHarness

from jupyter_agent.notebook.comm.protocol import PROTOCOL_VERSION, TARGET_NAME

pytestmark = pytest.mark.kernel

SETUP = """
import threading
from jupyter_agent.notebook.comm import register_comm_target, current_cell_id

class Handler:
    calls = []
    def sessions_folder(self):
        return None
    def stop(self, session):
        self.calls.append(("stop", session, threading.current_thread() is threading.main_thread()))
        return "stopped"
    def steer(self, text, session):
        self.calls.append(("steer", text, threading.current_thread() is threading.main_thread()))
        return "steered"

handler = Handler()
target = register_comm_target(get_ipython(), handler)
"""


@pytest.fixture(scope="module")
def kernel():
    harness = KernelHarness().start()
    try:
        harness.execute(SETUP)
        yield harness
    finally:
        harness.shutdown()


def shell_request(kernel, msg_type, content, *, subshell=None, metadata=None):
    msg = kernel.kc.session.msg(msg_type, content)
    if subshell:
        msg["header"]["subshell_id"] = subshell
    if metadata:
        msg["metadata"] = metadata
    kernel.kc.shell_channel.send(msg)
    return msg["header"]["msg_id"]


def comm_data(kernel, comm_id):
    return [m["content"]["data"] for m in kernel.messages if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id]


def test_comm_info_finds_the_target_without_opening_anything(kernel):
    reply = kernel.wait_reply(kernel.kc.comm_info(target_name=TARGET_NAME))
    assert [info["target_name"] for info in reply.content["comms"].values()] == [TARGET_NAME]
    assert not [m for m in kernel.messages if m["msg_type"] == "comm_open"]  # the beacon is never announced


def test_a_frontend_comm_over_a_subshell_is_served_on_the_kernel_loop(kernel):
    kernel.kc.control_channel.send(kernel.kc.session.msg("create_subshell_request", {}))
    subshell = kernel.kc.get_control_msg(timeout=10)["content"]["subshell_id"]
    hello = {"type": "hello", "version": PROTOCOL_VERSION, "client": "test"}
    shell_request(kernel, "comm_open", {"comm_id": "fe-1", "target_name": TARGET_NAME, "data": hello}, subshell=subshell)
    welcome = kernel.wait_for(lambda: comm_data(kernel, "fe-1"), what="the welcome")[0]
    assert welcome["type"] == "welcome" and welcome["runs"] == []

    shell_request(kernel, "comm_msg", {"comm_id": "fe-1", "data": {"type": "stop", "request_id": "r1"}}, subshell=subshell)
    shell_request(
        kernel, "comm_msg", {"comm_id": "fe-1", "data": {"type": "steer", "request_id": "r2", "text": "hi"}}, subshell=subshell
    )
    kernel.wait_for(lambda: len(comm_data(kernel, "fe-1")) >= 3, what="two replies")
    assert comm_data(kernel, "fe-1")[1:] == [
        {"type": "reply", "request_id": "r1", "ok": True, "message": "stopped"},
        {"type": "reply", "request_id": "r2", "ok": True, "message": "steered"},
    ]
    # Both ran on the main thread (the kernel's loop), not on the subshell's thread.
    assert kernel.evaluate("handler.calls") == "[('stop', None, True), ('steer', 'hi', True)]"
    assert kernel.evaluate("target.connected") == "True"


def test_the_magic_reads_the_cell_id_jupyterlab_sends(kernel):
    msg_id = shell_request(
        kernel,
        "execute_request",
        {"code": "print(current_cell_id(get_ipython()))", "silent": False},
        metadata={"cellId": "cell-42"},
    )
    kernel.wait_reply(msg_id)
    kernel.wait_for(lambda: kernel.is_idle(msg_id), what="idle")
    assert kernel.text_of(msg_id).strip() == "cell-42"
