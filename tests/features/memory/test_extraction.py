"""Memory extraction after a turn: one request, robust parsing, undoable changes, never a raise."""

import pytest

from jupyter_agent import AssistantMessage, TextContent, Usage, UserMessage
from jupyter_agent.features.memory.extraction import (
    EXTRACTION_SYSTEM_PROMPT,
    MAX_CHANGES_PER_TURN,
    extract_memories,
    parse_memories,
)
from jupyter_agent.features.memory.store import MemoryStore
from jupyter_agent.testing.scripted import ScriptedModel, failure, reply

pytestmark = pytest.mark.anyio

FACT = '{"memories": [{"name": "sales-dates", "summary": "sales.csv dates are day-first", "content": "Parse sales.csv with dayfirst=True."}]}'


def turn():
    return [
        UserMessage(content="Load sales.csv; the dates are day-first, remember that."),
        AssistantMessage(content=[TextContent(text="Loaded with dayfirst=True.")]),
    ]


@pytest.fixture
def store(tmp_path):
    return MemoryStore(tmp_path / "analysis.agent" / "memory")


# -- parsing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        FACT,
        f"```json\n{FACT}\n```",
        f"Here is what I found:\n{FACT}\nThat is all.",
        '[{"name": "sales-dates", "summary": "sales.csv dates are day-first", "content": "Parse sales.csv with dayfirst=True."}]',
    ],
)
def test_answers_are_read_through_fences_and_prose(answer):
    assert parse_memories(answer) == [
        {"name": "sales-dates", "summary": "sales.csv dates are day-first", "content": "Parse sales.csv with dayfirst=True."}
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "Nothing worth remembering.",
        "{not json",
        '{"memories": "none"}',
        '{"memories": [1, "x", {"name": "a"}, {"name": " ", "content": "c"}]}',
        "null",
    ],
)
def test_junk_means_no_changes(answer):
    assert parse_memories(answer) == []


def test_a_bad_summary_is_dropped_and_the_count_is_capped():
    items = ",".join(f'{{"name": "f{n}", "content": "c{n}", "summary": 5}}' for n in range(9))
    proposals = parse_memories(f'{{"memories": [{items}]}}')
    assert len(proposals) == MAX_CHANGES_PER_TURN and proposals[0] == {"name": "f0", "content": "c0", "summary": None}


# -- extraction --------------------------------------------------------------------------------


async def test_extraction_writes_a_fact_and_it_is_listed(store):
    scripted = ScriptedModel([reply(FACT, usage=Usage(input=300, output=40))])
    usages = []
    changes = await extract_memories(scripted, scripted.model(), turn(), store, on_usage=usages.append)
    assert [(c.name, c.kind, c.summary) for c in changes] == [("sales-dates", "created", "sales.csv dates are day-first")]
    assert [fact.name for fact in store.list()] == ["sales-dates"]
    assert "- sales-dates: sales.csv dates are day-first" in store.index_text()
    assert usages[0].input == 300
    [request] = scripted.requests
    assert request.context.system_prompt == EXTRACTION_SYSTEM_PROMPT and request.context.tools == []
    prompt = request.context.messages[0].content
    assert "<turn>" in prompt and "the dates are day-first, remember that" in prompt and "<memory-index>\n(empty)" in prompt
    assert request.options.max_tokens == 1_024
    assert changes[0].undo() and store.list() == []


async def test_the_existing_index_is_shown_and_an_unchanged_fact_is_not_rewritten(store):
    store.write("sales-dates", "Parse sales.csv with dayfirst=True.", summary="sales.csv dates are day-first")
    before = (store.folder / "sales-dates.md").read_text()
    scripted = ScriptedModel([reply(FACT)])
    assert await extract_memories(scripted, scripted.model(), turn(), store) == []
    assert "- sales-dates: sales.csv dates are day-first" in scripted.requests[0].context.messages[0].content
    assert (store.folder / "sales-dates.md").read_text() == before


@pytest.mark.parametrize(
    "response", [failure("provider down"), reply("I think nothing."), reply('{"memories": [{"name": "!!!", "content": "x"}]}')]
)
async def test_failures_and_junk_change_nothing_and_never_raise(store, response):
    scripted = ScriptedModel([response])
    assert await extract_memories(scripted, scripted.model(), turn(), store) == []
    assert store.list() == []


async def test_a_raising_stream_fn_changes_nothing(store):
    def broken(model, context, options=None, metadata=None):
        raise ConnectionError("offline")

    assert await extract_memories(broken, ScriptedModel().model(), turn(), store) == []


async def test_an_empty_turn_makes_no_request(store):
    scripted = ScriptedModel([reply(FACT)])
    assert await extract_memories(scripted, scripted.model(), [], store) == [] and scripted.requests == []
