import asyncio

import pytest

from jupyter_agent import Agent, AgentLoopError, RunCancelled
from jupyter_agent.testing.scripted import ScriptedResponse, reply
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


async def test_prompt_delegates_and_keeps_history(scripted):
    scripted.queue(reply("one"), reply("two"))
    agent = Agent(scripted.model(), scripted, system_prompt="sys")
    assert (await agent.prompt("first")).text == "one"
    assert (await agent.prompt("second")).text == "two"
    assert [m.role for m in agent.messages] == ["user", "assistant", "user", "assistant"]
    assert scripted.requests[1].context.system_prompt == "sys"


async def test_second_prompt_while_running_raises(scripted):
    scripted.queue(ScriptedResponse(content=[], hang=True))
    agent = Agent(scripted.model(), scripted)
    task = asyncio.create_task(agent.prompt("slow"))
    await wait_until(lambda: scripted.requests, what="the model's request")
    assert agent.is_running
    with pytest.raises(AgentLoopError, match="^Agent is already running$"):
        await agent.prompt("again")
    agent.abort()
    with pytest.raises(RunCancelled):
        await asyncio.wait_for(task, 2)
    assert not agent.is_running


async def test_subscribe_and_unsubscribe(scripted):
    scripted.queue(reply("a"), reply("b"))
    agent = Agent(scripted.model(), scripted)
    seen = []
    unsubscribe = agent.subscribe(seen.append)
    await agent.prompt("x")
    count = len(seen)
    unsubscribe()
    await agent.prompt("y")
    assert count > 0 and len(seen) == count


async def test_usable_again_after_a_failure(scripted):
    from jupyter_agent.testing.scripted import failure

    scripted.queue(failure("provider down"), reply("recovered"))
    agent = Agent(scripted.model(), scripted)
    with pytest.raises(AgentLoopError, match="provider down"):
        await agent.prompt("x")
    assert not agent.is_running
    assert (await agent.prompt("y")).text == "recovered"
