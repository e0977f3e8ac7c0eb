"""The optimisations of the bottom-up engine (:mod:`~liuren_logic.datalog.evaluate`), one module each,
each of which can be switched off.

None changes an answer or a derivation, only what it costs; ``tests/test_passes.py`` checks that on
the KB, the conformance cases and random programs, all on against all off and each alone off on a
program where it changes the work done. With every pass off, the engine is its plain core: a store
of relations with their hash indexes, a body's literals as operations over bindings, and strata
evaluated lowest first, a recursive one semi-naively.

The core reads no switch: each pass module makes, from :class:`Passes`, the hook the core calls
(what it does with the pass on, or the plain step without it).

- :mod:`.segments`: a run of chart-independent literals after a chart's atom is one operation,
  run once per distinct start;
- :mod:`.memo`: a segment keeps its starts' tails for every later batch;
- :mod:`.join_order`: a rule outside recursion is derived in the join order its relations' sizes
  suit, in a batch of at least ``PLAN_FROM`` charts;
- :mod:`.delta_first`: a round starts a body from its new tuples where they are few;
- :mod:`.collector`: the collector waits while a batch evaluates, its relations are settled after,
  and a batch that plans drops the tables no stratum left reads.
"""
from __future__ import annotations

from dataclasses import dataclass

SMALLER = 5  # how many times the rows of the smaller relation the larger has, for reading the smaller first
# to pay (join_order's moves, delta_first's rounds)


@dataclass(frozen=True)
class Passes:
    """Which optimisations an evaluation makes (all by default)."""

    segments: bool = True  # a run of chart-independent literals is one operation, run once per distinct start
    memo: bool = True  # a segment keeps the tails of the starts it has seen, for every batch of the program
    join_order: bool = True  # a rule outside recursion is derived in the join order its relations' sizes suit
    delta_first: bool = True  # a round's body starts from the last round's new tuples where they are few
    collector: bool = True  # the collector waits while a batch evaluates; relations are then settled, and
    # a batch that plans drops the tables no stratum left reads


ALL = Passes()
NONE = Passes(segments=False, memo=False, join_order=False, delta_first=False, collector=False)
