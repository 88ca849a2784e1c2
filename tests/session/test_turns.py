from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage, with_turn_context
from jupyter_agent.session.records import CellRef, MessageRecord, RequestRecord, UsageRecord
from jupyter_agent.session.turns import turn_spans


def test_a_turn_runs_from_its_request_record_to_the_next_one():
    records = [
        MessageRecord(id="early", message=UserMessage(content="before any turn")),
        RequestRecord(id="r1", parent_id="early", model="m", cell=CellRef(cell_id="c1")),
        MessageRecord(id="u1", parent_id="r1", message=UserMessage(content=with_turn_context("Plot it", "Cells: …"))),
        MessageRecord(id="a1", parent_id="u1", message=AssistantMessage(content=[TextContent(text="Done")])),
        UsageRecord(id="s1", parent_id="a1"),
        RequestRecord(id="r2", parent_id="s1", model="m"),
    ]
    first, second = turn_spans(records)
    assert (first.index, first.start, first.cell.cell_id) == (0, "r1", "c1")
    assert first.prompt == "Plot it"  # without its turn context
    assert [record.id for record in first.records] == ["u1", "a1", "s1"]
    assert len(first.messages) == 2
    assert (second.start, second.cell, second.prompt, second.records) == ("r2", None, "", [])
