"""After %load_ext the modules of a turn, the model's tokenizer and the session it likely continues (with its next
request's passes over it) are loaded in the background: the first turn loads none of them."""

import json

import pytest
from kernel_harness import notebook_kernel

from jupyter_agent.messages import AssistantMessage, TextContent, UserMessage
from jupyter_agent.session import SessionStore
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


def test_the_first_turn_after_a_restart_takes_the_session_the_warm_up_read(tmp_path):
    # A session of this notebook, written before the kernel starts (a kernel restarted on it).
    with SessionStore(tmp_path / "warm.agent" / "long.jsonl") as store:
        for index in range(50):
            store.append(UserMessage(content=f"question {index}"))
            store.append(AssistantMessage(content=[TextContent(text=f"answer {index}")], model="fake-model"))
    with FakeProvider() as provider:
        provider.queue(text("Hello."))
        h = notebook_kernel(tmp_path, model="", notebook_name="warm.ipynb")
        try:
            h.execute(f'%config AgentMagics.model = "openai/fake-model"\n%config AgentMagics.api_base = "{provider.api_base}"')
            h.execute(
                f"from jupyter_agent.notebook import warm_up\nassert warm_up.done.wait({WARM_UP_TIMEOUT})",
                timeout=WARM_UP_TIMEOUT + 10,
            )
            # From now on, a store that reads a session file itself says so.
            h.execute(
                "import jupyter_agent.session.store as _store_module\n_read_itself = []\n_real_load = _store_module.load_session\n"
                "def _counting(path, **options):\n    _read_itself.append(str(path))\n    return _real_load(path, **options)\n"
                "_store_module.load_session = _counting"
            )
            # And the messages each pass of the request (replay, privacy gate, litellm's shape) makes anew.
            h.execute(
                "import jupyter_agent.model.transform as _transform, jupyter_agent.model.litellm_convert as _convert\n"
                "from jupyter_agent.runtime.privacy import PrivacyGate\n"
                "_made = {'replayed': 0, 'gated': 0, 'converted': 0}\n"
                "def _counted(what, real):\n"
                "    def counted(*args, **kwargs):\n"
                "        _made[what] += 1\n"
                "        return real(*args, **kwargs)\n"
                "    return counted\n"
                "_transform._adapt_user = _counted('replayed', _transform._adapt_user)\n"
                "PrivacyGate._gate = _counted('gated', PrivacyGate._gate)\n"
                "_convert._release_images = _counted('converted', _convert._release_images)"
            )
            h.agent_cell("-s long -p yolo", "Go on.")
            h.wait_turn("long", timeout=60)
            assert h.evaluate("last_turn('long').result.text") == "'Hello.'"
            read_itself = h.evaluate("_read_itself")
            made = h.evaluate("_made")
        finally:
            h.shutdown()
    assert read_itself == "[]"
    assert len(provider.requests[-1]["messages"]) >= 101  # the 100 messages read ahead, then the prompt
    # The warm-up made the 100 messages' passes: the turn made those of its own few only.
    assert all(count <= 3 for count in eval(made).values()), made
