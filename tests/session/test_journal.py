import os
import signal

import pytest

from jupyter_agent.messages import UserMessage
from jupyter_agent.session import SessionStore, SessionWarning
from jupyter_agent.session.journal import read_journal
from jupyter_agent.testing.waiting import wait_until_blocking


def write_session(path, count, conversation):
    with SessionStore(path) as store:
        ids = [store.append(message) for message in conversation(count)]
    return ids


def test_a_torn_last_line_is_skipped_with_a_warning_and_cut_before_next_append(session_file, conversation, texts):
    write_session(session_file, 3, conversation)
    with open(session_file, "ab") as file:
        file.write(b'{"kind":"message","id":"abc","parent_id":')
    torn = r"main.jsonl: line 5: skipped a torn last line \(a write was interrupted\)"
    with pytest.warns(SessionWarning, match=torn):
        store = SessionStore(session_file)
    assert texts(store.messages()) == ["m0", "m1", "m2"]
    assert [(p.line, p.torn) for p in store.problems] == [(5, True)]
    store.append(UserMessage(content="after crash"))
    store.close()
    contents = read_journal(session_file)
    assert contents.problems == []
    assert texts([r.message for r in contents.records]) == ["m0", "m1", "m2", "after crash"]


def test_a_complete_last_record_without_its_newline_is_kept(session_file, conversation, texts):
    write_session(session_file, 2, conversation)
    data = session_file.read_bytes()
    session_file.write_bytes(data.rstrip(b"\n"))
    store = SessionStore(session_file)
    assert store.problems == []
    store.append(UserMessage(content="next"))
    store.close()
    assert texts(SessionStore(session_file, read_only=True).messages()) == ["m0", "m1", "next"]


def test_a_corrupt_line_in_the_middle_is_skipped_and_reported(session_file, conversation, texts):
    write_session(session_file, 4, conversation)
    lines = session_file.read_bytes().split(b"\n")
    lines[2] = b'{"kind":"message", garbage'
    session_file.write_bytes(b"\n".join(lines))
    with pytest.warns(SessionWarning) as caught:
        store = SessionStore(session_file, read_only=True)
    reasons = [str(w.message).split(": ", 1)[1] for w in caught]
    assert reasons[0].startswith("line 3: skipped a corrupt line (Invalid JSON")
    assert reasons[1].startswith(f"record {store.records()[1].id}: parent ")
    assert reasons[1].endswith(f"missing, linked to {store.records()[0].id}")
    # m1's record is gone; m2 still links back to m0 through file order.
    assert texts(store.messages()) == ["m0", "m2", "m3"]
    assert [(p.line, p.torn) for p in store.problems] == [(3, False), (0, False)]


def test_an_invalid_record_is_reported_with_its_reason(session_file, conversation):
    write_session(session_file, 2, conversation)
    with open(session_file, "ab") as file:
        file.write(b'{"kind":"message","id":"x","message":{"role":"robot"}}\n')
    invalid = r"line 4: skipped an invalid last line \(message.message: Input tag 'robot'"
    with pytest.warns(SessionWarning, match=invalid):
        store = SessionStore(session_file, read_only=True)
    assert len(store.history()) == 2


def test_unknown_fields_from_a_newer_writer_are_ignored(session_file):
    session_file.parent.mkdir(parents=True)
    session_file.write_text(
        '{"kind":"session","format":"jupyter-agent-session","version":1,"session_id":"s","created":1}\n'
        '{"kind":"message","id":"a","parent_id":null,"ts":1,"future":true,'
        '"message":{"role":"user","content":"hi","timestamp":1}}\n'
    )
    store = SessionStore(session_file, read_only=True)
    assert store.problems == [] and store.history()[0].content == "hi"


def test_crash_in_the_middle_of_writing_a_large_record_loses_only_it(child, session_file, texts):
    # The child writes a 200 kB record 64 bytes at a time (os.write may write partially) and is
    # killed with SIGKILL half way.
    process = child(f"""
        import os, time
        from jupyter_agent.messages import UserMessage
        from jupyter_agent.session import SessionStore
        store = SessionStore({str(session_file)!r})
        for index in range(5):
            store.append(UserMessage(content=f"m{{index}}"))
        store.sync()
        real_write = os.write
        def slow_write(fd, data):
            time.sleep(0.001)
            return real_write(fd, bytes(data[:64]))
        os.write = slow_write
        print("ready", flush=True)
        store.append(UserMessage(content="x" * 200_000))
        print("finished", flush=True)
    """)
    process.expect("ready")
    size = session_file.stat().st_size
    wait_until_blocking(lambda: session_file.stat().st_size > size + 2_000, 20, "the record half written", every=0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.kill()
    with pytest.warns(SessionWarning, match="torn last line"):
        store = SessionStore(session_file)
    assert texts(store.messages()) == [f"m{i}" for i in range(5)]
    store.append(UserMessage(content="resumed"))
    store.close()
    resumed = SessionStore(session_file, read_only=True)
    assert resumed.problems == []
    assert texts(resumed.messages())[-2:] == ["m4", "resumed"]


def test_crash_while_appending_in_a_tight_loop_keeps_every_complete_record(child, session_file, texts):
    process = child(f"""
        from jupyter_agent.messages import UserMessage
        from jupyter_agent.session import SessionStore
        store = SessionStore({str(session_file)!r})
        print("ready", flush=True)
        index = 0
        while True:
            store.append(UserMessage(content=f"m{{index}}" + "." * (index % 3000)))
            index += 1
    """)
    process.expect("ready")
    wait_until_blocking(
        lambda: session_file.exists() and session_file.stat().st_size > 300_000, 20, "300 kB appended", every=0.005
    )
    os.kill(process.pid, signal.SIGKILL)
    process.kill()
    complete_lines = session_file.read_bytes().count(b"\n") - 1  # minus the header
    store = SessionStore(session_file)
    assert len(store.problems) <= 1 and all(problem.torn for problem in store.problems)
    recorded = [text.rstrip(".") for text in texts(store.messages())]
    assert recorded == [f"m{i}" for i in range(complete_lines)]
    store.close()


def test_a_failed_write_leaves_no_partial_line(monkeypatch, store, session_file, texts):
    from jupyter_agent.session import journal

    store.append(UserMessage(content="kept"))
    size = session_file.stat().st_size
    real_write = os.write

    def half_then_full_disk(fd, data):
        if len(data) > 40:
            return real_write(fd, bytes(data[:40]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal.os, "write", half_then_full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        store.append(UserMessage(content="lost " * 20))
    monkeypatch.setattr(journal.os, "write", real_write)
    assert session_file.stat().st_size == size
    store.append(UserMessage(content="next"))
    store.close()
    reloaded = SessionStore(session_file, read_only=True)
    assert reloaded.problems == [] and texts(reloaded.messages()) == ["kept", "next"]


def test_a_newer_format_version_is_read_with_a_warning(session_file):
    session_file.parent.mkdir(parents=True)
    session_file.write_text(
        '{"kind":"session","format":"jupyter-agent-session","version":7,"session_id":"s","created":1}\n'
        '{"kind":"message","id":"a","ts":1,"message":{"role":"user","content":"hi","timestamp":1}}\n'
    )
    with pytest.warns(SessionWarning, match="line 1: written by format version 7: reading what version 1 knows"):
        store = SessionStore(session_file, read_only=True)
    assert store.history()[0].content == "hi"


def test_an_invalid_utf8_byte_keeps_the_record_with_only_that_character_replaced(session_file, conversation, texts):
    write_session(session_file, 3, conversation)
    lines = session_file.read_bytes().split(b"\n")
    assert b'"m1"' in lines[2]
    lines[2] = lines[2].replace(b'"m1"', b'"m\xff1"')
    session_file.write_bytes(b"\n".join(lines))
    with pytest.warns(SessionWarning, match=r"line 3: replaced 1 character that was not valid text \(U\+FFFD\)"):
        store = SessionStore(session_file, read_only=True)
    assert texts(store.messages()) == ["m0", "m\ufffd1", "m2"]
    assert [(p.line, p.torn) for p in store.problems] == [(3, False)]


def test_a_lone_surrogate_keeps_the_record_with_only_that_character_replaced(session_file, conversation, texts):
    write_session(session_file, 3, conversation)
    lines = session_file.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"m1"', b'"m\\udc80\\ud83d\\ude001"')  # a lone surrogate, then a valid pair
    session_file.write_bytes(b"\n".join(lines))
    with pytest.warns(SessionWarning, match=r"line 3: replaced 1 character that was not valid text"):
        store = SessionStore(session_file, read_only=True)
    assert texts(store.messages()) == ["m0", "m\ufffd\U0001f6001", "m2"]


def test_a_message_holding_a_lone_surrogate_is_written_with_it_replaced(store, session_file, texts):
    store.append(UserMessage(content="before"))
    store.append(UserMessage(content="name caf\udce9.txt"))  # how os.fsdecode shows a Latin-1 byte
    store.append(UserMessage(content="after"))
    store.close()
    session_file.read_bytes().decode("utf-8")  # the whole file is valid UTF-8
    again = SessionStore(session_file, read_only=True)
    assert again.problems == []
    assert texts(again.messages()) == ["before", "name caf\ufffd.txt", "after"]
