"""StepLedger: steps open and close with their events, and every charge lands in step and run."""

from jupyter_agent.messages import Usage
from jupyter_agent.model import Model
from jupyter_agent.runtime.ledger import StepLedger
from jupyter_agent.runtime.spend import Rates, RunUsage

# $1 per million input tokens and $2 per million output tokens: 1M input + 0.5M output = $2.
RATES = Rates(input=1.0, output=2.0)
MODEL = Model(id="m")


def ledger_with_events():
    events = []
    return StepLedger(RATES, MODEL, events.append), events


def test_a_step_opens_charges_and_closes_with_its_own_and_the_runs_usage():
    ledger, events = ledger_with_events()
    assert ledger.open(MODEL, request_estimate=500) == 1
    reported = ledger.charge_response(Usage(input=1_000_000, output=500_000, total_tokens=1_500_000))
    assert reported == 1_000_000 and ledger.step_cost == 2.0
    ledger.completed(["read", "grep"])
    ledger.close()
    ledger.close()  # closing twice emits nothing more
    assert [event.type for event in events] == ["step_start", "step_finish"]
    finish = events[-1]
    assert finish.step == 1 and finish.model == "m"
    assert finish.step_usage.spend_usd == 2.0 and finish.usage.spend_usd == 2.0
    assert [(info.step, info.tool_names) for info in ledger.steps] == [(1, ["read", "grep"])]


def test_the_estimate_stands_in_when_the_provider_reports_no_input_size():
    ledger, _ = ledger_with_events()
    ledger.open(MODEL, request_estimate=1234)
    assert ledger.charge_response(Usage()) == 0
    assert ledger.usage.last_request_input_tokens == 1234


def test_a_new_step_starts_from_zero_while_the_run_accumulates():
    ledger, events = ledger_with_events()
    for _ in range(2):
        ledger.open(MODEL, request_estimate=0)
        ledger.charge_response(Usage(input=1_000_000, total_tokens=1_000_000))
        ledger.close()
    assert [event.step_usage.spend_usd for event in events if event.type == "step_finish"] == [1.0, 1.0]
    assert ledger.usage.spend_usd == 2.0 and ledger.step == 2


def test_external_work_and_side_requests_count_for_the_run_and_the_open_step():
    ledger, events = ledger_with_events()
    ledger.charge_external(RunUsage(spend_usd=0.5))  # between steps: the run only
    ledger.open(MODEL, request_estimate=0)
    ledger.charge_external(RunUsage(spend_usd=0.25))
    ledger.charge_side_request(Usage(output=500_000, total_tokens=500_000), MODEL)
    ledger.close()
    assert events[-1].step_usage.spend_usd == 1.25
    assert ledger.usage.spend_usd == 1.75
    assert ledger.step_cost == 0.0  # only the step's own responses project the next step's cost


def test_remaining_spend_never_goes_negative():
    ledger, _ = ledger_with_events()
    assert ledger.remaining_spend(None) is None
    ledger.charge_external(RunUsage(spend_usd=3.0))
    assert ledger.remaining_spend(5.0) == 2.0 and ledger.remaining_spend(1.0) == 0.0
