"""The operations a body is made of (:class:`~liuren_logic.datalog.evaluate._Body`), one class each
(a segment's, of the segments pass, is :class:`~liuren_logic.datalog.passes.segments.Segment`).

An operation takes a list of bindings (tuples of the values bound so far, in the order the body
binds its variables) and gives the bindings that extend them, in order, each by appending to a
binding (never changing it). Each loop over the bindings runs in C (``map``, ``compress``, a
comprehension), not a Python call per binding. A step that can grow the bindings counts what it
would build first, and where they would take more memory than the store's ``budget`` (bytes,
estimated as CPython lays tuples out) raises :class:`BindingLimit`.

The store is :class:`~liuren_logic.datalog.store.Store`: ``rows(pred)`` (a relation's rows as dict
keys) and ``table(spec)`` (rows keyed by the values at some positions, :meth:`Store.table`).
"""
from __future__ import annotations

import re
from itertools import compress, repeat
from operator import itemgetter, not_
from typing import Callable, Collection, Optional

TUPLE_BYTES, VALUE_BYTES = 64, 8  # a binding's tuple header and list slot; a reference a value (64-bit CPython)


def key_function(slots: tuple) -> Callable[[tuple], object]:
    """Reads an index key from a binding, shaped as :meth:`~liuren_logic.datalog.store.Store.index`
    keys its rows: the value itself for one slot, a tuple for several, () for none."""
    if not slots:
        return lambda binding: ()
    return itemgetter(*slots)


class BindingLimit(Exception):
    """A step of a body would build more bindings than the store's budget (the rule is named by the caller)."""


class Operation:
    """One literal (or a segment's run of literals) of a body, as a step over bindings."""

    kind = ""  # what the operation does, for a reader (tests, a profile)
    spec: Optional[tuple] = None  # an atom's table (Store.table), which a join-order move may spare
    adds = 0  # how many values it appends to a binding

    def __init__(self, literal):
        self.literal = literal

    def apply(self, bindings: Collection, store, values: dict, delta) -> Collection:
        """The bindings that extend ``bindings``; ``values``: each aggregate's group → value table by
        its helper's name; ``delta``: the last round's new tuples (semi-naive)."""
        raise NotImplementedError

    def weight(self, size: int, bindings: Collection) -> int:
        """The bytes ``size`` bindings extending these would take."""
        return size * (TUPLE_BYTES + VALUE_BYTES * (len(next(iter(bindings))) + self.adds))

    def within(self, size: int, bindings: Collection, store) -> None:
        """Stop with :class:`BindingLimit` if ``size`` bindings extending these would take more than the budget."""
        if size and self.weight(size, bindings) > store.budget:
            literal = re.sub(r"_\d+·", "_", str(self.literal))  # as written
            raise BindingLimit(f"{literal} would make {size} bindings of {len(next(iter(bindings))) + self.adds} "
                               f"values (about {self.weight(size, bindings) / 1e6:,.6g} MB), past the limit of "
                               f"{store.budget / 1e6:,.6g} MB for one step of a body")


class _AtomOperation(Operation):
    """An operation reading one relation: from the store, or from the last round's new tuples."""

    def __init__(self, literal, pred: str, spec: tuple, key: Callable, from_delta: bool = False):
        super().__init__(literal)
        self.pred, self.spec, self.key, self.from_delta = pred, spec, key, from_delta
        self.adds = len(literal.args) if spec[3] is None else len(spec[3])  # a scan's whole row, or its outputs

    def source(self, store, delta):
        return delta if self.from_delta else store


class Scan(_AtomOperation):
    """An atom of new variables only: each binding extended by every row of the relation itself
    (no copy: the first scan's bindings are the relation's own rows)."""

    kind = "scan"

    def apply(self, bindings, store, values, delta):
        rows = self.source(store, delta).rows(self.pred)
        if bindings == [()]:
            return rows  # the relation's set itself: bindings are read, never changed
        self.within(len(bindings) * len(rows), bindings, store)
        return [b + t for b in bindings for t in rows]


class Member(_AtomOperation):
    """An atom every argument of which is bound or a constant: the bindings whose row the relation
    holds (``key`` gives the rows a list of bindings asks)."""

    kind = "member"

    def apply(self, bindings, store, values, delta):
        rows = self.source(store, delta).rows(self.pred)
        return list(compress(bindings, map(rows.__contains__, self.key(bindings))))


class Absent(_AtomOperation):
    """A negation every argument of which is bound or a constant: the bindings whose row the
    relation does not hold."""

    kind = "absent"

    def apply(self, bindings, store, values, delta):
        rows = store.rows(self.pred)
        return list(compress(bindings, map(not_, map(rows.__contains__, self.key(bindings)))))


class Join(_AtomOperation):
    """An atom that binds new variables: each binding extended by the values each row holding its
    key adds, through a hash index on the bound positions (a table of one tail a key is read
    without a loop per tail)."""

    kind = "join"

    def apply(self, bindings, store, values, delta):
        source = self.source(store, delta)
        table, one = source.table(self.spec)
        if not self.spec[1]:  # no bound position: every row's tail
            tails = table.get((), ())
            if bindings == [()]:
                return tails
            self.within(len(bindings) * len(tails), bindings, store)
            return [b + t for b in bindings for t in tails]
        key = self.key
        if one:  # a key per row: at most one tail a binding
            return [b + t for b, t in zip(bindings, map(table.get, map(key, bindings))) if t is not None]
        if self.weight(len(bindings) * len(source.rows(self.pred)), bindings) > store.budget:  # may be past it
            self.within(sum(map(len, map(table.get, map(key, bindings), repeat(())))), bindings, store)
        return [b + t for b, tails in zip(bindings, map(table.get, map(key, bindings), repeat(()))) for t in tails]


class SemiJoin(_AtomOperation):
    """An atom that binds nothing new but repeats or skips a variable: the bindings whose key the
    relation's table holds."""

    kind = "semijoin"

    def apply(self, bindings, store, values, delta):
        table, _ = self.source(store, delta).table(self.spec)
        return list(compress(bindings, map(table.__contains__, map(self.key, bindings))))


class Not(_AtomOperation):
    """A negation with a variable repeated only inside it ('for no value'): the bindings whose key
    the relation's table does not hold."""

    kind = "not"

    def apply(self, bindings, store, values, delta):
        table, _ = store.table(self.spec)
        return list(compress(bindings, map(not_, map(table.__contains__, map(self.key, bindings)))))


class Assign(Operation):
    """``X = expr``: each binding extended by the value, computed once per distinct case (``computed``
    gives each binding's key and each key's value); a binding without one is dropped."""

    kind = "assign"

    def __init__(self, literal, computed: Callable):
        super().__init__(literal)
        self.computed = computed

    def apply(self, bindings, store, values, delta):
        keys, computed = self.computed(bindings)
        return [b + (v,) for b, v in zip(bindings, map(computed.__getitem__, keys)) if v is not None]


class Test(Operation):
    """A comparison of bound terms: the bindings it holds for, tested once per distinct case."""

    kind = "test"

    def __init__(self, literal, passed: Callable):
        super().__init__(literal)
        self.passed = passed

    def apply(self, bindings, store, values, delta):
        keys, passed = self.passed(bindings)
        return list(compress(bindings, map(passed.__getitem__, keys)))


class Aggregate(Operation):
    """An aggregate's value for the binding's group, read from ``values``: appended, or, when its
    result is bound already, compared (a count of an empty group is 0; the others have none)."""

    kind = "aggregate"

    def __init__(self, literal, helper: str, count: bool, group: Callable, bound_slot: Optional[int]):
        super().__init__(literal)
        self.helper, self.count, self.group, self.bound_slot = helper, count, group, bound_slot

    def apply(self, bindings, store, values, delta):
        table, empty, slot = values[self.helper], 0 if self.count else None, self.bound_slot
        out = []
        for binding in bindings:
            value = table.get(self.group(binding), empty)
            if value is None:
                continue
            if slot is None:
                out.append(binding + (value,))
            elif binding[slot] == value:
                out.append(binding)
        return out
