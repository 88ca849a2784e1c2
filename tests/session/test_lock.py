import json
import os
import re
import socket
import subprocess
import sys

import pytest

from jupyter_agent.messages import UserMessage
from jupyter_agent.session import SessionLockedError, SessionStore
from jupyter_agent.session import lock as lock_module
from jupyter_agent.session.lock import SessionLock, lock_path


def dead_pid():
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(finished.stdout)


def test_a_second_store_in_the_same_process_reads_freely_and_is_refused_at_its_first_write(store, session_file):
    store.append(UserMessage(content="hi"))
    reader = SessionStore(session_file)  # no lock needed to read
    assert [m.content for m in reader.history()] == ["hi"]
    message = (
        f"session file {session_file} is already open for writing by this process "
        f"(pid {os.getpid()}): close() the other SessionStore first"
    )
    with pytest.raises(SessionLockedError, match=re.escape(message)):
        reader.append(UserMessage(content="two"))
    with pytest.raises(SessionLockedError, match=re.escape(message)):
        SessionStore(session_file).claim()
    store.append(UserMessage(content="still mine"))
    assert [m.content for m in SessionStore(session_file).history()] == ["hi", "still mine"]


def test_deleting_the_lock_file_while_held_lets_no_second_writer_in(store, session_file):
    store.append(UserMessage(content="hi"))
    lock_path(session_file).unlink()
    with pytest.raises(SessionLockedError, match=re.escape(f"session file {session_file} is already open for writing by")):
        SessionStore(session_file).append(UserMessage(content="intruder"))
    store.append(UserMessage(content="mine"))
    assert [m.content for m in SessionStore(session_file).history()] == ["hi", "mine"]


def test_a_store_that_waited_for_the_lock_continues_from_the_records_written_meanwhile(session_file):
    early_reader = SessionStore(session_file)
    with SessionStore(session_file) as writer:
        first = writer.append(UserMessage(content="one"))
    second = early_reader.append(UserMessage(content="two"))
    records = SessionStore(session_file).records()
    assert [record.id for record in records] == [first, second] and records[1].parent_id == first


def test_two_new_stores_conflict_at_the_first_write_of_the_second(session_file):
    first, second = SessionStore(session_file), SessionStore(session_file)
    first.append(UserMessage(content="one"))
    with pytest.raises(SessionLockedError, match="already open for writing by this process"):
        second.append(UserMessage(content="two"))
    first.close()
    assert len(SessionStore(session_file, read_only=True).history()) == 1


def test_a_writer_in_another_process_gets_a_clear_error_naming_the_file_and_pid(child, session_file):
    holder = child(f"""
        import sys
        from jupyter_agent.messages import UserMessage
        from jupyter_agent.session import SessionStore
        store = SessionStore({str(session_file)!r})
        store.append(UserMessage(content="held"))
        print("holding", flush=True)
        sys.stdin.readline()
    """)
    holder.expect("holding")
    message = f"session file {session_file} is already open for writing by process {holder.pid} on "
    with pytest.raises(SessionLockedError, match=re.escape(message) + ".*another kernel"):
        SessionStore(session_file).claim()
    # Reading is still allowed while another kernel writes.
    assert SessionStore(session_file, read_only=True).history()[0].content == "held"
    lock_path(session_file).unlink()  # removing the holder's record does not free the session
    with pytest.raises(
        SessionLockedError, match=re.escape(f"session file {session_file} is already open for writing by another process")
    ):
        SessionStore(session_file).append(UserMessage(content="intruder"))
    lock_path(session_file).write_text(json.dumps({"pid": holder.pid, "host": socket.gethostname()}))
    holder.kill()  # SIGKILL: the lock file stays behind with the dead pid in it
    assert json.loads(lock_path(session_file).read_text())["pid"] == holder.pid
    with SessionStore(session_file) as taken_over:
        taken_over.append(UserMessage(content="mine now"))
        assert json.loads(lock_path(session_file).read_text())["pid"] == os.getpid()


def test_a_stale_lock_file_of_a_dead_pid_is_taken_over(session_file):
    session_file.parent.mkdir(parents=True)
    lock_path(session_file).write_text(json.dumps({"pid": dead_pid(), "host": "x"}))
    with SessionStore(session_file) as store:
        store.append(UserMessage(content="hi"))


def test_close_removes_the_lock_file(session_file):
    store = SessionStore(session_file)
    store.append(UserMessage(content="hi"))
    assert lock_path(session_file).exists()
    store.close()
    assert not lock_path(session_file).exists()


def test_a_dropped_store_releases_its_lock(session_file):
    store = SessionStore(session_file)
    store.append(UserMessage(content="hi"))
    del store
    with SessionStore(session_file) as again:
        again.append(UserMessage(content="there"))


class TestWithoutFcntl:
    """Platforms without flock fall back to an exclusively created pid file."""

    @pytest.fixture(autouse=True)
    def no_fcntl(self, monkeypatch):
        monkeypatch.setattr(lock_module, "fcntl", None)

    def test_second_writer_is_refused(self, tmp_path):
        path = tmp_path / "s.jsonl"
        first = SessionLock(path)
        first.acquire()
        with pytest.raises(SessionLockedError, match=f"pid {os.getpid()}"):
            SessionLock(path).acquire()
        first.release()
        SessionLock(path).acquire()

    def test_a_dead_pid_is_stale(self, tmp_path):
        path = tmp_path / "s.jsonl"
        lock_path(path).write_text(json.dumps({"pid": dead_pid(), "host": socket.gethostname()}))
        taken = SessionLock(path)
        taken.acquire()
        assert json.loads(lock_path(path).read_text())["pid"] == os.getpid()
        taken.release()
        assert not lock_path(path).exists()
