"""Edit with Agent, kernel side: the proposal (the offline demo's here; a real model's in the browser
test), a rejection changes nothing, an acceptance is the newest undo step and is in the session."""

import pytest

from jupyter_agent.features.notebook_tools import NotebookEditLog
from jupyter_agent.notebook.cell_edit import ACCEPTED, REJECTED, CellEdits
from jupyter_agent.notebook.comm import protocol as p
from jupyter_agent.notebook.config import AgentConfig
from jupyter_agent.testing.waiting import wait_until

pytestmark = pytest.mark.anyio


def edits(manager):
    return CellEdits(None, manager, lambda: AgentConfig(model="demo"))


def request(request_id="e1", **fields):
    return p.EditCellRequest(request_id=request_id, prompt="use a log scale", cell_id="c2", source="plt.plot(x)", **fields)


async def proposal(service, asked):
    sent = []
    service.propose(asked, sent.append)
    await wait_until(lambda: sent, what="the proposal")
    return sent[0]


async def test_the_demo_proposes_a_labelled_edit_of_the_cell(manager):
    answer = await proposal(edits(manager), request())
    assert isinstance(answer, p.EditProposal) and answer.cell_id == "c2"
    assert answer.source == "# Edited by the offline demo model (no LLM connected): use a log scale\nplt.plot(x)"
    assert "offline demo" in answer.model


async def test_a_rejection_records_nothing_and_an_acceptance_is_the_newest_undo_step(manager):
    service = edits(manager)
    session = manager.recent()
    log = NotebookEditLog.for_session(session.path)
    answer = await proposal(service, request("e1"))
    decision = p.EditDecision(request_id="e1", cell_id="c2", accepted=False, before="plt.plot(x)", after="plt.plot(x)")
    assert service.decide(decision) == REJECTED and log.edits() == []

    answer = await proposal(service, request("e2"))
    accepted = p.EditDecision(request_id="e2", cell_id="c2", accepted=True, before="plt.plot(x)", after=answer.source, index=2)
    assert service.decide(accepted) == ACCEPTED
    [edit] = log.edits()
    assert (edit.op, edit.cell_id, edit.index, edit.step) == ("replace", "c2", 2, 1)
    assert edit.inverse() == {"op": "replace", "cell_id": "c2", "cell_type": "code", "source": "plt.plot(x)"}
    history = session.store.history()
    assert history[-2].content == "[Edit with Agent, cell c2] use a log scale"
    assert answer.source in history[-1].content[0].text

    answer = await proposal(service, request("e3"))
    service.decide(p.EditDecision(request_id="e3", cell_id="c2", accepted=True, before="a", after="b"))
    assert [edit.step for edit in log.edits()] == [1, 2]  # each acceptance is newer than the last


async def test_a_cancelled_run_answers_with_a_failed_reply(manager):
    service = edits(manager)
    sent = []
    service.propose(request("e4"), sent.append)
    assert service.cancel("e4")
    await wait_until(lambda: sent, what="the failed reply")
    assert sent[0] == p.Reply(request_id="e4", ok=False, message="The edit was cancelled.")
