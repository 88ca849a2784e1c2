import json

from jupyter_agent.model import Model
from jupyter_agent.notebook.agent_cells import (
    Placement,
    agent_prompt,
    cell_ref,
    continuation_note,
    document_cells,
    saved_document,
)
from jupyter_agent.session.cells import Continuation, DocumentCell, prompt_digest
from jupyter_agent.session.records import RequestRecord
from jupyter_agent.session.turns import TurnSpan


def test_agent_cells_and_their_prompts():
    assert agent_prompt("%%agent -p yolo\nPlot it\n") == "Plot it"
    assert agent_prompt("%%agentx\nno") is None and agent_prompt("print(1)") is None
    cells = document_cells(
        [
            {"id": "a", "cell_type": "code", "source": ["%%agent\n", "Plot it"]},
            {"id": "m", "cell_type": "markdown", "source": "%%agent\nx"},
        ]
    )
    assert cells == [DocumentCell("a", prompt_digest("Plot it")), DocumentCell("m", "")]
    assert cell_ref("a", 3, "Plot  it").prompt == prompt_digest("Plot it")


def test_the_saved_notebook_is_read_when_there_is_one(tmp_path):
    path = tmp_path / "nb.ipynb"
    assert saved_document(path) is None
    path.write_text(json.dumps({"cells": [{"id": "x", "cell_type": "code", "source": "1"}]}))
    assert saved_document(path) == [DocumentCell("x", "")]
    path.write_text("{not json")
    assert saved_document(path) is None


def spans(*cell_ids):
    return [TurnSpan(i, RequestRecord(id=f"r{i}", model="m", cell=cell_ref(cid, i, f"p{i}"))) for i, cid in enumerate(cell_ids)]


def test_the_note_names_the_turns_cells_tokens_and_cost():
    earlier = spans("a", "b")
    document = [DocumentCell("x", ""), DocumentCell("a", ""), DocumentCell("b", ""), DocumentCell("c", "")]
    placement = Placement(Continuation(cell_ref("c", 2, "p"), tuple(earlier), (), "document"), document)
    priced = Model(id="m", provider="openai", cost={"input": 3.0, "output": 15.0, "cache_read": 0.3})
    assert continuation_note("main", earlier, placement, 12_000, priced) == (
        "This turn continues session main: 2 earlier turns (cells 2, 3), ≈ 12.0 k tokens, ≈ $0.0036 with caching. "
        "%%agent --new starts afresh."
    )
    assert continuation_note("main", earlier, None, 800, Model(id="m", provider="x")) == (
        "This turn continues session main: 2 earlier turns, ≈ 800 tokens. %%agent --new starts afresh."
    )
    assert continuation_note("main", [], None, 0, None) == "This turn starts session main."


def test_the_saved_notebook_is_read_once_while_it_is_unchanged(tmp_path, monkeypatch):
    # Every turn asks: a big notebook must not be parsed again each time (the outline's read is reused).
    from jupyter_agent.features.notebook_tools import ipynb

    reads = []
    real = ipynb._read_without_payloads
    monkeypatch.setattr(ipynb, "_read_without_payloads", lambda path: reads.append(path) or real(path))
    path = tmp_path / "big.ipynb"
    path.write_text(json.dumps({"cells": [{"id": "a", "cell_type": "code", "source": "%%agent\nPlot it"}]}))
    assert saved_document(path) == saved_document(path) == [DocumentCell("a", prompt_digest("Plot it"))]
    assert len(reads) == 1
