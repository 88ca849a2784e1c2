"""A session read ahead: the next writer's store takes the reading of an unchanged file, once."""

import threading

import pytest

import jupyter_agent.session.store as store_module
from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.session import SessionStore
from jupyter_agent.session import preload as preload_module
from jupyter_agent.session.preload import preload_session, take_preloaded
from jupyter_agent.testing.waiting import wait_until_blocking


@pytest.fixture
def written(session_file):
    with SessionStore(session_file) as store:
        store.append(UserMessage(content="What is the trend?"))
        store.append(AssistantMessage(content=[TextContent(text="Flat.")]))
    return session_file.absolute()


@pytest.fixture
def reads(monkeypatch):
    """The files a store read itself (not taking a reading made ahead)."""
    read = []
    real = store_module.load_session

    def counting(path, **options):
        read.append(path)
        return real(path, **options)

    monkeypatch.setattr(store_module, "load_session", counting)
    return read


def test_a_store_opening_a_preloaded_file_takes_the_reading_and_parses_nothing(written, reads):
    assert preload_session(written)
    with SessionStore(written) as store:
        assert [message.role for message in store.messages()] == ["user", "assistant"]
        assert store.messages()[0].content == "What is the trend?"
        store.append(UserMessage(content="And now?"))  # a writer's store like any other
    assert reads == []
    with SessionStore(written) as reopened:
        assert [message.role for message in reopened.messages()] == ["user", "assistant", "user"]
    assert reads == [written]  # taken once: the next store reads the file itself


def test_a_session_another_writer_appended_to_after_the_reading_is_read_afresh(written, reads):
    assert preload_session(written)
    with open(written, "rb") as file:
        tail = file.read().splitlines(keepends=True)[-1]
    with open(written, "ab") as file:
        file.write(tail)  # the file grew since: the reading no longer tells what it holds
    with SessionStore(written) as store:
        store.messages()
    assert reads == [written]


def test_a_read_only_store_leaves_the_reading_to_the_writer(written, reads):
    assert preload_session(written)
    with SessionStore(written, read_only=True) as reader:
        assert len(reader.messages()) == 2
    assert reads == [written]
    assert take_preloaded(written) is not None


def test_nothing_is_read_ahead_for_a_session_not_written_yet(session_file):
    assert not preload_session(session_file)
    assert take_preloaded(session_file) is None


def test_a_file_that_cannot_be_read_ahead_is_left_to_the_store(written, monkeypatch):
    def broken(path, **options):
        raise OSError("disk gone")

    monkeypatch.setattr(preload_module, "load_session", broken)
    assert not preload_session(written)
    assert take_preloaded(written) is None


def test_one_reading_per_file_at_a_time(written):
    assert preload_session(written)
    assert not preload_session(written)
    assert take_preloaded(written) is not None
    assert take_preloaded(written) is None


def test_a_store_opened_while_the_reading_is_under_way_waits_for_it(written, reads, monkeypatch):
    started, release = threading.Event(), threading.Event()
    real = preload_module.load_session

    def slow(path, **options):
        started.set()
        assert release.wait(10)
        return real(path, **options)

    monkeypatch.setattr(preload_module, "load_session", slow)
    reader = threading.Thread(target=preload_session, args=(written,))
    reader.start()
    assert started.wait(10)
    threading.Timer(0.05, release.set).start()  # the reading ends while the store waits for it
    with SessionStore(written) as store:
        assert len(store.messages()) == 2
    reader.join(10)
    assert reads == []


def test_a_reading_nobody_takes_is_dropped(written, monkeypatch):
    monkeypatch.setattr(preload_module, "KEEP_SECONDS", 0.05)
    assert preload_session(written)
    # Dropped: a new reading of the file is kept again.
    wait_until_blocking(lambda: preload_session(written), timeout=10, what="the reading to be dropped")


def test_the_reading_is_prepared_with_the_messages_the_store_then_hands_out(written, reads):
    prepared = []
    assert preload_session(written, prepared.extend)
    with SessionStore(written) as store:
        messages = store.messages()
    assert len(prepared) == 1 and len(prepared[0]) == 2
    assert all(ahead is handed for ahead, handed in zip(prepared[0], messages))  # the same objects
    assert reads == []


def test_a_failing_preparation_keeps_the_reading(written, reads):
    def fail(messages):
        raise RuntimeError("no model configured")

    assert preload_session(written, fail)
    with SessionStore(written) as store:
        assert len(store.messages()) == 2
    assert reads == []


def test_a_session_with_turns_is_prepared_whole_and_before_its_last_turn(session_file):
    with SessionStore(session_file) as store:
        for prompt in ("What is the trend?", "And the outliers?"):
            store.record_request("m", {})
            store.append(UserMessage(content=prompt))
            store.append(AssistantMessage(content=[TextContent(text="Flat.")]))
    prepared = []
    assert preload_session(session_file.absolute(), prepared.extend)
    assert [len(history) for history in prepared] == [4, 2]  # a new cell's; the last cell's run again
    assert prepared[1][-1] is prepared[0][1]  # the same objects: both resume from the same values
    with SessionStore(session_file) as store:
        assert all(ahead is handed for ahead, handed in zip(prepared[0], store.messages()))


def test_a_session_of_cells_is_prepared_before_its_first_cells_turn_too(session_file):
    from jupyter_agent.session.records import CellRef

    with SessionStore(session_file) as store:
        store.append(UserMessage(content="Load the data."))  # before any turn (an older file, a side panel)
        store.append(AssistantMessage(content=[TextContent(text="Loaded.")]))
        for position, prompt in enumerate(("What is the trend?", "And the outliers?", "Plot it.")):
            store.record_request("m", {}, cell=CellRef(cell_id=f"cell-{position}", position=position, prompt=prompt))
            store.append(UserMessage(content=prompt))
            store.append(AssistantMessage(content=[TextContent(text="Done.")]))
    prepared = []
    assert preload_session(session_file.absolute(), prepared.extend)
    # A new cell's; the last cell's run again; the notebook run again from its first agent cell.
    assert [len(history) for history in prepared] == [8, 6, 2]
    assert all(earlier is whole for history in prepared for earlier, whole in zip(history, prepared[0]))
