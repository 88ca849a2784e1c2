"""The memory tool: list, read, write, delete by name; refusals are error results."""

import pytest

from jupyter_agent import AbortController, ToolCall
from jupyter_agent.features.memory.store import MemoryStore
from jupyter_agent.features.memory.tool import memory_tool
from jupyter_agent.loop.execute_tool import execute_tool

pytestmark = pytest.mark.anyio


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "nb.agent" / "memory")


@pytest.fixture
def changes():
    return []


@pytest.fixture
def use(store, changes):
    tool = memory_tool(store, on_change=changes.append)

    async def call(**arguments):
        return await execute_tool(
            ToolCall(id="m", name="memory", arguments=arguments), {"memory": tool}, AbortController().signal
        )

    return call


async def test_write_then_list_and_read(use, store, changes):
    assert (await use(action="list")).text == "No memory notes yet."
    result = await use(action="write", name="Sales dates", content="Dates are day-first.", summary="dd/mm dates")
    assert not result.is_error and result.text == "Memory note 'sales-dates' created."
    assert result.details == {"memory_change": {"name": "sales-dates", "kind": "created", "summary": "dd/mm dates"}}
    assert [change.name for change in changes] == ["sales-dates"] and store.read("sales-dates") is not None
    listing = (await use(action="list")).text
    assert listing.startswith("- sales-dates: dd/mm dates (updated 20")
    read = (await use(action="read", name="sales-dates")).text
    assert read.startswith("# sales-dates\ndd/mm dates\n(updated ") and read.endswith("\n\nDates are day-first.")


async def test_delete_and_undo_through_the_reported_change(use, store, changes):
    await use(action="write", name="a", content="fact a")
    result = await use(action="delete", name="a")
    assert result.text == "Memory note 'a' deleted." and store.read("a") is None
    assert changes[-1].undo() and store.read("a").content == "fact a"


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"action": "read"}, "action=read needs the note's name."),
        ({"action": "read", "name": "nope"}, "No memory note named 'nope'. Notes: none yet."),
        ({"action": "delete", "name": "nope"}, "No memory note named 'nope'."),
        ({"action": "write", "name": "a"}, "action=write needs content: the complete fact."),
        ({"action": "write", "name": "memory", "content": "x"}, "The name 'memory' is reserved for the index; choose another."),
        ({"action": "forget", "name": "a"}, 'Validation failed for tool "memory"'),
    ],
)
async def test_refusals_are_error_results(use, changes, arguments, message):
    result = await use(**arguments)
    assert result.is_error and result.text.startswith(message)
    assert changes == []


async def test_a_missing_note_lists_the_known_names(use):
    await use(action="write", name="b", content="fact b")
    assert (await use(action="read", name="c")).text == "No memory note named 'c'. Notes: b."


def test_writing_memory_is_a_gated_tool(store):
    assert memory_tool(store).read_only is False


def test_only_writes_and_deletes_count_as_mutating(store):
    from jupyter_agent.features.memory.tool import MemoryArgs

    tool = memory_tool(store)
    assert not tool.read_only
    assert [
        tool.read_only_call(MemoryArgs(action=action, name="n", content="c")) for action in ("list", "read", "write", "delete")
    ] == [True, True, False, False]
