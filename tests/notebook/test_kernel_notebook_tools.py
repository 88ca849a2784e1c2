"""The notebook tools in a real kernel without the lab extension: the file on disk is the source."""

import ast
import json

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.messages import without_turn_context

pytestmark = pytest.mark.kernel

SAVED = {
    "cells": [
        {"id": "intro", "cell_type": "markdown", "metadata": {}, "source": "# Quarterly sales\nRevenue per region."},
        {
            "id": "boom",
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": "1/0",
            "outputs": [
                {
                    "output_type": "error",
                    "ename": "ZeroDivisionError",
                    "evalue": "division by zero",
                    "traceback": ["Traceback (most recent call last)", "ZeroDivisionError: division by zero"],
                }
            ],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    harness = notebook_kernel(tmp_path_factory.mktemp("notebook-tools"))
    yield harness
    harness.shutdown()


def test_notebook_read_without_the_extension_reads_the_saved_file(kernel):
    (kernel.folder / "analysis.ipynb").write_text(json.dumps(SAVED))
    kernel.execute("m = script('reader', tool_calls(call('notebook_read', {})), reply('I read it.'))")
    kernel.agent_cell("-m reader -s reading", "What is in my notebook?")
    kernel.wait_turn("reading")
    result = ast.literal_eval(kernel.evaluate("last_turn('reading').result.messages[-2].content[0].text"))
    assert "source: the notebook file on disk analysis.ipynb" in result
    assert "0 · intro · markdown" in result and "# Quarterly sales" in result
    assert "ZeroDivisionError: division by zero" in result


def test_notebook_edit_replace_and_run_explain_that_they_need_the_extension(kernel):
    kernel.execute(
        "m = script('editor', tool_calls(call('notebook_edit', {'op': 'delete', 'cell_id': 'boom'}),"
        " call('notebook_run', {'cell_id': 'boom'})), reply('ok'))"
    )
    kernel.agent_cell("-m editor -s editing -p yolo", "Delete the failing cell and run it")
    kernel.wait_turn("editing")
    texts = ast.literal_eval(
        kernel.evaluate("[m.content[0].text for m in last_turn('editing').result.messages if m.role == 'tool_result']")
    )
    assert "notebook_edit delete needs the jupyter-agent JupyterLab extension" in texts[0]
    assert "run the code with the `python` tool instead" in texts[1]


def test_agent_fix_tells_the_model_the_exception_the_cell_and_the_frame_locals(kernel):
    kernel.execute("def ratio(total, parts):\n    share = total / parts\n    return share")
    failing = kernel.execute("revenue = 120\nratio(revenue, 0)", check=False)
    assert not failing.ok
    kernel.execute("fixer = script('fixer', reply('The divisor is zero.'))\n%config AgentMagics.model = 'fixer'")
    kernel.execute("%agent fix")
    kernel.wait_for(lambda: kernel.evaluate("len(fixer.requests)") == "1", what="the fix request")
    request = ast.literal_eval(kernel.evaluate("fixer.requests[0].context.messages[-1].content"))
    assert "Exception: ZeroDivisionError: division by zero" in request
    assert "revenue = 120\nratio(revenue, 0)" in request  # the cell that raised it
    assert "Local variables of the failing frame (ratio):" in request
    assert "- total: int = 120" in request and "- parts: int = 0" in request
    assert "notebook_edit" in request
    kernel.execute("%config AgentMagics.model = ''")


def test_a_mention_attaches_the_variable_and_an_unknown_one_stays_text(kernel):
    kernel.execute("import pandas as pd\nsales = pd.DataFrame({'region': ['north', 'south'], 'revenue': [10, 20]})")
    kernel.execute("m = script('mentioned', reply('Two regions.'))")
    kernel.agent_cell("-m mentioned -s mentions", "Compare @sales with @nothing_here, see @cell[0]")
    kernel.wait_turn("mentions")
    sent = ast.literal_eval(kernel.evaluate("m.requests[0].context.messages[-1].content"))
    request = without_turn_context(sent)  # the turn's context (date, notebook outline) leads the prompt
    assert sent.startswith("<turn-context>\n") and request.startswith("Compare @sales with @nothing_here, see @cell[0]")
    assert "@sales:" in request and "region" in request and "revenue" in request
    assert "@nothing_here: (note: no variable 'nothing_here' in the kernel; the mention was left as text)" in request
    assert "@cell[0]:" in request and "# Quarterly sales" in request


CLEANING = {
    "cells": [
        {"id": "why", "cell_type": "markdown", "metadata": {}, "source": "# Cleaning\nDrop the test stores."},
        {
            "id": "clean",
            "cell_type": "code",
            "execution_count": 3,
            "metadata": {},
            "source": "sales = sales[~sales.store.str.startswith('test')]\nprint('rows dropped:', 12)",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "rows dropped: 12\n"}],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_notebook_read_with_a_path_reads_another_notebook_and_refuses_one_outside_the_workspace(kernel):
    (kernel.folder / "notebooks").mkdir(exist_ok=True)
    (kernel.folder / "notebooks" / "cleaning.ipynb").write_text(json.dumps(CLEANING))
    (kernel.folder.parent / "outside.ipynb").write_text(json.dumps(CLEANING))
    kernel.execute(
        "m = script('other', tool_calls(call('notebook_read', {'path': 'notebooks/cleaning.ipynb'}),"
        " call('notebook_read', {'path': 'notebooks/cleaning.ipynb', 'cell_ids': ['clean']}),"
        " call('notebook_read', {'path': '../outside.ipynb'}), call('notebook_read', {'path': 'notebooks/none.ipynb'})),"
        " reply('I read it.'))"
    )
    kernel.agent_cell("-m other -s other", "What does the cleaning notebook do?")
    kernel.wait_turn("other")
    results = ast.literal_eval(
        kernel.evaluate(
            "[(m.is_error, ' '.join(b.text for b in m.content)) for m in last_turn('other').result.messages"
            " if m.role == 'tool_result']"
        )
    )
    (ok_outline, outline_text), (ok_cell, cell_text), (outside_error, outside_text), (missing_error, missing_text) = results
    assert not ok_outline and "notebooks/cleaning.ipynb, another notebook of the workspace" in outline_text
    assert "0 · why · markdown" in outline_text and "# Cleaning" in outline_text and "rows dropped: 12" in outline_text
    assert not ok_cell and "print('rows dropped:', 12)" in cell_text and "output (stream):\nrows dropped: 12" in cell_text
    assert outside_error and "is outside the workspace" in outside_text
    assert missing_error and "no notebook notebooks/none.ipynb in the workspace" in missing_text


def test_a_mention_of_another_notebook_attaches_its_outline(kernel):
    (kernel.folder / "notebooks").mkdir(exist_ok=True)
    (kernel.folder / "notebooks" / "cleaning.ipynb").write_text(json.dumps(CLEANING))
    kernel.execute("m = script('mentioner', reply('Seen.'))")
    kernel.agent_cell("-m mentioner -s mention", "Redo what @notebooks/cleaning.ipynb does, and @../outside.ipynb too")
    kernel.wait_turn("mention")
    prompt = without_turn_context(ast.literal_eval(kernel.evaluate("m.requests[0].context.messages[-1].content")))
    assert "@notebooks/cleaning.ipynb:\nNotebook (2 cells; source: notebooks/cleaning.ipynb, another notebook" in prompt
    assert "Drop the test stores." in prompt and "notebook_read with path='notebooks/cleaning.ipynb'" in prompt
    assert "@../outside.ipynb: (note: Path '../outside.ipynb' is outside the workspace" in prompt


def test_without_the_extension_cells_read_as_the_user_typed_them_and_a_saved_magic_cell_once(kernel):
    """The kernel's history keeps the code IPython ran (get_ipython().run_line_magic(...)); the user typed a magic."""
    saved = {
        **SAVED,
        # Saved from an earlier kernel (execution counts above this kernel's): this kernel restarted since.
        "cells": [
            {
                "id": "plots",
                "cell_type": "code",
                "execution_count": 9000,
                "metadata": {},
                "source": "%matplotlib inline",
                "outputs": [],
            }
        ],
    }
    (kernel.folder / "analysis.ipynb").write_text(json.dumps(saved))
    kernel.execute("%matplotlib inline")  # the saved cell, run again after the restart
    kernel.execute("%load_ext autoreload\nrows = 3")  # a cell run since the last save
    kernel.execute("m = script('magic-reader', tool_calls(call('notebook_read', {})), reply('I read it.'))")
    kernel.agent_cell("-m magic-reader -s magic", "What is in my notebook?")
    kernel.wait_turn("magic")
    result = ast.literal_eval(kernel.evaluate("last_turn('magic').result.messages[-2].content[0].text"))
    assert "run_line_magic" not in result and "get_ipython()" not in result, result
    assert result.count("%matplotlib inline") == 1, result
    assert "    %load_ext autoreload\n    rows = 3\n" in result, result


def test_a_saved_output_holding_the_api_key_reaches_the_model_redacted(kernel):
    key = "sk-leaky-provider-key-0123456789abcdef"
    leaky = json.loads(json.dumps(SAVED))
    leaky["cells"].append(
        {
            "id": "env",
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "source": "print(os.environ['OPENAI_API_KEY'])",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": f"{key}\n"}],
        }
    )
    (kernel.folder / "analysis.ipynb").write_text(json.dumps(leaky))
    kernel.execute(f'%config AgentMagics.api_key = "{key}"')
    try:
        kernel.execute("m = script('leak-reader', tool_calls(call('notebook_read', {})), reply('I read it.'))")
        kernel.agent_cell("-m leak-reader -s leak", "What is in my notebook?")
        kernel.wait_turn("leak")
        sent = kernel.evaluate(
            "repr([b.text for msg in m.requests[-1].context.messages for b in getattr(msg, 'content', []) if getattr(b, 'type', '') == 'text'])"
        )
        assert key not in sent  # what the model received: redacted as the session file is
        assert "[redacted:api_key]" in sent, sent
        assert key not in (kernel.folder / "analysis.agent" / "leak.jsonl").read_text()
    finally:
        kernel.execute('%config AgentMagics.api_key = ""')
