"""The ``delta_first`` pass: a round of a recursive stratum starts a body from the last round's new
tuples where they are few, each atom after joined to those before it (:func:`read_first`, which
the pyDatalog backend's delta fire relations read in too). A body in the rule's own order binds
every row of its first atom's relation before it reaches the new tuples (the chain
``t(X, Z) :- e(X, Y), t(Y, Z), s(Y)`` joins e and t whole each round for a few new s); started
from them, a round costs about what it adds. Without the pass every round reads its bodies in the
rule's own order (:class:`OwnOrder`)."""
from __future__ import annotations

from .. import syntax as S
from ..schedule import binds, schedule
from . import SMALLER, Passes


def read_first(body, k: int) -> tuple[S.Literal, ...]:
    """A body scheduled to read its ``k``-th literal (an atom: a recursive relation's new tuples,
    in a round of semi-naive evaluation) first, always at position 0, then its other atoms, each
    sharing a variable with those before it where one does (the first in the body's order; else
    the next), and its filters after the atoms that bind their variables. No atom read early
    multiplies the bindings by all its rows while a joined one waits: :func:`schedule` alone reads
    ``r_load`` of hmmer's ``r_is_ptr(D, O) :- r_load(D, A), r_is_ptr(A, P), r_memory(P, O)`` right
    after the new ``r_memory`` (8.6 million bindings in one step, past the bottom-up engine's budget)."""
    first = body[k]
    atoms = [literal for at, literal in enumerate(body) if at != k and isinstance(literal, S.Atom)]
    order, bound = [], binds(first, set())
    while atoms:
        atom = next((atom for atom in atoms if binds(atom, set()) & bound), atoms[0])
        atoms.remove(atom)
        order.append(atom)
        bound |= binds(atom, set())
    filters = [literal for literal in body if not isinstance(literal, S.Atom)]
    return (first,) + schedule(order + filters, binds(first, set()))



class OwnOrder:
    """Without the pass: a round reads each body in the rule's own order."""

    def bodies(self, rule, store, changes) -> list[tuple]:
        """The bodies a round after the first fires (one for each atom of the stratum, that atom
        read from ``changes``, the new tuples of the round before: a store, as ``store`` is), each
        with its heads reader."""
        return [own for _, *own in rule.deltas]


class DeltaFirst(OwnOrder):
    """The pass: where the new tuples are ``SMALLER`` times fewer than the rows of the first atom's
    relation (which the rule's own order binds first), the body starts from them instead; where
    they are many, it keeps its own order, whose filters come early."""

    def __init__(self):
        self._firsts: dict[int, tuple] = {}  # delta position → its body read first, heads reader

    def bodies(self, rule, store, changes) -> list[tuple]:
        body = rule.compiled.body
        lead = next((k for k, literal in enumerate(body) if isinstance(literal, S.Atom)), 0)
        rows = len(store.rows(body[lead].pred))  # the rows the rule's own order binds first
        return [self._first(rule, k) if k != lead and SMALLER * len(changes.rows(body[k].pred)) < rows
                else own for k, *own in rule.deltas]

    def _first(self, rule, k: int) -> tuple:
        """The body that reads its ``k``-th literal first (position 0), from the new tuples, and its
        heads reader."""
        if k not in self._firsts:
            self._firsts[k] = rule.prepared(read_first(rule.compiled.body, k), delta=0)
        return self._firsts[k]


OWN_ORDER = OwnOrder()


def rounds(passes: Passes) -> OwnOrder:
    """A rule's hook choosing how a round reads its bodies: a :class:`DeltaFirst` of its own with the
    pass, else in their own order."""
    return DeltaFirst() if passes.delta_first else OWN_ORDER
