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


def tool_result(record_id, parent_id, tool_name, text):
    from jupyter_agent.messages import TextContent, ToolResultMessage

    result = ToolResultMessage(tool_call_id=record_id, tool_name=tool_name, content=[TextContent(text=text)])
    return MessageRecord(id=record_id, parent_id=parent_id, message=result)


def turn_records(turns):
    from jupyter_agent.session.records import RequestRecord

    records = []
    for turn in range(turns):
        parent = records[-1].id if records else None
        records.append(RequestRecord(id=f"r{turn}", parent_id=parent, model="m"))
        records.append(message(f"q{turn}", f"r{turn}", f"question {turn}"))
        records.append(tool_result(f"p{turn}", f"q{turn}", "plan", f"plan {turn}"))
        records.append(tool_result(f"x{turn}", f"p{turn}", "python", f"output {turn}"))
    return records


def results_of(branch, tool_name):
    return [m.content[0].text for m in branch.tool_results_newest_first(tool_name)]


def test_the_turns_and_a_tools_results_are_kept_as_the_branch_grows():
    from jupyter_agent.session.turns import turn_spans

    records = turn_records(3)
    index = SessionIndex(records[:2])
    first = index.branch.turns()
    assert results_of(index.branch, "plan") == []
    for record in records[2:]:
        index.add(record)
        later = index.branch.turns()
        assert [(s.start, s.records) for s in later] == [(s.start, s.records) for s in turn_spans(index.branch.full_records())]
    assert later[0] is not first[0] and later[1] is index.branch.turns()[1]  # the turns a walk would make again are kept
    assert results_of(index.branch, "plan") == ["plan 2", "plan 1", "plan 0"]
    assert results_of(index.branch, "python") == ["output 2", "output 1", "output 0"]
    assert results_of(index.branch, "bash") == []


def test_a_redos_branch_has_the_turns_and_tool_results_of_the_records_it_keeps():
    from jupyter_agent.session.turns import turn_spans

    records = turn_records(3)
    for at in ("p1", "q1", "r1", "x0"):
        redo = BranchRecord(id="b", parent_id=at, at=at)
        cut = SessionIndex(records)
        cut.branch.turns(), results_of(cut.branch, "plan")  # indexed before the redo
        cut.add(redo)
        walked = SessionIndex([*records, redo])  # the same record: its timestamp too
        assert [(s.start, s.records) for s in cut.branch.turns()] == [
            (s.start, s.records) for s in turn_spans(walked.branch.full_records())
        ], at
        for tool in ("plan", "python"):
            assert results_of(cut.branch, tool) == results_of(walked.branch, tool), (at, tool)
