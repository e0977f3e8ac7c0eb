"""The server's worker queue: refused at once when full, never started past the deadline."""
from __future__ import annotations

import threading
import time

import pytest

from liuren_logic.domain.turns import Busy, Late, Turns, in_time


@pytest.fixture
def turns():
    turns = Turns(limit=3)
    yield turns
    turns.close()


def _blocked(turns: Turns, seconds: float = 5.0) -> threading.Event:
    """Occupy the worker until the returned event is set (or ``seconds`` pass)."""
    release, started = threading.Event(), threading.Event()

    def hold():
        started.set()
        release.wait(seconds)

    threading.Thread(target=lambda: turns.run("hold", hold, time.monotonic() + 60), daemon=True).start()
    assert started.wait(5)
    return release


def test_answers_in_turn_and_hands_back_the_jobs_own_error(turns):
    assert [turns.run("sum", lambda n=n: n + 1, time.monotonic() + 5) for n in range(3)] == [1, 2, 3]
    with pytest.raises(ZeroDivisionError):
        turns.run("fail", lambda: 1 / 0, time.monotonic() + 5)
    with pytest.raises(SystemExit):  # even this leaves the worker alive
        turns.run("exit", lambda: exit(2), time.monotonic() + 5)
    assert turns.run("sum", lambda: 7, time.monotonic() + 5) == 7


def test_a_job_that_cannot_finish_in_time_is_refused_at_once(turns):
    turns.run("slow", lambda: time.sleep(0.3), time.monotonic() + 5)  # now a slow job is known to take 0.3 s
    release = _blocked(turns)
    started = time.monotonic()
    with pytest.raises(Busy):
        turns.run("slow", lambda: None, time.monotonic() + 0.1)
    assert time.monotonic() - started < 0.05
    release.set()


def test_a_full_queue_refuses_at_once(turns):
    release = _blocked(turns)
    waiting = [threading.Thread(target=lambda: turns.run("quick", lambda: None, time.monotonic() + 30))
               for _ in range(3)]
    for thread in waiting:
        thread.start()
    time.sleep(0.2)
    started = time.monotonic()
    with pytest.raises(Busy):
        turns.run("quick", lambda: None, time.monotonic() + 30)
    assert time.monotonic() - started < 0.05
    release.set()
    for thread in waiting:
        thread.join(5)


def test_a_job_whose_deadline_passed_while_it_waited_is_never_started(turns):
    release = _blocked(turns)
    ran = []
    started = time.monotonic()
    with pytest.raises(Late):
        turns.run("quick", lambda: ran.append(1), time.monotonic() + 1.2)  # admitted: 1 s of work is guessed
    assert 1.15 < time.monotonic() - started < 2.0
    release.set()
    assert turns.run("quick", lambda: "after", time.monotonic() + 5) == "after" and ran == []


def test_a_running_job_stops_at_its_next_check_past_the_deadline(turns):
    checks = []

    def long_job():
        for _ in range(100):
            in_time()
            checks.append(1)
            time.sleep(0.05)

    with pytest.raises(Late):
        turns.run("long", long_job, time.monotonic() + 2.0)
    time.sleep(0.1)
    stopped = len(checks)
    time.sleep(0.3)
    assert stopped == len(checks) < 100  # stopped, not running on behind the caller's back
    in_time()  # outside a job: nothing to stop
