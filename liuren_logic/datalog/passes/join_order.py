"""The ``join_order`` pass: a rule outside recursion is derived in the join order the sizes of the
relations it reads suit (:meth:`JoinOrders.planned`; its fire tuples, when a why asks, in its own),
in a batch of at least ``PLAN_FROM`` charts (a few charts' tables cost less than planning would).
The order changes the order of binding, not the firings. Without the pass every rule is derived
in its own order (:func:`own`)."""
from __future__ import annotations

from math import prod
from typing import TYPE_CHECKING, Callable, Optional, Sequence

from .. import syntax as S
from ..schedule import binds, schedule
from . import SMALLER, Passes

if TYPE_CHECKING:
    from ..store import Store

PLAN_FROM = 24  # input rows of one relation (about a chart each) from which a batch plans its join orders


def own(rule, store: "Store") -> tuple:
    """Without the pass: the rule's own body, and its heads reader."""
    return rule.body, rule.heads


def planned(rule, store: "Store") -> tuple:
    """The pass: the body in the join order that suits the sizes of the relations in ``store``
    (:meth:`JoinOrders.planned`), and its heads reader."""
    return rule.join_orders.planned(rule, store)


def ordering(passes: Passes, rows: Optional[int] = None) -> Callable[..., tuple]:
    """How a materialisation derives its rules outside recursion: :func:`planned` with the pass,
    where ``rows`` (the input rows of a batch's largest input relation; none for the
    chart-independent evaluation) reach ``PLAN_FROM``; else :func:`own`."""
    return planned if passes.join_order and (rows is None or rows >= PLAN_FROM) else own


class JoinOrders:
    """A rule's join orders: the moves it may make (:func:`_moves`), and the bodies prepared with
    them, made when first asked (a batch of a few charts never plans)."""

    def __init__(self):
        self._found: Optional[list] = None  # the moves, once found
        self._orders: dict[tuple, tuple] = {}  # moves made → (body, heads reader, literals)

    def moves(self, rule) -> list[tuple]:
        """The moves :func:`_moves` finds in the rule's body (none in recursion)."""
        if self._found is None:
            self._found = [] if rule.stratum else _moves(rule.compiled.body, rule.fixed)
        return self._found

    def planned(self, rule, store: "Store") -> tuple:
        """The body to derive this rule's heads over the store with (its own order, or one with the
        moves that pay for these relations' sizes, :func:`_moves`), and its heads reader. The order
        changes the order of binding, not the firings."""
        made, touched = [], set()
        for move in self.moves(rule):  # in order: a lookup, where it pays, before a smaller table of the same atoms
            places = {*move[1], move[2]}
            if not touched & places and self._pays(rule, move, store):
                made.append(move)
                touched |= places
        made = tuple(made)
        return self.order(rule, made)[:2] if made else (rule.body, rule.heads)

    def order(self, rule, made: tuple) -> tuple:
        """The body with these moves made, its heads reader and its scheduled literals."""
        if made not in self._orders:
            order = list(range(len(rule.compiled.body)))
            for _, moved, before in made:
                for k in moved:
                    order.remove(k)
                at = order.index(before)
                order[at:at] = moved
            literals = schedule([rule.compiled.body[k] for k in order], set())
            self._orders[made] = *rule.prepared(literals), literals
        return self._orders[made]

    def _pays(self, rule, move: tuple, store: "Store") -> bool:
        """Whether a move pays: the table it spares is not built yet, and reading instead costs less.
        A lookup reads the moved atom's rows for each binding that reaches the join, estimated as
        the smallest relation read before it: fewer than the join's rows. The smaller table makes
        each row of the larger relation a probe in Python, which costs about what building a table
        of a key per row in C does (most of a chart's tables): it pays where the larger relation has
        ``SMALLER`` times the rows of the smaller (whose table its rows then share), and that one
        has some. A run first gives at most the product of its atoms' rows: it pays where the
        chart's relation has ``SMALLER`` times that, and the table then built on it holds one value
        a row (the run binds all its variables but one), so that the table costs less than probing
        the run with each of its rows. A probe spares an index of the constants, a pass over every
        row of the relation: it pays where that index is not built yet and the relation has
        ``SMALLER`` times the rows of the one read first."""
        kind, moved, before = move
        body, size = rule.compiled.body, lambda k: len(store.rows(rule.compiled.body[k].pred))
        if kind == "probe":
            where = tuple(k for k, arg in enumerate(body[before].args) if isinstance(arg, S.Const))
            return not store.built((body[before].pred, where)) and SMALLER * size(moved[0]) < size(before)
        if kind == "first":
            atoms = [k for k in moved if isinstance(body[k], S.Atom)]
            if len(_names(body[before]) - set().union(*(_names(body[k]) for k in atoms))) > 1:
                return False
            if len(moved) == 1:  # a probe of one table a row: the table the move needs must be built
                ordered, _, literals = self.order(rule, (move,))
                if not store.built(ordered.operation(ordered.places[literals.index(body[before])]).spec):
                    return False
            return SMALLER * prod(map(size, atoms)) < size(before)
        spared = before if kind == "lookup" else moved[0]
        if store.built(rule.body.operation(rule.body.places[spared]).spec):
            return False
        if kind == "smaller":
            return size(moved[0]) > SMALLER * size(before) > 0
        reaching = min((size(k) for k in range(before) if isinstance(body[k], S.Atom)), default=1)
        return 0 < size(moved[0]) * reaching < size(before)


def _names(atom: S.Atom) -> set[str]:
    """The variables of a compiled atom (whose arguments are variables, each ``_`` named, and constants)."""
    return {arg.name for arg in atom.args if type(arg) is S.Var}


def _moves(body: Sequence, fixed: frozenset) -> list[tuple]:
    """The moves of literals of a scheduled body before a join of a chart's relation that
    :meth:`JoinOrders.planned` may make, as (kind, the moved literals' places, the join's place):

    - ``lookup``: a chart-independent (``fixed``) atom that binds every variable the join adds and
      no other, which makes the join a lookup of a row in the relation;
    - ``smaller``: of two leading atoms of chart relations that share variables, the second
      (without constants: a scan), which makes the first the join, its table built on the other
      relation;
    - ``first``: the run of chart-independent literals right after a leading atom of a chart's
      relation, atoms among them that bind some of its variables, which then makes the atom a join
      on the values the run gives (the run is evaluated once, not for each of the atom's rows);
    - ``probe``: of a leading atom of a chart's relation with constants, a later one without that
      binds all its variables, which makes the leading atom a lookup of a row in its relation (no
      index of its constants over the relation).
    """
    atoms = [k for k, literal in enumerate(body) if isinstance(literal, S.Atom)]
    chart = [k for k in atoms if body[k].pred not in fixed]
    lookups = [k for k in atoms if body[k].pred in fixed]
    if not chart or not lookups and chart[:2] != [0, 1]:
        return []
    names = {k: _names(body[k]) for k in atoms}
    found, bound = [], set()
    for at, literal in enumerate(body):
        if at in chart and names[at] - bound:
            adds = names[at] - bound
            lookup = next((k for k in lookups if k > at and adds <= names[k] <= bound | adds), None)
            if lookup is not None:
                found.append(("lookup", (lookup,), at))
        bound |= names[at] if at in names else binds(literal, bound)
    if chart[:2] == [0, 1] and names[0] & names[1] and names[1] - names[0] and not _constant(body[1]):
        found.append(("smaller", (1,), 0))
    run = _fixed_run(body, fixed)
    if chart[0] == 0 and any(names[k] & names[0] for k in run if k in names):
        found.append(("first", run, 0))
    if chart[0] == 0 and _constant(body[0]):
        later = next((k for k in chart[1:] if not _constant(body[k]) and names[0] <= names[k]), None)
        if later is not None:
            found.append(("probe", (later,), 0))
    return found


def _constant(atom: S.Atom) -> bool:
    return any(isinstance(arg, S.Const) for arg in atom.args)


def _fixed_run(body: Sequence, fixed: frozenset) -> tuple[int, ...]:
    """The places of the literals after the first that read only ``fixed`` relations (atoms,
    negations, comparisons), up to the next literal that does not."""
    run = []
    for k in range(1, len(body)):
        literal = body[k]
        if not (isinstance(literal, S.Comparison) or isinstance(literal, (S.Atom, S.Negation)) and
                (literal if isinstance(literal, S.Atom) else literal.atom).pred in fixed):
            break
        run.append(k)
    return tuple(run)
