from types import SimpleNamespace

from jupyter_agent.notebook.panel.footer import Footer


class Ticks:
    now = 100.0

    def __call__(self):
        return self.now


def usage(**fields):
    base = dict(
        input_tokens=0, output_tokens=0, cache_read_tokens=0, cache_write_tokens=0, spend_usd=0.0, last_request_input_tokens=0
    )
    return SimpleNamespace(**(base | fields))


def test_numbers():
    ticks = Ticks()
    footer = Footer(model_label="claude-x", session="main", context_window=200_000, demo=False, clock=ticks)
    footer.start(step_budget=20)
    footer.step = 3
    footer.usage = usage(
        input_tokens=45_300, output_tokens=1_250, cache_read_tokens=12_000, spend_usd=0.0123, last_request_input_tokens=50_000
    )
    ticks.now += 42
    footer.refresh()
    value = footer.widget.value
    for expected in [
        "step 3/20",
        "claude-x",
        "45.3k in / 1.2k out (12.0k cached)",
        "context 25%",
        "cost $0.0123",
        "42 s",
        "session main",
        '<span class="ja-dot ja-running">●</span>running',
    ]:
        assert expected in value


def test_unpriced_cost_unknown_window_and_frozen_elapsed():
    ticks = Ticks()
    footer = Footer(model_label="ollama/llama3", session="s", context_window=None, demo=False, clock=ticks)
    footer.usage = usage(input_tokens=10, output_tokens=5)
    footer.set_state("done")
    ticks.now += 100
    footer.refresh()
    assert "cost n/a" in footer.widget.value and "context" not in footer.widget.value
    assert "0.0 s" in footer.widget.value  # elapsed stops at the terminal state
    assert footer.summary().startswith("✓ done · ollama/llama3 · 10 in / 5 out · cost n/a")


def test_model_and_session_are_escaped_and_demo_is_labelled():
    footer = Footer(model_label="<m>", session="<s>", context_window=None, demo=True)
    assert "&lt;m&gt;" in footer.widget.value and "&lt;s&gt;" in footer.widget.value
    assert '<span class="ja-demo">offline demo model</span>' in footer.widget.value


def test_the_demo_is_named_once_when_the_label_already_says_it():
    footer = Footer(model_label="demo", session="s", context_window=None, demo=True)
    footer.model_label = "offline demo model (no LLM connected)"  # what model resolution reports
    footer.refresh()
    assert footer.widget.value.count("offline demo model") == 1
    assert '<span class="ja-demo">offline demo model (no LLM connected)</span>' in footer.widget.value
    assert footer.summary().count("offline demo model") == 1


def test_state_details():
    footer = Footer(model_label="m", session="s", context_window=None, demo=False)
    footer.set_state("waiting", "waiting for the turn above")
    assert footer.state_text() == "waiting for the turn above"
    footer.set_state("stopped", "stopped before it started")
    assert footer.state_text() == "stopped before it started"
    footer.set_state("done", "step limit reached")
    assert footer.state_text() == "done — step limit reached"
    footer.set_state("bogus")
    assert footer.state == "running"
