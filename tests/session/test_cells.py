"""Where a cell's turn goes: redo before its own turn, continue above it, append on request."""

from jupyter_agent.messages import UserMessage
from jupyter_agent.session.cells import DocumentCell, plan_continuation, prompt_digest, same_cell
from jupyter_agent.session.records import CellRef, MessageRecord, RequestRecord
from jupyter_agent.session.turns import turn_spans

KERNEL = "k-now"


def cell(cell_id=None, position=0, prompt="p", kernel=KERNEL):
    return CellRef(cell_id=cell_id, position=position, prompt=prompt_digest(prompt), kernel=kernel)


def branch(*cells, prompts=None):
    """Turns of a branch, one per CellRef (None: a turn from no cell), each with its prompt."""
    records, parent = [], None
    for number, ref in enumerate(cells):
        request = RequestRecord(id=f"r{number}", parent_id=parent, model="m", cell=ref)
        text = (prompts or {}).get(number, f"prompt {number}")
        prompt = MessageRecord(id=f"m{number}", parent_id=request.id, message=UserMessage(content=text))
        records += [request, prompt]
        parent = prompt.id
    return turn_spans(records)


def starts(turns):
    return [turn.start for turn in turns]


def test_a_re_run_cell_branches_before_its_own_turn():
    turns = branch(cell("a", 0, "A"), cell("b", 1, "B"))
    plan = plan_continuation(turns, cell("b", 2, "B edited"))
    assert plan.rule == "cell" and plan.redoes
    assert starts(plan.earlier) == ["r0"] and starts(plan.replaced) == ["r1"]
    assert plan.branch_before.start == "r1"


def test_re_running_the_first_cell_replaces_every_turn_after_it():
    plan = plan_continuation(branch(cell("a", 0, "A"), cell("b", 1, "B")), cell("a", 5, "A"))
    assert starts(plan.earlier) == [] and starts(plan.replaced) == ["r0", "r1"]


def test_a_new_cell_continues_from_the_newest_turn():
    plan = plan_continuation(branch(cell("a", 0, "A"), cell("b", 1, "B")), cell("c", 2, "C"))
    assert starts(plan.earlier) == ["r0", "r1"] and plan.replaced == () and not plan.redoes
    assert plan.branch_before is None


def test_append_keeps_every_turn_even_the_cells_own():
    plan = plan_continuation(branch(cell("a", 0, "A")), cell("a", 1, "A"), append=True)
    assert plan.rule == "append" and starts(plan.earlier) == ["r0"] and plan.replaced == ()


def test_without_a_cell_id_position_and_prompt_identify_the_cell():
    turns = branch(cell(None, 0, "A"), cell(None, 1, "B"))
    assert starts(plan_continuation(turns, cell(None, 1, "B")).replaced) == ["r1"]
    assert plan_continuation(turns, cell(None, 1, "B changed")).replaced == ()  # another cell
    assert plan_continuation(turns, cell(None, 0, "B")).replaced == ()  # another position


def test_a_headless_run_keeps_only_the_turns_this_kernel_made():
    earlier_run = branch(cell(None, 0, "A", kernel="k-old"), cell(None, 1, "B", kernel="k-old"))
    first = plan_continuation(earlier_run, cell(None, 0, "A edited"), headless_run=True)
    assert first.rule == "run" and starts(first.replaced) == ["r0", "r1"] and first.earlier == ()
    this_run = branch(cell(None, 0, "A"))  # the new kernel's first turn, after the redo
    second = plan_continuation(this_run, cell(None, 1, "B"), headless_run=True)
    assert starts(second.earlier) == ["r0"] and second.replaced == ()


def test_the_document_decides_what_is_above():
    document = [
        DocumentCell("a", prompt_digest("A")),
        DocumentCell("x", prompt_digest("X")),
        DocumentCell("b", prompt_digest("B")),
    ]
    turns = branch(cell("a", 0, "A"), cell("b", 1, "B"))
    inserted = plan_continuation(turns, cell("x", 2, "X"), document=document)
    assert inserted.rule == "document" and starts(inserted.earlier) == ["r0"] and starts(inserted.replaced) == ["r1"]
    below = plan_continuation(turns, cell("c", 2, "C"), document=[*document, DocumentCell("c", prompt_digest("C"))])
    assert starts(below.earlier) == ["r0", "r1"] and below.replaced == ()


def test_a_deleted_cells_turn_leaves_the_branch():
    turns = branch(cell("a", 0, "A"), cell("gone", 1, "B"), cell("c", 2, "C"))
    document = [DocumentCell("a", prompt_digest("A")), DocumentCell("c", prompt_digest("C"))]
    plan = plan_continuation(turns, cell("c", 3, "C"), document=document)
    assert starts(plan.earlier) == ["r0"] and starts(plan.replaced) == ["r1", "r2"]


def test_turns_from_no_cell_stay_unless_the_document_holds_their_prompt_below():
    turns = branch(cell("a", 0, "A"), None, None, prompts={1: "from the side panel", 2: "B"})
    document = [
        DocumentCell("a", prompt_digest("A")),
        DocumentCell("c", prompt_digest("C")),
        DocumentCell("b", prompt_digest("B")),
    ]
    plan = plan_continuation(turns, cell("c", 1, "C"), document=document)
    assert starts(plan.earlier) == ["r0", "r1"] and starts(plan.replaced) == ["r2"]


def test_headless_turns_in_the_document_are_found_by_prompt():
    turns = branch(cell(None, 0, "A", kernel="k-old"), cell(None, 1, "B", kernel="k-old"))
    document = [DocumentCell("a", prompt_digest("A")), DocumentCell("b", prompt_digest("B"))]
    plan = plan_continuation(turns, cell("b", 0, "B"), document=document)
    assert starts(plan.earlier) == ["r0"] and starts(plan.replaced) == ["r1"]


def test_a_cell_the_document_does_not_show_yet_falls_back_to_its_own_turn():
    turns = branch(cell("a", 0, "A"), cell("new", 1, "N"))
    plan = plan_continuation(turns, cell("new", 2, "N"), document=[DocumentCell("a", prompt_digest("A"))])
    assert plan.rule == "cell" and starts(plan.replaced) == ["r1"]


def test_prompts_match_whatever_their_whitespace():
    assert prompt_digest("Plot  it\n") == prompt_digest("Plot it")
    assert prompt_digest("Plot it") != prompt_digest("Plot that")
    assert not same_cell(None, cell("a"))
