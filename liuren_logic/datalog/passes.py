"""The optimisations of the bottom-up engine (:mod:`~liuren_logic.datalog.evaluate`), each of which can be
switched off.

None changes an answer or a derivation, only what it costs; ``tests/test_passes.py`` checks that on
the KB, the conformance cases and random programs. With every pass off, the engine is its plain
core: a store of relations with their hash indexes, a body's literals as operations over bindings,
and strata evaluated lowest first, a recursive one semi-naively.
"""
from __future__ import annotations

from dataclasses import dataclass


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
