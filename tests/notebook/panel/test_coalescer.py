import pytest

from jupyter_agent.notebook.panel.coalescer import MIN_INTERVAL, Coalescer, LoopClock, ManualClock
from jupyter_agent.testing.waiting import wait_until


def test_rate_is_limited_and_the_last_change_is_delivered(clock):
    flushes = []
    coalescer = Coalescer(lambda: flushes.append(clock.now()), clock=clock)
    for _ in range(1000):  # 1000 changes over one second
        coalescer.poke()
        clock.advance(0.001)
    clock.advance(1.0)
    assert 15 <= len(flushes) <= 1 / MIN_INTERVAL + 1
    gaps = [later - earlier for earlier, later in zip(flushes, flushes[1:])]
    assert min(gaps) >= MIN_INTERVAL - 1e-9
    assert flushes[-1] <= 1.0 + MIN_INTERVAL  # the trailing change did not wait for another poke


def test_first_change_is_shown_at_once(clock):
    flushes = []
    coalescer = Coalescer(lambda: flushes.append(clock.now()), clock=clock)
    coalescer.poke()
    assert flushes == [0.0]


def test_flush_on_demand_and_nothing_twice(clock):
    calls = []
    coalescer = Coalescer(lambda: calls.append(1), clock=clock)
    coalescer.poke()
    coalescer.poke()  # within the interval: waits for the timer
    assert calls == [1]
    coalescer.flush()
    assert calls == [1, 1]
    coalescer.flush()  # nothing pending
    clock.advance(1.0)  # the cancelled timer does not fire
    assert calls == [1, 1]


def test_not_ready_waits_up_to_max_interval(clock):
    calls = []
    ready = {"value": False}
    coalescer = Coalescer(lambda: calls.append(clock.now()), ready=lambda: ready["value"], max_interval=0.4, clock=clock)
    coalescer.poke()  # first one always goes
    for _ in range(30):
        clock.advance(0.01)
        coalescer.poke()
    assert calls == [0.0]
    clock.advance(0.2)
    assert calls == [0.0, pytest.approx(0.4)]
    ready["value"] = True
    clock.advance(0.1)
    coalescer.poke()
    assert len(calls) == 3


def test_ready_change_moves_the_timer_earlier(clock):
    calls = []
    ready = {"value": False}
    coalescer = Coalescer(lambda: calls.append(clock.now()), ready=lambda: ready["value"], max_interval=0.4, clock=clock)
    coalescer.poke()
    clock.advance(0.01)
    coalescer.poke()  # timer at 0.4
    ready["value"] = True
    coalescer.poke()  # now due at MIN_INTERVAL
    clock.advance(0.05)
    assert calls == [0.0, pytest.approx(MIN_INTERVAL)]


def test_a_poke_after_a_quiet_spell_flushes_as_soon_as_the_rate_allows(clock):
    calls = []
    coalescer = Coalescer(lambda: calls.append(clock.now()), ready=lambda: False, max_interval=0.4, quiet_after=0.06, clock=clock)
    for _ in range(5):  # a slow stream: a change every 0.1 s, each shown when it comes
        coalescer.poke()
        clock.advance(0.1)
    assert calls == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    coalescer.poke()  # 0.5
    clock.advance(0.01)
    coalescer.poke()  # 0.01 after the one before: not quiet, so it waits up to max_interval
    clock.advance(0.2)
    assert calls[-1] == pytest.approx(0.5)
    clock.advance(0.2)
    assert calls[-1] == pytest.approx(0.9)
    coalescer.poke()  # quiet (0.4 after the last poke), but MIN_INTERVAL since the flush is not over: a timer
    assert calls[-1] == pytest.approx(0.9)
    clock.advance(0.05)
    assert calls[-1] == pytest.approx(0.9 + MIN_INTERVAL)


def test_outside_a_loop_nothing_is_scheduled():
    calls = []
    coalescer = Coalescer(lambda: calls.append(1), clock=LoopClock())
    coalescer.poke()
    coalescer.poke()
    assert calls == [1]
    coalescer.flush()
    assert calls == [1, 1]


@pytest.mark.anyio
async def test_loop_timer_delivers_the_trailing_change():
    calls = []
    coalescer = Coalescer(lambda: calls.append(1))
    coalescer.poke()
    coalescer.poke()
    assert calls == [1]
    await wait_until(lambda: len(calls) == 2, what="the trailing render")
    assert calls == [1, 1]


def test_manual_clock_fires_timers_in_order():
    clock = ManualClock()
    fired = []
    clock.call_later(0.2, lambda: fired.append("b"))
    clock.call_later(0.1, lambda: fired.append("a"))
    clock.call_later(0.3, lambda: fired.append("c")).cancel()
    clock.advance(0.25)
    assert fired == ["a", "b"] and clock.now() == pytest.approx(0.25)
