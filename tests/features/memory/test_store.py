"""MemoryStore: one Markdown file per fact, the capped index, undoable changes."""

import itertools

import pytest

from jupyter_agent.features.memory.store import (
    FACT_MAX_CHARS,
    INDEX_MAX_CHARS,
    INDEX_MAX_ENTRIES,
    MemoryRefused,
    MemoryStore,
    memory_folder,
    parse_fact,
    slugify,
)


def ticking_clock():
    """Distinct, increasing timestamps: ordering by update time is deterministic."""
    counter = itertools.count()

    def now():
        tick = next(counter)
        return f"2025-01-01T{tick // 3600:02d}:{tick // 60 % 60:02d}:{tick % 60:02d}+00:00"

    return now


@pytest.fixture
def memory(tmp_path):
    return MemoryStore(tmp_path / "analysis.agent" / "memory", clock=ticking_clock())


def test_the_folder_sits_beside_the_notebook(tmp_path):
    assert memory_folder(tmp_path / "analysis.ipynb") == tmp_path / "analysis.agent" / "memory"
    assert MemoryStore.for_notebook(tmp_path / "analysis.ipynb").folder == tmp_path / "analysis.agent" / "memory"


@pytest.mark.parametrize(
    "name, slug", [("Sales dates", "sales-dates"), ("  CSV: ';' sep!", "csv-sep"), ("a" * 80, "a" * 60), ("!!!", "")]
)
def test_names_become_slugs(name, slug):
    assert slugify(name) == slug


def test_a_fact_is_a_markdown_file_with_front_matter_and_the_index_lists_it(memory):
    change = memory.write(
        "Sales dates", "Dates in sales.csv are day-first.\nUse dayfirst=True.", summary="sales.csv dates are dd/mm"
    )
    assert (change.name, change.kind, change.before) == ("sales-dates", "created", None)
    text = (memory.folder / "sales-dates.md").read_text()
    assert text.startswith("---\nsummary: sales.csv dates are dd/mm\nupdated: 2025-01-01T")
    assert text.endswith("---\nDates in sales.csv are day-first.\nUse dayfirst=True.\n")
    fact = memory.read("sales dates")
    assert (fact.name, fact.summary, fact.content) == (
        "sales-dates",
        "sales.csv dates are dd/mm",
        "Dates in sales.csv are day-first.\nUse dayfirst=True.",
    )
    assert memory.index_path.read_text() == "# Memory\n\n- sales-dates: sales.csv dates are dd/mm\n"


def test_the_summary_defaults_to_the_first_line_and_is_one_short_line(memory):
    memory.write("units", "Revenue is in thousands of EUR.\nNot USD.")
    assert memory.read("units").summary == "Revenue is in thousands of EUR."
    memory.write("long", "x", summary="word " * 60)
    summary = memory.read("long").summary
    assert len(summary) <= 120 and summary.endswith("...") and "\n" not in summary


def test_list_is_newest_first_and_rewriting_moves_a_fact_up(memory):
    for name in ("a", "b", "c"):
        memory.write(name, f"fact {name}")
    assert [fact.name for fact in memory.list()] == ["c", "b", "a"]
    change = memory.write("a", "fact a, revised")
    assert change.kind == "updated" and [fact.name for fact in memory.list()] == ["a", "c", "b"]


def test_delete_removes_the_file_and_the_index_line(memory):
    memory.write("a", "fact a")
    memory.write("b", "fact b")
    change = memory.delete("a")
    assert change.kind == "deleted" and not (memory.folder / "a.md").exists()
    assert memory.read("a") is None and memory.delete("a") is None
    assert "- a:" not in memory.index_path.read_text() and memory.names() == ["b"]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("!!!", "x", "'!!!' is not a usable fact name"),
        ("MEMORY", "x", "The name 'memory' is reserved"),
        ("a", "   ", "A fact needs content"),
        ("a", "x" * (FACT_MAX_CHARS + 1), f"A fact holds at most {FACT_MAX_CHARS} characters"),
    ],
)
def test_bad_writes_are_refused(memory, name, content, message):
    with pytest.raises(MemoryRefused, match=message):
        memory.write(name, content)
    assert memory.names() == []


def test_secrets_are_redacted_before_they_reach_the_disk(memory, monkeypatch):
    monkeypatch.setenv("WAREHOUSE_TOKEN", "tok-123456789")
    memory.write("db", "Connect with tok-123456789 to the warehouse.", summary="token tok-123456789")
    text = (memory.folder / "db.md").read_text()
    assert "tok-123456789" not in text and "[redacted:WAREHOUSE_TOKEN]" in text


def test_the_index_is_capped_in_entries_and_characters_with_a_note_for_the_rest(memory):
    for number in range(INDEX_MAX_ENTRIES + 15):
        memory.write(f"fact-{number:03d}", f"short fact {number}")
    lines = memory.index_text().splitlines()
    assert len(lines) == INDEX_MAX_ENTRIES + 1
    assert (
        lines[0].startswith("- fact-054:")
        and lines[-1] == "- ... 15 older fact(s) not listed; `memory` with action list shows all."
    )
    for number in range(30):
        memory.write(f"long-{number:02d}", "y", summary="z" * 119)
    index = memory.index_text()
    listed = index.splitlines()[:-1]
    assert sum(len(line) + 1 for line in listed) <= INDEX_MAX_CHARS
    assert len(listed) < INDEX_MAX_ENTRIES and "older fact(s) not listed" in index.splitlines()[-1]
    assert len(memory.list()) == INDEX_MAX_ENTRIES + 45  # capped in the prompt, kept on disk


def test_undo_restores_the_previous_content_or_removes_a_new_fact(memory):
    created = memory.write("a", "first")
    updated = memory.write("a", "second")
    assert updated.undo() and memory.read("a").content == "first"
    assert created.undo() and memory.read("a") is None and "- a:" not in memory.index_text()
    memory.write("b", "keep me")
    deleted = memory.delete("b")
    assert deleted.undo() and memory.read("b").content == "keep me"


def test_undo_refuses_when_the_fact_changed_again_since(memory):
    first = memory.write("a", "first")
    memory.write("a", "second")
    assert first.undo() is False and memory.read("a").content == "second"


def test_a_hand_written_file_without_front_matter_still_reads(memory):
    memory.folder.mkdir(parents=True)
    (memory.folder / "notes.md").write_text("Prefers seaborn over matplotlib.\nAlways label axes.\n")
    (memory.folder / "Not A Slug.md").write_text("ignored: not a name the tool could address")
    fact = memory.read("notes")
    assert (fact.summary, fact.updated) == ("Prefers seaborn over matplotlib.", "")
    assert memory.names() == ["notes"]
    assert parse_fact("x", "---\nsummary: s\n").content == "---\nsummary: s"


def test_an_untouched_store_creates_nothing(tmp_path):
    store = MemoryStore(tmp_path / "nb.agent" / "memory")
    assert store.list() == [] and store.index_text() == "" and store.read("a") is None
    assert not (tmp_path / "nb.agent").exists()
