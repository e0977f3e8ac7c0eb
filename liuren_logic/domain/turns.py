"""Work taken in turns by one thread, each job under a deadline, the queue bounded by time.

``liuren serve`` answers on one worker thread (sessions are not thread-safe and the work is
CPU-bound). :class:`Turns` keeps that worker from being buried by one client's burst:

* a job is refused at once (:class:`Busy`) when the work already waiting, at the time each
  kind of job has been taking, would not let it finish before its deadline, or when
  ``limit`` jobs wait;
* a job whose deadline passes while it waits is never started, and its caller gets
  :class:`Late` at the deadline;
* a running job stops at its next :func:`in_time` check once its deadline has passed;
* once closed, a job waiting or asked for gets :class:`Stopped`.
"""
from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import CancelledError, Future, TimeoutError as NoResult
from typing import Callable

FIRST_GUESS = 0.5  # seconds a job of a kind not yet timed is taken to need
_running = threading.local()  # the deadline of the job the worker is running


class Busy(Exception):
    """Refused at once: the queue could not start this job in time (retry after ``seconds``)."""

    def __init__(self, seconds: float):
        super().__init__(f"busy: about {seconds:.0f} s of work is waiting")
        self.seconds = seconds


class Late(Exception):
    """The deadline passed before the job was done: it was dropped, or stopped at a check."""


class Stopped(Exception):
    """The worker was closed before it started the job (the server is stopping)."""


def in_time() -> None:
    """Raise :class:`Late` when the running job's deadline has passed (a no-op outside a job)."""
    deadline = getattr(_running, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        raise Late("stopped at its deadline")


class Turns:
    """One worker thread running submitted jobs in order (see the module's guarantees)."""

    def __init__(self, limit: int, name: str = "liuren-answer"):
        self._jobs: queue.Queue = queue.Queue(limit)
        self._lock = threading.Lock()
        self._waiting = 0.0  # seconds of work queued or running, by the estimates
        self._took: dict[str, float] = {}  # kind → seconds a job of it takes (a moving average)
        self._closed = False
        self._worker = threading.Thread(target=self._work, name=name, daemon=True)
        self._worker.start()

    def run(self, kind: str, job: Callable[[], object], deadline: float) -> object:
        """The job's result, computed by the worker; :class:`Busy` at once, :class:`Late` at
        ``deadline`` (a :func:`time.monotonic` time), or :class:`Stopped` once the worker is closed;
        the job's own exception as raised."""
        future: Future = Future()
        with self._lock:
            if self._closed:
                raise Stopped("the worker is closed")
            cost = self._took.get(kind, FIRST_GUESS)
            if time.monotonic() + self._waiting + cost > deadline:
                raise Busy(self._waiting)
            try:
                self._jobs.put_nowait((future, kind, job, deadline, cost))
            except queue.Full:
                raise Busy(self._waiting) from None
            self._waiting += cost
        try:
            return future.result(timeout=max(0.0, deadline - time.monotonic()))
        except NoResult:
            future.cancel()  # not started yet: the worker drops it
            raise Late("no answer within the deadline") from None
        except CancelledError:  # dropped by close()
            raise Stopped("the worker was closed") from None

    def close(self) -> None:
        """Stop the worker after the job it is running; queued jobs are dropped (their callers get
        :class:`Stopped`), and no more are taken."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        while True:
            try:
                future, *_ = self._jobs.get_nowait()
                future.cancel()
            except queue.Empty:
                break
        self._jobs.put(None)

    def _work(self) -> None:
        while (item := self._jobs.get()) is not None:
            future, kind, job, deadline, cost = item
            if time.monotonic() < deadline and future.set_running_or_notify_cancel():
                _running.deadline, started = deadline, time.monotonic()
                try:
                    future.set_result(job())
                except BaseException as error:  # noqa: BLE001 - even SystemExit: the caller reports it
                    future.set_exception(error)
                finally:
                    _running.deadline = None
                    took = time.monotonic() - started
                    with self._lock:
                        self._took[kind] = 0.7 * self._took.get(kind, took) + 0.3 * took
            with self._lock:
                self._waiting = max(0.0, self._waiting - cost)


__all__ = ["Turns", "Busy", "Late", "Stopped", "in_time"]
