import json
import os
import re
import subprocess
import sys

import pytest

from jupyter_agent.messages import AssistantMessage, TextContent, Usage, UserMessage
from jupyter_agent.session import SessionStore, SessionUsage, SessionWriteError


def reopen(store):
    store.close()
    return SessionStore(store.path)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_round_trip_of_every_message_type(store, sample_messages):
    ids = [store.append(message) for message in sample_messages]
    assert len(set(ids)) == len(ids)
    resumed = reopen(store)
    assert resumed.history() == sample_messages
    assert resumed.messages() == sample_messages
    assert resumed.message_ids() == ids
    resumed.close()


def test_file_is_a_header_then_records_linked_by_parent_ids(store, session_file, conversation):
    first, second = (store.append(m) for m in conversation(2))
    header, *records = lines(session_file)
    assert header["kind"] == "session" and header["format"] == "jupyter-agent-session" and header["version"] == 1
    assert [(r["kind"], r["id"], r["parent_id"]) for r in records] == [("message", first, None), ("message", second, first)]
    assert all(isinstance(r["ts"], int) for r in records)


def test_nothing_is_created_before_the_first_write(session_file):
    store = SessionStore(session_file)
    assert not session_file.parent.exists()
    assert store.messages() == [] and store.history() == [] and store.tip is None
    store.append(UserMessage(content="hi"))
    assert session_file.exists()
    store.close()


def test_append_refuses_what_is_not_a_message(store):
    expected = "append() takes a UserMessage, AssistantMessage or ToolResultMessage, not dict"
    with pytest.raises(TypeError, match=re.escape(expected)):
        store.append({"role": "user", "content": "hi"})


def test_append_keeps_its_own_copy(store):
    message = UserMessage(content="original")
    store.append(message)
    message.content = "changed"
    assert store.history()[0].content == "original"


def test_compaction_gives_the_runtime_view_and_keeps_the_full_history(store, conversation, texts):
    ids = [store.append(m) for m in conversation(10)]
    store.record_compaction("summary of m1..m5", ids[6])
    store.append(UserMessage(content="after"))
    expected_view = ["m0", "summary of m1..m5", "m6", "m7", "m8", "m9", "after"]
    assert texts(store.messages()) == expected_view
    assert texts(store.history()) == [f"m{i}" for i in range(10)] + ["after"]
    resumed = reopen(store)
    assert texts(resumed.messages()) == expected_view
    assert len(resumed.history()) == 11
    resumed.close()


def test_a_second_compaction_may_keep_the_first_summary(store, conversation, texts):
    ids = [store.append(m) for m in conversation(6)]
    first = store.record_compaction("S1", ids[3])
    assert store.message_ids() == [ids[0], first, ids[3], ids[4], ids[5]]
    store.record_compaction("S2", first)  # the runtime kept the old summary message
    assert texts(store.messages()) == ["m0", "S2", "S1", "m3", "m4", "m5"]
    store.record_compaction("S3", ids[5])
    assert texts(store.messages()) == ["m0", "S3", "m5"]
    assert texts(reopen(store).messages()) == ["m0", "S3", "m5"]


def test_compaction_of_an_unknown_record_is_refused(store, session_file):
    store.append(UserMessage(content="hi"))
    with pytest.raises(ValueError, match=f"record 'nope' is not on the active branch of {session_file}"):
        store.record_compaction("s", "nope")


def test_fork_shares_the_prefix_and_the_parent_does_not_see_the_tail(store, tmp_path, conversation, texts):
    ids = [store.append(m) for m in conversation(4)]
    branch = store.fork(tmp_path / "analysis.agent" / "alt.jsonl", at=ids[1])
    branch.append(UserMessage(content="branch tail"))
    store.append(UserMessage(content="main tail"))
    assert texts(branch.messages()) == ["m0", "m1", "branch tail"]
    assert texts(store.messages()) == ["m0", "m1", "m2", "m3", "main tail"]
    assert branch.header.forked_from.at == ids[1]
    assert branch.header.forked_from.path == str(store.path)
    branch.close()
    assert texts(SessionStore(branch.path).messages()) == ["m0", "m1", "branch tail"]
    assert texts(reopen(store).messages()) == ["m0", "m1", "m2", "m3", "main tail"]


def test_fork_defaults_to_the_tip_and_carries_usage_and_compactions(store, tmp_path, conversation, texts):
    ids = [store.append(m) for m in conversation(4)]
    store.record_usage({"input_tokens": 7, "spend_usd": 0.5}, model="m", step=1)
    store.record_compaction("S", ids[2])
    branch = store.fork(tmp_path / "b.jsonl")
    assert texts(branch.messages()) == texts(store.messages()) == ["m0", "S", "m2", "m3"]
    assert branch.usage() == store.usage()
    assert [r.kind for r in branch.records()][-1] == "branch"
    branch.close()


def test_fork_into_an_existing_session_is_refused(store, tmp_path):
    store.append(UserMessage(content="hi"))
    other = SessionStore(tmp_path / "other.jsonl")
    other.append(UserMessage(content="there"))
    other.close()
    with pytest.raises(FileExistsError, match="cannot fork .* into .*other.jsonl: it already holds a session"):
        store.fork(tmp_path / "other.jsonl")


def test_fork_of_an_empty_session_is_refused(store, tmp_path, session_file):
    with pytest.raises(ValueError, match=f"session {session_file} has no records yet"):
        store.fork(tmp_path / "b.jsonl")


def test_branch_in_the_same_file_switches_the_active_branch(store, conversation, texts):
    ids = [store.append(m) for m in conversation(4)]
    store.branch(ids[1])
    store.append(UserMessage(content="retry"))
    assert texts(store.messages()) == ["m0", "m1", "retry"]
    assert len(reopen(store).history()) == 3


def test_usage_totals_equal_the_sum_of_the_steps(store):
    steps = [
        {"input_tokens": 100, "output_tokens": 20, "cache_read_tokens": 50, "cache_write_tokens": 5, "spend_usd": 0.25},
        {"input_tokens": 30, "output_tokens": 10, "cache_read_tokens": 0, "cache_write_tokens": 0, "spend_usd": 0.5},
        Usage(input=1, output=2, cache_read=3, cache_write=4, total_tokens=10),
    ]
    for number, step in enumerate(steps, start=1):
        store.record_usage(step, model="gpt-x", step=number)
    expected = SessionUsage(
        input_tokens=131, output_tokens=32, cache_read_tokens=53, cache_write_tokens=9, spend_usd=0.75, steps=3
    )
    assert store.usage() == expected
    assert store.usage().total_tokens == 225
    assert store.model == "gpt-x"
    assert reopen(store).usage() == expected


def test_side_requests_are_charged_but_not_counted_as_steps(store):
    store.record_usage({"input_tokens": 10, "output_tokens": 5, "spend_usd": 0.5}, step=1)
    store.record_usage({"input_tokens": 7, "output_tokens": 3, "spend_usd": 0.25}, purpose="memory")
    usage = store.usage()
    assert (usage.steps, usage.input_tokens, usage.output_tokens, usage.spend_usd) == (1, 17, 8, 0.75)
    assert reopen(store).usage() == usage


def test_usage_accepts_an_object_with_run_usage_attributes(store):
    class StepUsage:
        input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, spend_usd = 4, 3, 2, 1, 0.125

    store.record_usage(StepUsage(), model=None, step=2)
    assert store.usage() == SessionUsage(4, 3, 2, 1, 0.125, 1)


def test_record_request_and_labels(store, session_file):
    first = store.append(UserMessage(content="hi"))
    store.record_request("anthropic/claude", {"temperature": 0.2, "max_tokens": 100})
    store.label("before-plot", at=first)
    assert store.labels() == {"before-plot": first}
    assert store.model == "anthropic/claude"
    request = [r for r in lines(session_file) if r["kind"] == "request"][0]
    assert request["options"] == {"temperature": 0.2, "max_tokens": 100}
    with pytest.raises(ValueError, match=f"no record 'zzz' in session {session_file}"):
        store.label("x", at="zzz")


def test_model_comes_from_the_latest_assistant_message_too(store):
    store.append(AssistantMessage(content=[TextContent(text="a")], model="model-a"))
    assert store.model == "model-a"


def test_read_only_store_refuses_writes_and_takes_no_lock(store, session_file):
    store.append(UserMessage(content="hi"))
    viewer = SessionStore(session_file, read_only=True)
    assert len(viewer.history()) == 1
    with pytest.raises(PermissionError, match=f"session {session_file} was opened read-only"):
        viewer.append(UserMessage(content="no"))


def test_a_closed_store_refuses_writes_but_can_still_be_read(session_file):
    store = SessionStore(session_file)
    store.append(UserMessage(content="hi"))
    store.close()
    assert len(store.history()) == 1
    with pytest.raises(ValueError, match=f"session {session_file} is closed"):
        store.append(UserMessage(content="again"))


def test_context_manager_releases_the_file(session_file):
    with SessionStore(session_file) as store:
        store.append(UserMessage(content="hi"))
    with SessionStore(session_file) as again:
        again.append(UserMessage(content="there"))
        assert len(again.history()) == 2


FULL_DISK_CHILD = """
import resource, signal, sys
from jupyter_agent.messages import UserMessage
from jupyter_agent.session import SessionStore, SessionWriteError
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
store = SessionStore(sys.argv[1])
store.append(UserMessage(content="fits"))
size = store.path.stat().st_size
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, hard))
try:
    store.append(UserMessage(content="x" * 1000))
except SessionWriteError as error:
    print("refused:", error)
print("size unchanged:", store.path.stat().st_size == size)
resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
store.append(UserMessage(content="after"))
print("messages:", [m.content for m in SessionStore(store.path).history()])
"""


def test_a_write_past_the_file_size_limit_is_a_clear_error_and_leaves_no_half_record(session_file):
    finished = subprocess.run(
        [sys.executable, "-c", FULL_DISK_CHILD, str(session_file)], capture_output=True, text=True, timeout=60
    )
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.splitlines() == [
        f"refused: could not write the session file {session_file}: File too large",
        "size unchanged: True",
        "messages: ['fits', 'after']",
    ]


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KB tmpfs (root only, as in CI containers): a disk that really fills up."""
    mount_point = tmp_path / "tiny"
    mount_point.mkdir()
    mounted = (
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount_point)], capture_output=True)
        if os.geteuid() == 0
        else None
    )
    if mounted is None or mounted.returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=True)


def test_a_full_disk_is_a_clear_error_and_the_store_stays_consistent(tiny_disk):
    path = tiny_disk / "n.agent" / "main.jsonl"
    store = SessionStore(path)
    store.append(UserMessage(content="first"))
    filler = tiny_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    with pytest.raises(OSError, match="No space left"):
        for _ in range(10_000):  # 64 KB fill in 17 writes; the bound only guards a broken mount
            os.write(fd, b"\0" * 4096)
    os.close(fd)
    with pytest.raises(
        SessionWriteError, match=f"^could not write the session file {re.escape(str(path))}: No space left on device$"
    ):
        store.append(UserMessage(content="y" * 20_000))
    assert [m.content for m in store.history()] == ["first"]
    filler.unlink()
    store.append(UserMessage(content="after"))
    store.close()
    assert [m.content for m in SessionStore(path).history()] == ["first", "after"]
