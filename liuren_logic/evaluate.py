"""Bottom-up evaluation of the compiled rules: every relation and every firing, at once.

pyDatalog answers one query at a time, top-down, recomputing what it needs each time;
that is what ad-hoc questions want. Casting charts wants the opposite: every conclusion
of a batch of charts. :class:`Materialisation` evaluates the same compiled plans
(:func:`liuren_logic.compiler.plan`) stratum by stratum, recording each rule's fire
tuples, so a chart's conclusions and its derivations are lookups. It answers the same
``query`` calls as :class:`~liuren_logic.engine.KnowledgeBase` (fire and aggregate helper
relations included), so the explainer works over either; the tests check that both
engines agree.

Each body literal is prepared once as an operation over a binding (a list of values in
the order the body binds its variables): a join through a hash index, a negation (an
index probe), an assignment or test (a closure built from the syntax tree, no ``eval``),
or an aggregate lookup. Values mean what :mod:`~liuren_logic.semantics` says.

A recursive stratum is evaluated semi-naively: after a first full round, each round
fires only the bodies that read one of the last round's new tuples. Every evaluation is
bounded by :class:`Limits` (rows added, rounds of a recursive stratum; numbers by
:data:`~liuren_logic.semantics.INTEGER_BITS`); going past one is an
:class:`EvaluationLimit` naming the rule and the relation that grew.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from operator import itemgetter
from typing import Callable, Iterable, Optional, Sequence

from . import syntax as S
from .compiler import CompiledAggregate, CompiledRule, binds
from .engine import KnowledgeBase, Pattern, Value
from .semantics import EvaluationLimit, IntegerLimit, aggregate, arithmetic, compare, sort_key


@dataclass(frozen=True)
class Limits:
    """How much one evaluation may do before it stops with :class:`EvaluationLimit`."""

    tuples: int = 5_000_000  # rows added to the store (relations, fire and helper relations)
    rounds: int = 10_000  # rounds of one recursive stratum



class _Store:
    """Relations as sets of tuples, with hash indexes built on demand per bound-position pattern.

    A store may sit on a parent (the chart-independent relations): it reads what it does
    not hold from the parent and writes only to itself, copying a parent relation first.
    """

    def __init__(self, parent: "_Store | None" = None):
        self.parent = parent
        self.relations: dict[str, set] = {}
        self._indexes: dict[tuple, dict] = {}

    def rows(self, pred: str) -> set:
        if pred in self.relations:
            return self.relations[pred]
        return self.parent.rows(pred) if self.parent else set()

    def add(self, pred: str, rows: Iterable[tuple]) -> int:
        """Add rows to a relation; how many were new."""
        if pred not in self.relations:
            self.relations[pred] = set(self.parent.rows(pred)) if self.parent else set()
        relation = self.relations[pred]
        before = len(relation)
        relation.update(rows)
        grew = len(relation) - before
        if grew:
            for key in [k for k in self._indexes if k[0] == pred]:
                del self._indexes[key]
        return grew

    def index(self, pred: str, positions: tuple, consts: tuple = ()) -> dict:
        """Rows that hold the constants ``consts`` ((position, value)…), keyed by the values at
        ``positions``: the value itself for one position, a tuple for several, () for none."""
        if pred not in self.relations and self.parent is not None:
            return self.parent.index(pred, positions, consts)
        key = (pred, positions, consts)
        if key not in self._indexes:
            if consts:  # the rows with these constants, through an index on their positions
                where = tuple(p for p, _ in consts)
                values = consts[0][1] if len(consts) == 1 else tuple(v for _, v in consts)
                rows = self.index(pred, where).get(values, ())
            else:
                rows = self.rows(pred)
            table = defaultdict(list)
            if positions:
                get = itemgetter(*positions)
                for row in rows:
                    table[get(row)].append(row)
            else:
                table[()] = list(rows)
            self._indexes[key] = table
        return self._indexes[key]

    def match(self, pred: str, pattern: Sequence[Optional[Value]]) -> list:
        positions = tuple(i for i, v in enumerate(pattern) if v is not None)
        if not positions:
            return list(self.rows(pred))
        key = pattern[positions[0]] if len(positions) == 1 else tuple(pattern[p] for p in positions)
        return self.index(pred, positions).get(key, [])


def _key_function(slots: tuple) -> Callable[[list], object]:
    """Reads an index key from a binding, shaped as :meth:`_Store.index` keys its rows."""
    if not slots:
        return lambda binding: ()
    return itemgetter(*slots)


def _term_function(term, slots: dict[str, int]) -> Callable[[list], Value]:
    """A closure computing a term from a binding; ``None`` when arithmetic meets a non-number."""
    if isinstance(term, S.Const):
        value = term.value
        return lambda binding: value
    if isinstance(term, S.Var):
        slot = slots[term.name]
        return lambda binding: binding[slot]
    left, right, op = _term_function(term.left, slots), _term_function(term.right, slots), term.op
    return lambda binding: arithmetic(op, left(binding), right(binding))


class _Body:
    """A scheduled body prepared as operations; ``run`` gives every complete binding.

    A binding is a tuple of the values bound so far, in the order the body binds its
    variables (an atom binds its new variables left to right), so each operation only
    appends to it: ``slots`` maps a variable to its place.
    """

    def __init__(self, body: Sequence, aggregates: dict, delta: Optional[int] = None):
        self.slots: dict[str, int] = {}
        self.delta = delta  # the body position that reads the last round's new tuples (semi-naive)
        self.aggregates = aggregates
        self.ops = []
        bound: set[str] = set()
        for position, literal in enumerate(body):
            self.ops.append(self._prepare(literal, bound, position == delta))
            for name in _in_order(literal, binds(literal, bound) - bound):
                self.slots[name] = len(self.slots)
            bound |= binds(literal, bound)

    def _probe(self, args, bound: set[str]) -> tuple[tuple, tuple, tuple]:
        """What is known of an atom before it is matched: its constants ((position, value)…),
        the positions of its bound variables, and the binding slots they come from."""
        consts, positions, slots = [], [], []
        for position, arg in enumerate(args):
            if isinstance(arg, S.Const):
                consts.append((position, arg.value))
            elif arg.name in bound:
                positions.append(position)
                slots.append(self.slots[arg.name])
        return tuple(consts), tuple(positions), tuple(slots)

    def _prepare(self, literal, bound: set[str], delta: bool):
        slots = self.slots
        if isinstance(literal, S.Atom):
            consts, positions, key_slots = self._probe(literal.args, bound)
            outputs, checks = _unbound(literal.args, positions + tuple(p for p, _ in consts))
            return ("atom", literal.pred, positions, consts, _key_function(key_slots), _row_reader(outputs),
                    checks, delta)
        if isinstance(literal, S.Negation):  # a variable repeated only inside it: 'for no value'
            consts, positions, key_slots = self._probe(literal.atom.args, bound)
            _, checks = _unbound(literal.atom.args, positions + tuple(p for p, _ in consts))
            return ("not", literal.atom.pred, positions, consts, _key_function(key_slots), checks)
        if isinstance(literal, S.Comparison):
            target = S.assignment_target(literal, bound)
            if target is not None:
                expr = literal.right if isinstance(literal.left, S.Var) and literal.left.name == target else literal.left
                return ("assign", _term_function(expr, slots))
            return ("test", partial(compare, literal.op), _term_function(literal.left, slots),
                    _term_function(literal.right, slots))
        agg = self.aggregates[literal]
        result = literal.result.name
        bound_slot = slots[result] if result in bound else None
        return ("aggregate", agg, _key_function(tuple(slots[n] for n in agg.group)), bound_slot)

    def run(self, store: _Store, values: dict, delta: "_Store | None" = None) -> list[tuple]:
        """All complete bindings; ``values`` maps an aggregate to its group → value table, and
        the atom at position ``self.delta`` reads the ``delta`` store."""
        bindings: list[tuple] = [()]
        for op in self.ops:
            kind = op[0]
            if kind == "atom":
                _, pred, positions, consts, key, read, checks, from_delta = op
                table = (delta if from_delta else store).index(pred, positions, consts)
                out = []
                for binding in bindings:
                    for row in table.get(key(binding), ()):
                        if not checks or all(row[p] == row[q] for p, q in checks):
                            out.append(binding + read(row))
            elif kind == "not":
                _, pred, positions, consts, key, checks = op
                table = store.index(pred, positions, consts)
                if checks:
                    out = [b for b in bindings
                           if not any(all(row[p] == row[q] for p, q in checks) for row in table.get(key(b), ()))]
                else:
                    out = [b for b in bindings if not table.get(key(b))]
            elif kind == "assign":
                compute = op[1]
                out = [b + (v,) for b in bindings if (v := compute(b)) is not None]
            elif kind == "test":
                _, compare, left, right = op
                out = [b for b in bindings if (x := left(b)) is not None and (y := right(b)) is not None
                       and compare(x, y)]
            else:
                _, agg, group, bound_slot = op
                table, count = values[agg], agg.literal.func == "count"
                out = []
                for binding in bindings:
                    value = table.get(group(binding), 0 if count else None)
                    if value is None:
                        continue
                    if bound_slot is None:
                        out.append(binding + (value,))
                    elif binding[bound_slot] == value:
                        out.append(binding)
            bindings = out
            if not bindings:
                break
        return bindings


def _unbound(args, known: tuple) -> tuple[list[int], tuple]:
    """Of an atom's positions not known before it is matched: those that bind a variable first,
    and (position, first position) pairs where a variable repeats and the row must agree."""
    outputs, checks, first = [], [], {}
    for position, arg in enumerate(args):
        if position in known:
            continue
        if arg.name in first:
            checks.append((position, first[arg.name]))
        else:
            first[arg.name] = position
            outputs.append(position)
    return outputs, tuple(checks)


def _in_order(literal, names: set[str]) -> list[str]:
    """The variables a literal binds, in the order it binds them (an atom: left to right)."""
    if isinstance(literal, S.Atom):
        order = [v.name for v in S.atom_variables(literal)]
        return sorted(names, key=order.index)
    return sorted(names)


def _row_reader(positions: list[int]) -> Callable[[tuple], tuple]:
    """The values an atom's row adds to a binding, as a tuple."""
    if not positions:
        return lambda row: ()
    if len(positions) == 1:
        position = positions[0]
        return lambda row: (row[position],)
    return itemgetter(*positions)


def _row_function(args, slots: dict[str, int]) -> Callable[[tuple], tuple]:
    """Builds a head tuple from a fire tuple: variables by slot, constants appended once."""
    constants = tuple(a.value for a in args if isinstance(a, S.Const))
    width = len(slots)
    picks, k = [], 0
    for arg in args:
        if isinstance(arg, S.Const):
            picks.append(width + k)
            k += 1
        else:
            picks.append(slots[arg.name])
    get = itemgetter(*picks)
    if len(picks) == 1:
        return (lambda fire: (get(fire + constants),)) if constants else (lambda fire: (fire[picks[0]],))
    return (lambda fire: get(fire + constants)) if constants else get


def _group_key(group: tuple):
    """A group as :func:`_key_function` reads it from a binding: a value, a tuple, or ()."""
    return group[0] if len(group) == 1 else group


class _Rule:
    """A compiled rule prepared for bottom-up evaluation, with its aggregates.

    In a recursive stratum, ``deltas`` holds one body per atom of the stratum's own
    relations, reading that atom from the last round's new tuples (semi-naive evaluation).
    """

    def __init__(self, compiled: CompiledRule, stratum: frozenset = frozenset()):
        self.compiled = compiled
        self.body = _Body(compiled.body, compiled.aggregates)
        self.deltas = [_Body(compiled.body, compiled.aggregates, k) for k, literal in enumerate(compiled.body)
                       if isinstance(literal, S.Atom) and literal.pred in stratum]
        self.inner = {}
        for agg in compiled.aggregates.values():
            inner = _Body(agg.context + agg.body, {})
            self.inner[agg] = (inner, _row_reader([inner.slots[n] for n in agg.group + agg.inner]))
        self.head = _row_function(compiled.rule.head.args, self.body.slots)

    def aggregates(self, store: _Store) -> tuple[dict, dict]:
        """(helper rows, group → value table) of each aggregate of this rule over the store."""
        helpers = {agg: list(map(reorder, body.run(store, {}))) for agg, (body, reorder) in self.inner.items()}
        values = {}
        for agg, rows in helpers.items():
            groups = defaultdict(set)
            width = len(agg.group)
            term = (agg.group + agg.inner).index(agg.literal.term.name)
            for row in rows:
                groups[row[:width]].add(row[term])
            values[agg] = {_group_key(group): aggregate(agg.literal.func, terms) for group, terms in groups.items()}
        return helpers, values

    def fire(self, body: _Body, store: _Store, values: dict, delta: "_Store | None" = None):
        """(fire tuples, head tuples) of one body of this rule."""
        try:
            fires = body.run(store, values, delta)
        except IntegerLimit as error:
            raise EvaluationLimit(self.compiled.rule, f"{error} (deriving {self.compiled.rule.head.pred})") from None
        return fires, list(map(self.head, fires))


class _Plan:
    """The rules of a knowledge base prepared for evaluation, stratum by stratum (lowest first)."""

    def __init__(self, kb: KnowledgeBase):
        moving = kb.program.moving()
        self.static, self.dynamic = [], []
        for members, recursive in kb.program.strata():
            stratum = frozenset(members) if recursive else frozenset()
            rules = [_Rule(c, stratum) for pred in members for c in kb.rules_for.get(pred, ())]
            if rules:
                (self.dynamic if any(p in moving for p in members) else self.static).append((rules, recursive))


class Materialisation:
    """Every relation, fire relation and aggregate helper of a knowledge base over a set of facts.

    ``Materialisation(kb)`` evaluates the chart-independent part once (or takes it from
    ``static``, a :meth:`static_state` of the same program); ``extend(facts)`` returns a
    materialisation of a batch of charts (their input facts) on top of it.
    """

    def __init__(self, kb: KnowledgeBase, base: "Materialisation | None" = None, limits: Limits = Limits(),
                 static: "dict | None" = None):
        self.kb = kb
        self.program = kb.program
        self.rules_for = kb.rules_for
        self.name = kb.name
        self.school = kb.school
        self.limits = base.limits if base else limits
        self.added = 0
        if base is None:
            self.plan = _Plan(kb)
            self.store = _Store()
            self.origins = {}
            for fact in kb.program.facts:
                args = tuple(a.value for a in fact.head.args)
                if static is None:
                    self.store.add(fact.head.pred, [args])
                self.origins.setdefault((fact.head.pred, args), f"{fact.pos.path}:{fact.pos.line}")
            if static is None:
                self._evaluate(self.plan.static)
            else:
                self.store.relations = {pred: set(rows) for pred, rows in static.items()}
        else:
            self.plan = base.plan
            self.store = _Store(base.store)
            self.origins = dict(base.origins)

    def static_state(self) -> dict:
        """What this materialisation holds of its own, as plain data (relation → rows), for ``static``."""
        return {pred: tuple(rows) for pred, rows in self.store.relations.items()}

    def extend(self, facts: Iterable[tuple[str, Sequence[Value], str]]) -> "Materialisation":
        """A materialisation with these input facts (relation, arguments, origin) added and evaluated."""
        batch = Materialisation(self.kb, base=self)
        for pred, args, origin in facts:
            batch.store.add(pred, [tuple(args)])
            batch.origins[(pred, tuple(args))] = origin
        batch._evaluate(self.plan.dynamic)
        return batch

    def _evaluate(self, strata) -> None:
        for rules, recursive in strata:
            values = {}
            for rule in rules:
                helpers, values[rule] = rule.aggregates(self.store)
                for agg, rows in helpers.items():
                    self._add(rule, agg.helper, rows)
            if not recursive:
                for rule in rules:
                    fires, heads = rule.fire(rule.body, self.store, values[rule])
                    self._add(rule, rule.compiled.fire, fires)
                    self._add(rule, rule.compiled.rule.head.pred, heads)
                continue
            delta = self._round(values, [(rule, rule.body) for rule in rules], None)
            rounds = 1
            while delta:
                rounds += 1
                if rounds > self.limits.rounds:
                    rule, pred = next(iter(delta.values()))[0]
                    raise EvaluationLimit(rule.compiled.rule, f"{pred} keeps growing: no fixpoint after "
                                          f"{self.limits.rounds} rounds of recursion")
                changes = _Store()
                for pred, (_, rows) in delta.items():
                    changes.add(pred, rows)
                delta = self._round(values, [(rule, body) for rule in rules for body in rule.deltas], changes)

    def _round(self, values, bodies, changes) -> dict:
        """Fire the bodies once; the new head tuples by relation, with the first rule that made them."""
        new: dict[str, tuple] = {}
        for rule, body in bodies:
            fires, heads = rule.fire(body, self.store, values[rule], changes)
            self._add(rule, rule.compiled.fire, fires)
            pred = rule.compiled.rule.head.pred
            fresh = set(heads) - self.store.rows(pred)
            if fresh:
                self._add(rule, pred, fresh)
                first, rows = new.get(pred, ((rule, pred), set()))
                new[pred] = (first, rows | fresh)
        return new

    def _add(self, rule: _Rule, pred: str, rows) -> None:
        self.added += self.store.add(pred, rows)
        if self.added > self.limits.tuples:
            raise EvaluationLimit(rule.compiled.rule, f"{pred} grew past the limit of {self.limits.tuples} "
                                  "derived tuples")

    # the query interface the explainer uses ------------------------------------
    def query(self, pred: str, pattern: Pattern) -> list[tuple]:
        rows = set(self.store.match(pred, tuple(pattern)))
        try:
            return sorted(rows)  # a column of one kind sorts as it is
        except TypeError:
            return sorted(rows, key=sort_key)

    def holds(self, pred: str, args: Pattern) -> bool:
        return bool(self.store.match(pred, tuple(args)))

    def is_fact(self, pred: str, args: Sequence[Value]) -> bool:
        return (pred, tuple(args)) in self.origins

    def declared(self, pred: str):
        return self.program.preds.get(pred)

    def aggregate_value(self, agg: CompiledAggregate, group: Sequence[Value]):
        rows = self.store.match(agg.helper, [*group] + [None] * len(agg.inner)) if agg.group else \
            list(self.store.rows(agg.helper))
        if not rows:
            return None
        term = (agg.group + agg.inner).index(agg.literal.term.name)
        return aggregate(agg.literal.func, {row[term] for row in rows})
