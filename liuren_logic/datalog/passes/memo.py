"""The ``memo`` pass: a segment (:mod:`.segments`) reads only chart-independent relations, so the
tails it finds for a start serve every later batch of the program; it keeps them, up to
``SEGMENT_MEMO`` starts. Without the pass a segment computes each run's starts afresh."""
from __future__ import annotations

from weakref import WeakKeyDictionary

from . import Passes

SEGMENT_MEMO = 4096  # starts a segment keeps the tails of, for every batch of the program: the most
# measured is 660 (a pattern rule, after the 720 day charts and a year of dated charts every 3 hours)


class Unkept(dict):
    """A run's own tails: none from an earlier run, none kept for a later one."""

    __slots__ = ()

    def joined(self, tails: dict) -> dict:
        """The tails a run reads: those it found (``tails``, each new start's)."""
        return tails


class Table(Unkept):
    """The tails kept for one store of chart-independent relations."""

    __slots__ = ()

    def joined(self, tails: dict) -> dict:
        """The tails a run reads: the kept ones and those it found, kept too while the memo has room
        for them (``SEGMENT_MEMO``), else in a dict of the run's own."""
        if len(self) + len(tails) <= SEGMENT_MEMO:
            self.update(tails)
            return self
        return {**self, **tails}


class Unmemoised:
    """A segment's tails without the memo pass: each run its own."""

    def of(self, store) -> Unkept:
        """The tails a run on ``store`` starts from: none."""
        return Unkept()


class Memo:
    """The memo pass: each start's tails found by earlier runs, for every later one on the same
    chart-independent relations. They are kept per root store (the program's base, which every
    batch of its charts sits on): a rule prepared once may serve two schools whose
    chart-independent relations differ (schools one reading apart share the rules they decode the
    same, docs/engine.md), and one school's tails must not answer the other's."""

    def __init__(self):
        self._by_root: "WeakKeyDictionary[object, Table]" = WeakKeyDictionary()

    def of(self, store) -> Table:
        """The tails kept for the root of ``store`` (its parent's parent …)."""
        while store.parent is not None:
            store = store.parent
        table = self._by_root.get(store)
        if table is None:
            table = self._by_root[store] = Table()
        return table


def tails(passes: Passes) -> "Memo | Unmemoised":
    """A new segment's tails: kept with the memo pass, not without."""
    return Memo() if passes.memo else Unmemoised()
