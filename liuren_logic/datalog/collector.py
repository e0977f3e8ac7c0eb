"""Python's cyclic garbage collector: every decision the package makes about it.

What the package builds (a school's syntax nodes, a batch's facts, relations and tables, a why's
firings) lives long and makes no reference cycle, so each pass of the collector walks it again
and finds nothing to free: it took half of a load's time, 10 of the 17 s of a 12 MB parse. So:

- a parse, a load, a batch's evaluation and a why's exploration run with the collector paused
  (:class:`collection_paused`; a batch's under the engine's collector pass,
  :mod:`~liuren_logic.datalog.passes.collector`, which also settles its relations at its end);
- the ``liuren`` command keeps it off until the school is loaded, then freezes what the load
  built; a library caller finds it as it was (:func:`command`, :func:`loaded`, :func:`cast`,
  :func:`keep_to_the_end`, :func:`live_on`);
- the server collects when it lets a session go (:func:`release`).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

_resuming = False  # whether the outermost pause in progress turns the collector back on when it ends


class collection_paused:
    """The collector off while a parse, a load or an evaluation runs: the tens of thousands of
    long-lived objects it builds would otherwise be scanned again and again (half the load's
    time; 10 of the 17 s of a 12 MB parse). Pauses nest; the outermost turns the collector back
    on if it was on, and one it was off for leaves it off. A class, not a generator: a cast
    enters a pause some twenty times."""

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        global _resuming
        self.enabled = gc.isenabled()
        gc.disable()
        _resuming = _resuming or self.enabled

    def __exit__(self, *exc) -> None:
        global _resuming
        if self.enabled:
            _resuming = False
            gc.enable()


def collected_young() -> bool:
    """Inside a pause: collect the youngest generation now if the collector, once the pause ends,
    would collect it at the next allocation (it is on, and more objects were made than its
    threshold); whether it did. What the pause made and kept is then untracked where the collector
    can untrack it (tuples of strings and numbers), so that a dict built of it after is untracked too."""
    threshold = gc.get_threshold()[0]
    if not (_resuming and threshold and gc.get_count()[0] > threshold):
        return False
    gc.collect(0)
    return True


@contextmanager
def command(library: bool) -> Iterator[bool]:
    """One ``liuren`` command: the collector off until its school is loaded (:func:`loaded` turns it
    on); yields whether what the command loads may be frozen. The program itself (``library``
    false) freezes and keeps it so to the end of the process, so that not even the collections at
    exit scan it (thawed, a one-chart command took a third more CPU time). A library caller (a
    test, a notebook) finds the collector as it was on return, enabled or not: what the command
    froze is thawed, and it freezes only when the caller had nothing frozen, whose own frozen
    objects stay frozen."""
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    freeze = not (library and frozen)
    gc.disable()
    try:
        yield freeze
    finally:
        if library:
            if freeze:
                gc.unfreeze()
            (gc.enable if enabled else gc.disable)()


def loaded(freeze: bool) -> None:
    """The command's school is loaded: what it built is frozen (``freeze``: the command keeps it to
    its end, no collection need scan it), and the collector is on."""
    if freeze:
        gc.freeze()
    gc.enable()


def cast(freeze: bool) -> None:
    """A one-chart command cast its chart: the batch, and the rules its evaluation prepared, are
    kept to the end too, so they are frozen (``freeze``; teach: 1,253 → 1,227 M instructions)."""
    if freeze:
        gc.freeze()


def keep_to_the_end() -> None:
    """What the command casts from here is kept until it ends (the table, a table audit): the
    collector, which would scan the batch's tuples again and again and find no cycle, waits
    (a table audit in process: 1.9–2.4 s CPU so, 2.5–3.2 s with it). :func:`command` restores it
    for a library caller."""
    gc.disable()


def live_on() -> None:
    """The command is a server, which lives on and lets sessions go: the collector is on."""
    gc.enable()


def release() -> None:
    """A session was let go: collect now, so that its cycles are freed before the next one loads
    rather than beside it."""
    gc.collect()
