"""The ``collector`` pass: Python's cyclic collector waits while a materialisation evaluates (or
groups what it evaluated): the relations and tables it builds make no cycle, and a collection
would only walk them. At a batch's end the young collection that was due runs, and the relations
that grew are rebuilt of their untracked rows (:meth:`~liuren_logic.datalog.store.Store.settle`),
so that later collections do not walk what the batch keeps. A batch that plans its join orders
(:mod:`.join_order`) also drops the tables of the relations no stratum left to evaluate reads, as
soon as the last of them is evaluated (the 720-chart table: 279,833 new tracked objects, not
395,262; a why that reads one builds it again). Without the pass the collector is left as it is
(the plain core knows nothing of it). The package's other decisions about the collector are
:mod:`~liuren_logic.datalog.collector`'s."""
from __future__ import annotations

from collections import Counter
from contextlib import nullcontext
from typing import TYPE_CHECKING, Optional

from ..collector import collected_young, collection_paused
from . import Passes

if TYPE_CHECKING:
    from ..store import Store


class Uncollected:
    """Without the pass: the collector left as it is, and every table kept."""

    def paused(self) -> "collection_paused | nullcontext":
        """What a materialisation evaluates or groups within."""
        return nullcontext()

    def evaluated(self, reads: frozenset) -> None:
        """A stratum that reads these relations is evaluated."""

    def settled(self) -> None:
        """A batch's evaluation ends (inside its pause)."""


class Paused(Uncollected):
    """The pass: the collector paused while a materialisation evaluates, the store settled after."""

    def __init__(self, store: "Store"):
        self.store = store

    def paused(self) -> collection_paused:
        return collection_paused()

    def settled(self) -> None:
        """The young collection that was due runs now, and if it ran, the relations that grew are
        rebuilt of their untracked rows. A collector the caller turned off is left off, and nothing
        is collected."""
        if collected_young():
            self.store.settle()


class Forgetting(Paused):
    """The pass in a batch that plans: as :class:`Paused`, and a relation's tables dropped once no
    stratum left to evaluate reads it (a few charts' tables are small, and a why reads them)."""

    def __init__(self, store: "Store", readers: Counter):
        super().__init__(store)
        self.unread = Counter(readers)  # relation → the strata left to evaluate that read it

    def evaluated(self, reads: frozenset) -> None:
        for pred in reads:
            self.unread[pred] -= 1
            if not self.unread[pred]:
                self.store.forget(pred)


def hook(passes: Passes, store: "Store", readers: Optional[Counter] = None) -> Uncollected:
    """The collector hook of a materialisation's evaluation over ``store``; ``readers``, in a batch
    that plans: each relation → how many of the strata it evaluates read it."""
    if not passes.collector:
        return Uncollected()
    return Paused(store) if readers is None else Forgetting(store, readers)
