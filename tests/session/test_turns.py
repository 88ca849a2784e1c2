from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage, with_turn_context
from jupyter_agent.session.records import CellRef, MessageRecord, RequestRecord, UsageRecord
from jupyter_agent.session.turns import TurnIndex, turn_spans


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


def spans_of(spans):
    return [(span.index, span.start, [record.id for record in span.records]) for span in spans]


def records_of_three_turns():
    records = [MessageRecord(id="early", message=UserMessage(content="before any turn"))]
    for turn in range(3):
        records.append(RequestRecord(id=f"r{turn}", parent_id=records[-1].id, model="m"))
        records.append(MessageRecord(id=f"u{turn}", parent_id=records[-1].id, message=UserMessage(content="q")))
        records.append(UsageRecord(id=f"s{turn}", parent_id=records[-1].id))
    return records


def test_a_turn_index_fed_a_record_at_a_time_holds_the_turns_a_walk_finds_and_never_changes_a_span_it_gave():
    records = records_of_three_turns()
    index = TurnIndex()
    handed_out = []
    for count, record in enumerate(records, 1):
        index.add([record])
        spans = index.spans()
        assert spans_of(spans) == spans_of(turn_spans(records[:count])), count
        handed_out.append((spans, spans_of(spans)))
    for spans, seen in handed_out:  # later records went to copies of the last span
        assert spans_of(spans) == seen


def test_a_turn_index_cut_holds_the_turns_of_the_first_records():
    records = records_of_three_turns()
    index = TurnIndex()
    index.add(records)
    for length in range(len(records) + 1):
        cut = index.cut(length)
        assert (cut.through, spans_of(cut.spans())) == (length, spans_of(turn_spans(records[:length]))), length
        cut.add(records[length:])  # and it goes on from there
        assert spans_of(cut.spans()) == spans_of(turn_spans(records)), length
    assert spans_of(index.spans()) == spans_of(turn_spans(records))  # the cut index is untouched
