from jupyter_agent.notebook.panel.controls import Controls
from jupyter_agent.notebook.panel.shared import is_visible


def make():
    notes = []
    return Controls(note=notes.append), notes


def test_steer_calls_the_hook_and_clears_the_box():
    controls, notes = make()
    sent = []
    controls.on_steer = lambda text: sent.append(text) or True
    controls.text.value = "  use the median  "
    controls.steer_button.click()
    assert sent == ["use the median"] and controls.text.value == ""


def test_follow_up_rejected_keeps_the_text_and_says_why():
    controls, notes = make()
    controls.on_follow_up = lambda text: False
    controls.text.value = "then plot it"
    controls.follow_up_button.click()
    assert controls.text.value == "then plot it"
    assert notes[-1] == "The agent is not running: the message was not sent."


def test_empty_box_and_missing_hooks():
    controls, notes = make()
    controls.steer_button.click()
    assert notes[-1] == "Type a message first."
    controls.text.value = "x"
    controls.steer_button.click()  # no hook installed: nothing accepted it
    assert controls.text.value == "x"
    controls.stop_button.click()
    assert notes[-1] == "Nothing to stop."


def test_stop_calls_the_hook_once():
    controls, _ = make()
    stops = []
    controls.on_stop = lambda: stops.append(1)
    controls.stop_button.click()
    assert stops == [1]
    assert controls.stop_button.disabled and controls.stop_button.description == "Stopping…"
    controls.set_enabled(False)
    assert controls.stop_button.description == "Stop" and controls.text.disabled


def test_queue_shows_pending_messages_until_delivered():
    controls, _ = make()
    controls.add_queued("steer", "a")
    controls.add_queued("follow_up", "b")
    assert is_visible(controls.queue_html)
    spinner = '<span class="ja-spinner"></span>'  # CSS-drawn: no emoji font needed
    assert controls.queue_html.value == f"{spinner}queued steer: a<br>{spinner}queued follow-up: b"
    controls.mark_delivered("follow_up", "b")
    controls.mark_delivered("steer", "a (edited by the runtime)")  # falls back to the oldest steer
    assert controls.queued == [] and not is_visible(controls.queue_html)


def test_finished_run_hides_the_controls():
    controls, _ = make()
    controls.set_enabled(False)
    assert not is_visible(controls.widget)
    controls.set_enabled(True)
    assert is_visible(controls.widget)


def test_the_stop_buttons_messages_run_on_the_subshell_they_were_sent_to():
    from types import SimpleNamespace

    from jupyter_agent.notebook.panel.controls import handle_where_sent

    # ipykernel 7's routing hook: the subshell of the comm's last outgoing message ("main" here).
    comm = SimpleNamespace(_reply_subshell_for=lambda data, sent_to: None)
    handle_where_sent(SimpleNamespace(comm=comm))
    assert comm._reply_subshell_for({"method": "custom"}, "subshell-1") == "subshell-1"
    untouched = SimpleNamespace()
    handle_where_sent(SimpleNamespace(comm=untouched))  # a kernel without the hook is left alone
    assert not hasattr(untouched, "_reply_subshell_for")
    handle_where_sent(SimpleNamespace(comm=None))


def test_a_message_the_run_takes_later_is_listed_at_once_and_once():
    controls, notes = make()
    handed = []
    # What the runner does from a subshell's thread while agent-run Python blocks the loop: the run
    # takes the text only once that call returns, so it says nothing now.
    controls.on_steer = lambda text: handed.append(text) or True
    controls.text.value = "use the median"
    controls.steer_button.click()
    assert handed == ["use the median"] and controls.text.value == ""  # heard: the box is cleared
    spinner = '<span class="ja-spinner"></span>'
    assert controls.queue_html.value == f"{spinner}queued steer (will reach the agent after the running call): use the median"
    assert is_visible(controls.queue_html)
    controls.add_queued("steer", "use the median")  # the run's own announcement, once its loop is free
    assert controls.queued == [("steer", "use the median")]
    assert controls.queue_html.value == f"{spinner}queued steer: use the median"
    controls.mark_delivered("steer", "use the median")
    assert controls.queued == [] and not is_visible(controls.queue_html)


def test_a_message_the_run_announces_from_inside_the_hook_is_listed_once():
    controls, _ = make()
    controls.on_follow_up = lambda text: controls.add_queued("follow_up", text) or True  # a run on this thread
    controls.text.value = "then plot it"
    controls.follow_up_button.click()
    assert controls.queued == [("follow_up", "then plot it")]
    controls.add_queued("follow_up", "then plot it")  # the same text sent again later is a second message
    assert controls.queued == [("follow_up", "then plot it")] * 2


def test_a_finished_run_drops_messages_it_never_took():
    controls, _ = make()
    controls.on_steer = lambda text: True
    controls.text.value = "too late"
    controls.steer_button.click()
    controls.clear_queue()
    controls.add_queued("steer", "too late")  # a later run's message of the same text is listed
    assert controls.queued == [("steer", "too late")]
