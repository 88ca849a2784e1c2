"""After %load_ext the modules of a turn and the model's tokenizer are loaded in the background: the first turn loads none."""

import json

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.testing.fake_provider import FakeProvider, text

pytestmark = pytest.mark.kernel

WARM_UP_TIMEOUT = 120  # litellm's import first (~8 s, more on a busy CI), then the turn's modules


def test_the_first_turn_after_load_ext_imports_no_module_of_ours(tmp_path):
    with FakeProvider() as provider:
        provider.queue(text("Hello."))
        h = notebook_kernel(tmp_path, model="", notebook_name="warm.ipynb")  # a real model: litellm preloads
        try:
            h.execute(f'%config AgentMagics.model = "openai/fake-model"\n%config AgentMagics.api_base = "{provider.api_base}"')
            h.execute(
                f"from jupyter_agent.notebook import warm_up\nassert warm_up.done.wait({WARM_UP_TIMEOUT})",
                timeout=WARM_UP_TIMEOUT + 10,
            )
            h.execute("import sys, tiktoken.registry\n_before = set(sys.modules)")
            h.execute("_encodings = set(tiktoken.registry.ENCODINGS)")
            h.agent_cell("-p yolo", "Say hello.")
            h.wait_turn("main", timeout=60)
            assert h.evaluate("last_turn('main').result.text") == "'Hello.'"
            new = json.loads(h.evaluate("__import__('json').dumps(sorted(set(sys.modules) - _before))").strip("'"))
            # The response's cost bookkeeping counted tokens with the tokenizer loaded beforehand.
            loaded = h.evaluate("sorted(set(tiktoken.registry.ENCODINGS) - _encodings)")
        finally:
            h.shutdown()
    ours = [name for name in new if name.startswith("jupyter_agent")]
    assert ours == [], ours
    assert loaded == "[]"
