"""The ``memo`` pass: a segment (:mod:`.segments`) reads only chart-independent relations, so the
tails it finds for a start serve every later batch of the program; it keeps them, up to
``SEGMENT_MEMO`` starts. Without the pass a segment computes each run's starts afresh."""
from __future__ import annotations

from . import Passes

SEGMENT_MEMO = 4096  # starts a segment keeps the tails of, for every batch of the program: the most
# measured is 660 (a pattern rule, after the 720 day charts and a year of dated charts every 3 hours)


class Unkept(dict):
    """A segment's tails without the memo pass: none from an earlier run."""

    __slots__ = ()

    def joined(self, tails: dict) -> dict:
        """The tails a run reads: those it found (``tails``, each new start's)."""
        return tails


class Kept(Unkept):
    """The memo pass: each start's tails found by earlier runs, for every later one."""

    __slots__ = ()

    def joined(self, tails: dict) -> dict:
        """The tails a run reads: the kept ones and those it found, kept too while the memo has room
        for them (``SEGMENT_MEMO``), else in a dict of the run's own."""
        if len(self) + len(tails) <= SEGMENT_MEMO:
            self.update(tails)
            return self
        return {**self, **tails}


def tails(passes: Passes) -> Unkept:
    """A new segment's tails: kept with the memo pass, not without."""
    return Kept() if passes.memo else Unkept()
