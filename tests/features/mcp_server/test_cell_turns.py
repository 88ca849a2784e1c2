import asyncio

import pytest
from serve_fakes import Shell

from jupyter_agent.features.mcp_server.cell_turns import WAITING_FOR_CELL, CellTurns
from jupyter_agent.testing.waiting import assert_quiet_for, wait_until

pytestmark = pytest.mark.anyio


async def test_a_call_waits_while_a_cell_runs_and_runs_when_it_ends():
    shell = Shell()
    turns = CellTurns(shell)
    turns.install()
    order, waits = [], []

    async def work():
        order.append("external")

    shell.events.trigger("pre_run_cell")  # an awaiting cell: the loop is free, the cell is not over
    call = asyncio.ensure_future(turns.run(work, on_wait=waits.append))
    await wait_until(lambda: waits, what="the call saying it waits")
    await assert_quiet_for(0.01, lambda: order, "the call running while the cell runs")
    assert order == [] and waits == [WAITING_FOR_CELL]
    order.append("cell ended")
    shell.events.trigger("post_run_cell")
    await asyncio.wait_for(call, 1)
    assert order == ["cell ended", "external"]


async def test_the_calls_own_cell_events_are_not_a_cell_and_calls_take_turns():
    shell = Shell()
    turns = CellTurns(shell)
    turns.install()
    order = []

    async def work(name):
        shell.events.trigger("pre_run_cell")  # the python tool's own run_cell
        order.append(f"{name} start")
        await assert_quiet_for(0.01, lambda: order[-1] != f"{name} start", f"another call during {name}'s")
        order.append(f"{name} end")
        shell.events.trigger("post_run_cell")

    await asyncio.wait_for(asyncio.gather(turns.run(lambda: work("a")), turns.run(lambda: work("b"))), 1)
    assert order == ["a start", "a end", "b start", "b end"]
    assert not turns.cell_running


async def test_started_inside_a_cell_it_waits_for_that_cell_and_remove_releases_waiters():
    shell = Shell()
    turns = CellTurns(shell, cell_running=True)  # %agent serve's own cell is executing
    turns.install()
    ran = []

    async def work():
        ran.append(True)

    call = asyncio.ensure_future(turns.run(work))
    await assert_quiet_for(0.01, lambda: ran, "the call running inside the serving cell")
    assert not ran
    turns.remove()
    await asyncio.wait_for(call, 1)
    assert ran and shell.events.callbacks == {"pre_run_cell": [], "post_run_cell": []}
    turns.remove()  # twice is harmless


async def test_without_a_shell_nothing_waits():
    turns = CellTurns(None)
    turns.install()

    async def work():
        return 7

    assert await turns.run(work) == 7
