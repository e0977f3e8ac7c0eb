"""The ``segments`` pass: a run of literals that read only chart-independent relations, after an atom
of a chart's relation, is one operation of a body (:class:`Segment`). Its own body, run once over
the distinct values it reads from the bindings (its starts), gives each start the values it
appends (its tails), which are then joined to every binding holding that start. The bindings are
those the literals one by one would give, in the same order; a chart's binding is not carried
through each static table. Without the pass every literal is its own operation."""
from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import Sequence

from .. import syntax as S
from ..operations import Operation, key_function
from . import NONE, Passes, memo


class Segment(Operation):
    """A run of literals over chart-independent relations (:func:`runs`): its own body (``inner``)
    run once over the distinct starts the bindings bring (their values of the ``width`` variables it
    reads, as ``key`` reads them), each binding then extended by its start's tails. ``memo`` holds
    the tails of earlier runs (:mod:`.memo`)."""

    kind = "segment"

    def __init__(self, literal, inner, key, width: int, kept: "memo.Memo | memo.Unmemoised"):
        super().__init__(literal)
        self.inner, self.key, self.width, self.memo = inner, key, width, kept
        self.adds = len(inner.slots) - width

    def apply(self, bindings, store, values, delta):
        keys = list(map(self.key, bindings))
        table, width = self.memo.of(store), self.width
        starts = [start for start in dict.fromkeys(keys) if start not in table]
        if starts:
            found = self.inner.extend(starts if width > 1 else list(zip(starts)) if width else [()], store, values)
            table = table.joined(_by_start(found, width, starts))
        self.within(sum(map(len, map(table.__getitem__, keys))), bindings, store)
        return [b + t for b, found in zip(bindings, map(table.__getitem__, keys)) for t in found]


def _by_start(found, width: int, starts: list) -> dict:
    """A segment's complete bindings (each one of ``starts``, its first ``width`` values as a key
    reads them, then what the segment binds) as each start's tails, in a tuple (``()`` for a start
    with none): the bindings of a start come together, in the order of ``starts``."""
    if not width:
        return {(): tuple(found)}
    cut = itemgetter(0) if width == 1 else itemgetter(slice(0, width))
    rest = list(map(itemgetter(slice(width, None)), found))
    counts = Counter(map(cut, found))
    table, at = {}, 0
    for start in starts:
        n = counts.get(start, 0)
        table[start] = tuple(rest[at:at + n])
        at += n
    return table


def runs(body: Sequence, fixed: frozenset) -> dict[int, int]:
    """The segments of a body, start → end: each maximal run, after an atom of a chart's relation
    (not ``fixed``: the bindings are then many), of two or more literals that read only ``fixed``
    relations (atoms, negations, comparisons), one atom among them."""
    chart = next((k for k, literal in enumerate(body) if isinstance(literal, S.Atom) and literal.pred not in fixed),
                 len(body))
    ends, start = {}, None
    for position in range(chart + 1, len(body) + 1) if chart + 2 < len(body) else ():
        literal = body[position] if position < len(body) else None
        if isinstance(literal, S.Comparison) or isinstance(literal, (S.Atom, S.Negation)) and \
                (literal if isinstance(literal, S.Atom) else literal.atom).pred in fixed:
            start = position if start is None else start
            continue
        if start is not None and position - start > 1 and any(isinstance(body[k], S.Atom) for k in range(start, position)):
            ends[start] = position
        start = None
    return ends


class Segments:
    """A rule's segments, the hook a body (:class:`~liuren_logic.datalog.evaluate._Body`) is prepared
    with: where they are (:meth:`runs`; none without the pass) and the operation each is."""

    def __init__(self, fixed: frozenset, passes: Passes):
        self.fixed = fixed if passes.segments else frozenset()  # the relations a segment may read
        self.passes = passes

    def runs(self, body: Sequence) -> dict[int, int]:
        """The segments of a body, start → end (:func:`runs`)."""
        return runs(body, self.fixed)

    def operation(self, part: Sequence, outer, bound: frozenset) -> Segment:
        """The segment of these literals of the body ``outer``, after the variables ``bound``: its own
        body, bound first in the variables it reads of those (in slot order), and the key reading
        their values from a binding."""
        slots = outer.slots
        names = sorted({v.name for literal in part for v in S.literal_variables(literal)} & bound,
                       key=slots.__getitem__)
        inner = type(outer)(part, {}, given=names)
        return Segment(part[0], inner, key_function(tuple(slots[n] for n in names)), len(names),
                       memo.tails(self.passes))


NOWHERE = Segments(frozenset(), NONE)  # a body prepared without segments (a segment's own, a test's)
