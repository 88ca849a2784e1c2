"""The index beside a session file: a reopened session reads only what it needs, and the file stays the truth."""

import json
import os
import shutil
import stat
import warnings

import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.session import SessionStore, SessionWarning
from jupyter_agent.session import loading as store_module
from jupyter_agent.session.index_file import INDEX_FORMAT, index_path


@pytest.fixture
def reads(monkeypatch):
    """The ids of the records the store reads from their lines (not from a whole-file read)."""
    seen = []
    real = store_module.read_record

    def counting(line):
        record = real(line)
        seen.append(record.id if record is not None else None)
        return record

    monkeypatch.setattr(store_module, "read_record", counting)
    return seen


def written(session_file, messages, *, compact_after=None):
    """A session of ``messages`` (a compaction keeping the last two after ``compact_after`` of them)."""
    with SessionStore(session_file) as store:
        ids = []
        for number, message in enumerate(messages):
            ids.append(store.append(message))
            if number + 1 == compact_after:
                store.record_compaction("the summary", ids[-2])
        store.record_usage({"input_tokens": 7, "output_tokens": 3, "spend_usd": 0.25}, model="m", step=1)
        store.label("checkpoint", ids[0])
    return ids


def test_the_writer_keeps_an_index_beside_the_session_private_to_its_owner(session_file, conversation):
    written(session_file, conversation(3))
    index = index_path(session_file)
    assert index.name == "main.index"
    header, *rows = index.read_text().splitlines()
    assert json.loads(header) == {"format": INDEX_FORMAT, "version": 1}
    assert [json.loads(row)[0] for row in rows] == ["message", "message", "message", "usage", "label"]
    assert stat.S_IMODE(index.stat().st_mode) == 0o600
    # Readers never write it.
    index.unlink()
    SessionStore(session_file, read_only=True).close()
    SessionStore(session_file).close()
    assert not index.exists()


def test_a_reopened_session_reads_the_model_view_and_the_rest_only_when_asked(session_file, conversation, texts, reads):
    messages = conversation(10)
    ids = written(session_file, messages, compact_after=8)
    reads.clear()
    store = SessionStore(session_file, read_only=True)
    # Built from the index alone: usage, labels, the model, the tip; only the compaction was read.
    assert (store.usage().input_tokens, store.usage().spend_usd, store.usage().steps) == (7, 0.25, 1)
    assert store.labels() == {"checkpoint": ids[0]} and store.model == "m"
    assert len(reads) == 1
    # The next request's messages: the first prompt, the summary, the kept tail and what followed.
    assert texts(store.messages()) == ["m0", "the summary", "m6", "m7", "m8", "m9"]
    assert sorted(reads[1:]) == sorted([ids[0], *ids[6:]])
    assert store.message_ids()[1] not in ids  # the summary's id is its compaction record's
    # The history summarized away is read when someone wants it.
    assert texts(store.history()) == texts(messages)
    assert len(reads) == 1 + 5 + 5  # m1-m5, once
    assert [record.kind for record in store.records()] == ["message"] * 8 + ["compaction", "message", "message", "usage", "label"]
    assert len(reads) == 1 + 5 + 5 + 2  # and the usage and label records, whose facts the index held
    store.close()


def test_records_read_for_one_view_are_not_read_again_for_another(session_file, conversation, texts, reads):
    messages = conversation(6)
    ids = written(session_file, messages)
    reads.clear()
    store = SessionStore(session_file, read_only=True)
    assert [record.kind for record in store.records()] == ["message"] * 6 + ["usage", "label"]  # a turn's placing
    assert sorted(reads) == sorted([*ids, *(record.id for record in store.records()[6:])])
    reads.clear()
    assert texts(store.messages()) == texts(messages) and texts(store.history()) == texts(messages)
    assert reads == []  # the model's view and the history reuse what was read
    store.close()


def test_an_index_that_does_not_fit_the_file_is_ignored_and_written_again(session_file, conversation, texts, reads):
    written(session_file, conversation(4))
    edited = session_file.read_bytes().replace(b'"m2"', b'"M2"')  # an edit by hand, same length
    session_file.write_bytes(edited)
    reads.clear()
    with SessionStore(session_file) as store:
        assert texts(store.messages()) == ["m0", "m1", "M2", "m3"]
        assert reads == []  # the whole file was read as without an index
        store.claim()  # the writer indexes the file afresh
    with SessionStore(session_file, read_only=True) as again:
        assert texts(again.messages()) == ["m0", "m1", "M2", "m3"]
        assert len(reads) == 4  # from the new index


def test_what_an_older_version_appended_is_read_from_the_file_and_indexed_by_the_next_writer(
    session_file, tmp_path, conversation, texts, reads
):
    written(session_file, conversation(3))
    # An older jupyter-agent appends records and knows nothing of the index.
    older = tmp_path / "older" / "main.jsonl"
    older.parent.mkdir()
    shutil.copy(session_file, older)
    size = session_file.stat().st_size
    with SessionStore(older) as other:
        other.append(UserMessage(content="from an older version"))
        other.append(AssistantMessage(content=[TextContent(text="and its answer")]))
    with open(session_file, "ab") as file:
        file.write(older.read_bytes()[size:])
    reads.clear()
    with SessionStore(session_file) as store:
        assert texts(store.messages())[-3:] == ["m2", "from an older version", "and its answer"]
        assert len(reads) == 3  # the indexed messages; the two new ones came with the file's tail
        store.claim()
        store.append(UserMessage(content="newer"))
    reads.clear()
    with SessionStore(session_file, read_only=True) as again:
        assert texts(again.messages())[-3:] == ["from an older version", "and its answer", "newer"]
        assert len(reads) == 6  # every record from the index now


def test_an_index_row_that_points_at_another_line_makes_the_store_read_the_file(session_file, conversation, texts):
    written(session_file, conversation(4))
    index = index_path(session_file)
    header, *rows = index.read_text().splitlines()
    first, second = json.loads(rows[0]), json.loads(rows[1])
    first[1:3], second[1:3] = second[1:3], first[1:3]  # spans swapped; the CRC of the file still fits
    index.write_text("\n".join([header, json.dumps(first), json.dumps(second), *rows[2:]]) + "\n")
    with SessionStore(session_file) as store:
        assert texts(store.messages()) == ["m0", "m1", "m2", "m3"]
        assert texts(store.history()) == ["m0", "m1", "m2", "m3"]


def test_corrupt_lines_are_reported_at_every_load(session_file, conversation):
    written(session_file, conversation(3))
    lines = session_file.read_bytes().split(b"\n")
    lines[2] = b'{"kind": "message", "broken'
    session_file.write_bytes(b"\n".join(lines))
    index_path(session_file).unlink()
    for _ in range(2):  # the full read (which indexes the file), then from the index
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SessionWarning)
            with SessionStore(session_file) as store:
                store.claim()
                assert [problem.line for problem in store.problems] == [3, 0]  # the line, and the link it broke
        assert any("line 3: skipped a corrupt line" in str(warning.message) for warning in caught)


def test_a_torn_index_row_is_dropped_and_the_index_goes_on(session_file, conversation, texts, reads):
    written(session_file, conversation(3))
    index = index_path(session_file)
    index.write_bytes(index.read_bytes()[:-7])  # the last row (the label's) cut short
    with SessionStore(session_file) as store:
        assert store.labels()  # the label came from the file's tail
        store.append(UserMessage(content="more"))
    reads.clear()
    with SessionStore(session_file, read_only=True) as again:
        assert texts(again.messages()) == ["m0", "m1", "m2", "more"]
        assert len(reads) == 4 and again.labels()


def test_a_session_whose_index_cannot_be_written_works_as_without_one(session_file, conversation, texts):
    session_file.parent.mkdir(parents=True)
    os.mkdir(index_path(session_file))  # a folder where the index would go: every write fails
    written(session_file, conversation(3))
    with SessionStore(session_file) as store:
        store.append(UserMessage(content="still written"))
    assert texts(SessionStore(session_file, read_only=True).history()) == ["m0", "m1", "m2", "still written"]


def test_an_indexed_last_record_without_its_newline_gets_one_before_the_next(session_file, conversation, texts):
    written(session_file, conversation(2))
    session_file.write_bytes(session_file.read_bytes().rstrip(b"\n"))
    with SessionStore(session_file) as store:
        store.append(UserMessage(content="next"))
    with SessionStore(session_file, read_only=True) as again:
        assert texts(again.history()) == ["m0", "m1", "next"] and again.problems == []
