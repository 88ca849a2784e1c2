from jupyter_agent.features.plan.state import PlanState
from jupyter_agent.features.plan.view import PlanView, plan_html
from jupyter_agent.notebook.panel.shared import is_visible


def plan(*items):
    state = PlanState()
    state.replace([{"text": text, "status": status} for text, status in items])
    return state


def test_the_checklist_marks_each_status_and_escapes_the_text():
    html = plan_html(plan(("Load <data>", "done"), ("Plot **revenue**", "in_progress"), ("Report", "pending")).items)
    assert "Plan · 1/3 done" in html
    assert '<li class="ja-plan-done" title="done"><span class="ja-check">✓</span>' in html
    assert '<li class="ja-plan-in_progress" title="in progress"><span class="ja-check"></span>' in html
    assert "Load &lt;data&gt;" in html and "<strong>revenue</strong>" in html


def test_hidden_while_empty_and_redrawn_on_change():
    view = PlanView()
    view.show(PlanState())
    assert not is_visible(view.widget) and view.widget.value == ""
    state = plan(("one", "in_progress"), ("two", "pending"))
    view.show(state)
    assert is_visible(view.widget) and "0/2 done" in view.widget.value
    state.update([{"id": "1", "status": "done"}])
    view.show(state)
    assert "1/2 done" in view.widget.value
