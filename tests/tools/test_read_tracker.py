from pathlib import Path

import pytest

from jupyter_agent.tools import ReadTracker, ToolError
from jupyter_agent.tools.read_tracker import digest_of


def test_unread_file_is_refused_with_a_hint_to_read():
    with pytest.raises(ToolError, match="has not been read in this session. Read it with the read tool first"):
        ReadTracker().require_current(Path("/w/a"), b"x", "a", "edit")


def test_changed_content_is_refused_and_same_content_passes():
    tracker = ReadTracker()
    tracker.record(Path("/w/a"), digest_of(b"one"))
    tracker.require_current(Path("/w/a"), b"one", "a", "edit")
    with pytest.raises(ToolError, match="changed on disk since it was last read"):
        tracker.require_current(Path("/w/a"), b"two", "a", "edit")


def test_forget_and_has_read():
    tracker = ReadTracker()
    tracker.record(Path("/w/a"), digest_of(b""))
    assert tracker.has_read(Path("/w/a"))
    tracker.forget(Path("/w/a"))
    assert not tracker.has_read(Path("/w/a"))
