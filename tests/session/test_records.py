import pytest
from pydantic import ValidationError

from jupyter_agent.messages import UserMessage
from jupyter_agent.session.records import (
    HEADER_ADAPTER,
    RECORD_ADAPTER,
    BranchRecord,
    CompactionRecord,
    LabelRecord,
    MessageRecord,
    RequestRecord,
    SessionHeader,
    UsageRecord,
    new_record_id,
)


def test_every_message_type_round_trips_through_a_record_line(sample_messages):
    for message in sample_messages:
        record = MessageRecord(id="r1", parent_id="r0", message=message)
        assert RECORD_ADAPTER.validate_json(record.model_dump_json()) == record


@pytest.mark.parametrize(
    "record",
    [
        CompactionRecord(id="a", parent_id="b", summary="S", first_kept_id="c"),
        UsageRecord(
            id="a", step=2, model="m", input_tokens=1, output_tokens=2, cache_read_tokens=3, cache_write_tokens=4, spend_usd=0.5
        ),
        RequestRecord(id="a", model="m", options={"temperature": 0.1}),
        BranchRecord(id="a", parent_id="x", at="x", source="/s.jsonl"),
        LabelRecord(id="a", parent_id="x", target_id="x", label="good"),
    ],
)
def test_every_record_kind_round_trips(record):
    line = record.model_dump_json()
    assert line.startswith(f'{{"kind":"{record.kind}","id":"a"')
    assert RECORD_ADAPTER.validate_json(line) == record


def test_header_is_versioned():
    header = SessionHeader()
    assert HEADER_ADAPTER.validate_json(header.model_dump_json()) == header
    assert (header.format, header.version) == ("jupyter-agent-session", 1)


def test_unknown_record_kinds_are_invalid():
    with pytest.raises(ValidationError):
        RECORD_ADAPTER.validate_json('{"kind":"telepathy","id":"a"}')


def test_record_ids_are_short_and_unique():
    taken = {}
    for _ in range(2000):
        record_id = new_record_id(taken)
        assert len(record_id) == 8 and record_id not in taken
        taken[record_id] = None


def test_message_records_refuse_unknown_message_fields():
    with pytest.raises(ValidationError):
        RECORD_ADAPTER.validate_python({"kind": "message", "id": "a", "message": {"role": "user", "content": "x", "typo": 1}})
    assert RECORD_ADAPTER.validate_python({"kind": "message", "id": "a", "message": UserMessage(content="x")})
