from jupyter_agent.messages import UserMessage
from jupyter_agent.session.branch import Entry
from jupyter_agent.session.branch import SessionIndex as _Index
from jupyter_agent.session.records import BranchRecord, CompactionRecord, LabelRecord, MessageRecord, UsageRecord


def message(record_id, parent_id, text):
    return MessageRecord(id=record_id, parent_id=parent_id, message=UserMessage(content=text))


def contents(messages):
    return [m.content for m in messages]


def nothing_to_read(entries):
    raise AssertionError(f"every record is in memory, yet {entries} were to be read")


class SessionIndex(_Index):
    """The index of records in memory (as a full read of the file or a writer gives it)."""

    def __init__(self, records):
        super().__init__([Entry.of(record) for record in records], nothing_to_read)

    def add(self, record):
        super().add(Entry.of(record))


def view(branch):
    return list(zip(branch.view_ids, branch.messages()))


def history(branch):
    return branch.history_messages()


def test_the_active_branch_ends_at_the_newest_record():
    index = SessionIndex(
        [
            message("a", None, "a"),
            message("b", "a", "b"),
            message("c", "b", "c"),
            BranchRecord(id="x", parent_id="a", at="a"),
            message("d", "x", "d"),
        ]
    )
    assert contents(history(index.branch)) == ["a", "d"]
    assert [r.id for r in index.path_to("c")] == ["a", "b", "c"]


def test_adding_to_the_tip_extends_and_adding_elsewhere_switches_branch():
    index = SessionIndex([message("a", None, "a"), message("b", "a", "b")])
    index.add(message("c", "b", "c"))
    assert contents(history(index.branch)) == ["a", "b", "c"]
    index.add(BranchRecord(id="x", parent_id="b", at="b"))
    assert contents(history(index.branch)) == ["a", "b"]


def test_a_missing_parent_is_bridged_by_file_order():
    index = SessionIndex([message("a", None, "a"), message("c", "lost", "c")])
    assert contents(history(index.branch)) == ["a", "c"]
    assert index.broken_links == ["record c: parent lost missing, linked to a"]


def test_a_parent_cycle_does_not_hang():
    index = SessionIndex([message("a", "b", "a"), message("b", "a", "b")])
    assert contents(history(index.branch)) == ["a", "b"]


def test_usage_labels_and_compaction_on_the_branch():
    index = SessionIndex(
        [
            message("a", None, "a"),
            message("b", "a", "b"),
            message("c", "b", "c"),
            UsageRecord(id="u", parent_id="c", model="m", input_tokens=3, spend_usd=0.5),
            CompactionRecord(id="k", parent_id="u", summary="S", first_kept_id="c"),
            LabelRecord(id="l", parent_id="k", target_id="b", label="checkpoint"),
        ]
    )
    branch = index.branch
    assert contents(m for _, m in view(branch)) == ["a", "S", "c"]
    assert [record_id for record_id, _ in view(branch)] == ["a", "k", "c"]
    assert (branch.usage.input_tokens, branch.usage.spend_usd, branch.usage.steps) == (3, 0.5, 1)
    assert branch.labels == {"checkpoint": "b"} and branch.model == "m"


def test_a_compaction_keeping_a_record_no_longer_in_view_keeps_from_its_position():
    index = SessionIndex(
        [
            message("a", None, "a"),
            message("b", "a", "b"),
            message("c", "b", "c"),
            message("d", "c", "d"),
            CompactionRecord(id="k1", parent_id="d", summary="S1", first_kept_id="d"),
            CompactionRecord(id="k2", parent_id="k1", summary="S2", first_kept_id="c"),
        ]
    )
    assert contents(m for _, m in view(index.branch)) == ["a", "S2", "S1", "d"]


def test_a_compaction_keeping_an_unknown_record_is_ignored():
    index = SessionIndex([message("a", None, "a"), CompactionRecord(id="k", parent_id="a", summary="S", first_kept_id="zz")])
    assert contents(m for _, m in view(index.branch)) == ["a"]
    assert index.branch.problems == ["compaction k keeps unknown record zz: ignored"]


def branch_state(branch):
    return (
        [entry.id for entry in branch.records],
        branch.position,
        view(branch),
        [entry.id for entry in branch.history],
        branch.usage,
        branch.model,
        branch.labels,
    )


def test_a_branch_from_a_record_of_the_active_branch_is_the_one_a_walk_from_the_root_builds():
    from jupyter_agent.messages import AssistantMessage, TextContent
    from jupyter_agent.session.records import RequestRecord

    def answer(record_id, parent_id, model):
        return MessageRecord(
            id=record_id, parent_id=parent_id, message=AssistantMessage(content=[TextContent(text="ok")], model=model)
        )

    records = [
        RequestRecord(id="r1", parent_id=None, model="first-model"),
        message("q1", "r1", "first question"),
        answer("a1", "q1", "first-model"),
        UsageRecord(id="u1", parent_id="a1", model="first-model", input_tokens=3, spend_usd=0.5),
        LabelRecord(id="l1", parent_id="u1", label="before", target_id="u1"),
        RequestRecord(id="r2", parent_id="l1", model="second-model"),
        message("q2", "r2", "second question"),
        answer("a2", "q2", "second-model"),
        UsageRecord(id="u2", parent_id="a2", model="second-model", input_tokens=7, spend_usd=0.25),
        LabelRecord(id="l2", parent_id="u2", label="after", target_id="u2"),
    ]
    for at in ("l1", "u1", "a1", "q1", "r1"):  # a redo of the second turn, and of earlier records
        cut = SessionIndex(records)
        cut.add(BranchRecord(id="b", parent_id=at, at=at))
        walked = SessionIndex([*records, BranchRecord(id="b", parent_id=at, at=at)])  # built from the root
        assert branch_state(cut.branch) == branch_state(walked.branch), at
        assert cut.branch.tip == "b"
