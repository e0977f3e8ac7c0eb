"""Bottom-up evaluation of the compiled rules: every relation and every firing, at once.

pyDatalog answers one query at a time, top-down, recomputing what it needs each time;
that is what ad-hoc questions want. Casting charts wants the opposite: every conclusion
of a batch of charts. :class:`Materialisation` evaluates the same compiled plans
(:func:`liuren_logic.datalog.compiler.plan`) stratum by stratum, recording each rule's fire
tuples, so a chart's conclusions and its derivations are lookups. It answers the same
``query`` calls as :class:`~liuren_logic.datalog.pydatalog_backend.KnowledgeBase` (fire and aggregate helper
relations included), so the explainer works over either; the tests check that both
engines agree.

Each body literal is prepared once as an operation over bindings (tuples of values in
the order the body binds its variables; :mod:`~liuren_logic.datalog.operations`, a class each): a join through a hash index, a negation (an
index probe), an assignment or test (a closure built from the syntax tree, no ``eval``),
or an aggregate lookup. Values mean what :mod:`~liuren_logic.datalog.semantics` says. A
constant index holds only the constants the rules ask.

A recursive stratum is evaluated semi-naively: after a first full round, each round fires only
the bodies that read one of the last round's new tuples (:meth:`_Rule.delta_bodies`); its
firings are counted, not kept. Every evaluation is bounded by :class:`Limits` (rows kept, rounds
of a recursive stratum, firings found in recursion; numbers by
:data:`~liuren_logic.datalog.semantics.INTEGER_BITS`); going past one is an
:class:`EvaluationLimit` naming the rule and the relation that grew.

The optimisations are the passes (:mod:`~liuren_logic.datalog.passes`, a module each), which
this core calls through a hook each, made from :class:`~liuren_logic.datalog.passes.Passes`:
a rule's ``split`` (segments, with their memo), a materialisation's ``order`` (join_order),
a rule's ``rounds`` (delta_first) and a materialisation's ``collector``.
"""
from __future__ import annotations

from collections import ChainMap, Counter, defaultdict
from itertools import filterfalse, repeat
from operator import itemgetter
from types import MappingProxyType
from typing import Callable, Collection, Iterable, NamedTuple, Optional, Sequence
from weakref import WeakKeyDictionary, WeakValueDictionary

from . import operations as O
from . import syntax as S
from .compiler import ALL, CompiledAggregate, CompiledRule
from .lazy_dict import LazyDict
from .passes import ALL as ALL_PASSES, Passes, collector, delta_first, join_order, segments
from .program import KnowledgeBase, Pattern, Prepared, Value
from .semantics import EvaluationLimit, IntegerLimit, Limits, aggregate, arithmetic, compare, sort_key
from .store import Store


def _rows_function(args, consts: tuple, slots: tuple) -> Optional[Callable[[list], Iterable[tuple]]]:
    """For an atom whose every argument is a constant or bound, once (not a variable it binds or
    repeats), the rows it asks of a list of bindings, in their order, without a Python call per
    binding: a lookup in the relation itself needs no table, nor an index of its constants. None
    for any other atom, and for one of a single variable (its table is a set of values)."""
    if len(consts) + len(slots) != len(args) or len(args) < 2 and not consts:
        return None
    if not consts:
        get = itemgetter(*slots)
        return lambda bindings: map(get, bindings)
    constant = dict(consts)
    reads = iter(slots)
    columns = [(True, constant[p]) if p in constant else (False, itemgetter(next(reads))) for p in range(len(args))]
    return lambda bindings: zip(*[repeat(x, len(bindings)) if fixed else map(x, bindings) for fixed, x in columns])


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


def _per_case(function: Callable[[tuple], object], names: Iterable[str], slots: dict[str, int]):
    """``function`` of a binding as a function of the values it reads (``names``): over a list of
    bindings, each binding's key and the function of each distinct key (a batch computes each
    distinct case once; the loop over the bindings stays in C)."""
    key = O.key_function(tuple(sorted({slots[n] for n in names})))

    def computed(bindings: list) -> tuple[list, dict]:
        keys = list(map(key, bindings))
        return keys, {k: function(b) for k, b in dict(zip(keys, bindings)).items()}
    return computed


class _Body:
    """A scheduled body prepared as operations; ``run`` gives every complete binding.

    A binding is a tuple of the values bound so far, in the order the body binds its
    variables (an atom binds its new variables left to right), so each operation only
    appends to it: ``slots`` maps a variable to its place. A join reads, through an
    index on the bound positions, only the values a row adds (rows that repeat a new
    variable are checked when the index is built); an atom bound or constant in every
    argument is looked up in the relation itself (no table, no index of its constants), and
    one of new variables only is read from it (a scan makes no copy: the first scan's
    bindings are the relation's own rows); an assignment or
    test is computed once per distinct set of values it reads. A table whose keys each have one tail (a 天盤 palace's
    branch) is built without a loop in Python, and a join reads it without a loop per tail; a
    filter (a lookup, a negation, a test) keeps its bindings without a loop in Python. A run of
    literals may be one operation, a segment (``split``, the hook of the segments pass:
    :mod:`~liuren_logic.datalog.passes.segments`).

    The body's variables and their slots are known at once; each operation is prepared when
    bindings first reach it (:meth:`operation`): a body whose bindings run out at its first
    literals (most rules, on most charts) never prepares the rest.
    """

    def __init__(self, body: Sequence, aggregates: dict, delta: Optional[int] = None, given: Sequence[str] = (),
                 split: segments.Segments = segments.NOWHERE):
        self.slots: dict[str, int] = {name: slot for slot, name in enumerate(given)}  # bound before the body
        self.delta = delta  # the body position that reads the last round's new tuples (semi-naive)
        self.aggregates = aggregates
        self.literals = body
        self.split = split
        self.parts: list[tuple[int, int, frozenset]] = []  # each operation's literals (start, end), the variables
        self.places: list[int] = []  # bound before it; body position → its operation (a segment's literals share one)
        bound: set[str] = set(given)
        ends = split.runs(body)
        position = 0
        while position < len(body):
            end = ends.get(position, position + 1)
            self.parts.append((position, end, frozenset(bound)))
            self.places += [len(self.parts) - 1] * (end - position)
            for literal in body[position:end]:
                for name in _binds(literal, bound):
                    self.slots[name] = len(self.slots)
                    bound.add(name)
            position = end
        self._ops: list[Optional[O.Operation]] = [None] * len(self.parts)  # each prepared when first needed

    @property
    def ops(self) -> list[O.Operation]:
        """Every operation, in order (each prepared now if it was not)."""
        return [self.operation(index) for index in range(len(self.parts))]

    def operation(self, index: int) -> O.Operation:
        """The ``index``-th operation, prepared when first asked (threads that ask it together each
        prepare one alike; one is kept)."""
        op = self._ops[index]
        if op is None:
            start, end, bound = self.parts[index]
            if end - start > 1:
                op = self.split.operation(self.literals[start:end], self, bound)
            else:
                op = self._prepare(self.literals[start], bound, start == self.delta)
            self._ops[index] = op
        return op

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

    def _prepare(self, literal, bound: frozenset, delta: bool) -> O.Operation:
        """A literal's operation, after the variables ``bound``."""
        slots = self.slots
        if isinstance(literal, S.Atom):
            consts, positions, key_slots = self._probe(literal.args, bound)
            outputs, checks = _unbound(literal.args, positions + tuple(p for p, _ in consts))
            kind = O.Join if outputs else O.SemiJoin
            rows = _rows_function(literal.args, consts, key_slots) if not outputs else None
            if rows is not None:
                kind = O.Member  # every argument bound or a constant: a row of the relation, looked up in it
            whole = outputs == list(range(len(literal.args)))  # a scan: the rows themselves
            if whole and outputs:
                kind = O.Scan  # read from the relation itself, not from a copy in a table
            spec = (literal.pred, positions, consts, None if whole else tuple(outputs), checks)
            return kind(literal, literal.pred, spec, rows or O.key_function(key_slots), delta)
        if isinstance(literal, S.Negation):  # a variable repeated only inside it: 'for no value'
            consts, positions, key_slots = self._probe(literal.atom.args, bound)
            _, checks = _unbound(literal.atom.args, positions + tuple(p for p, _ in consts))
            rows = _rows_function(literal.atom.args, consts, key_slots)
            return (O.Absent if rows else O.Not)(literal, literal.atom.pred, (literal.atom.pred, positions, consts, (), checks),
                                                 rows or O.key_function(key_slots))
        if isinstance(literal, S.Comparison):
            names = [v.name for v in S.variables(literal.left) + S.variables(literal.right)]
            target = S.assignment_target(literal, bound)
            if target is not None:
                expr = literal.right if isinstance(literal.left, S.Var) and literal.left.name == target else literal.left
                return O.Assign(literal, _per_case(_term_function(expr, slots), [n for n in names if n != target], slots))
            left, right, op = _term_function(literal.left, slots), _term_function(literal.right, slots), literal.op

            def test(binding):
                x, y = left(binding), right(binding)
                return x is not None and y is not None and compare(op, x, y)
            return O.Test(literal, _per_case(test, names, slots))
        agg = self.aggregates[literal]
        result = literal.result.name
        bound_slot = slots[result] if result in bound else None
        return O.Aggregate(literal, agg.helper, agg.literal.func == "count", O.key_function(tuple(slots[n] for n in agg.group)),
                           bound_slot)

    def run(self, store: Store, values: dict, delta: "Store | None" = None, given: tuple = ()) -> Collection[tuple]:
        """All complete bindings that extend ``given`` (the values of the body's ``given`` variables),
        to be read, not changed (a body of one scan gives the relation's own set); ``values`` maps an
        aggregate (by its helper's name) to its group → value table, and the atom at position
        ``self.delta`` reads the ``delta`` store."""
        return self.extend([given], store, values, delta)

    def extend(self, bindings: Collection, store: Store, values: dict,
               delta: "Store | None" = None) -> Collection[tuple]:
        """As :meth:`run`, the complete bindings that extend each of these, in order."""
        for index, op in enumerate(self._ops):
            bindings = (op or self.operation(index)).apply(bindings, store, values, delta)
            if not bindings:
                break
        return bindings


def _binds(literal, bound: set[str]) -> list[str]:
    """The variables a literal binds after those in ``bound``, in the order it binds them: an atom its
    new variables left to right, an assignment its target, an aggregate its result."""
    if type(literal) is S.Atom:  # as _unbound finds them: each variable not bound, at its first place
        new = []
        for arg in literal.args:
            if type(arg) is S.Var and arg.name not in bound and arg.name not in new:
                new.append(arg.name)
        return new
    if isinstance(literal, S.Negation):
        return []
    if isinstance(literal, S.Comparison):
        target = S.assignment_target(literal, bound)
        return [] if target is None else [target]
    return [] if literal.result.name in bound else [literal.result.name]


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


def _row_reader(positions: list[int]) -> Callable[[tuple], tuple]:
    """The values an atom's row adds to a binding, as a tuple."""
    if not positions:
        return lambda row: ()
    if len(positions) == 1:
        position = positions[0]
        return lambda row: (row[position],)
    return itemgetter(*positions)


def _heads_function(args, slots: dict[str, int]) -> Callable[[list], Iterable[tuple]]:
    """Builds the head tuples of a list of fire tuples, without a Python call per fire: a head
    of every variable in slot order is its fire tuple itself; one without constants, the values
    at its slots; one with, its columns zipped (a variable's values, a constant repeated)."""
    if not any(isinstance(a, S.Const) for a in args):
        picks = [slots[a.name] for a in args]
        if picks == list(range(len(slots))):
            return lambda fires: fires
        get = itemgetter(*picks)
        return (lambda fires: zip(map(get, fires))) if len(picks) == 1 else (lambda fires: map(get, fires))
    columns = [(True, a.value) if isinstance(a, S.Const) else (False, itemgetter(slots[a.name])) for a in args]
    return lambda fires: zip(*[repeat(x, len(fires)) if constant else map(x, fires) for constant, x in columns])


def _group_key(group: tuple):
    """A group as :func:`~liuren_logic.datalog.operations.key_function` reads it from a binding: a value, a tuple, or ()."""
    return group[0] if len(group) == 1 else group


_PREPARED = frozenset({"body", "deltas", "inner", "heads"})  # what _Rule prepares when first read


class _Rule:
    """A compiled rule prepared for bottom-up evaluation, with its aggregates.

    In a recursive stratum, ``deltas`` holds one body per atom of the stratum's own relations,
    reading that atom from the last round's new tuples (semi-naive evaluation), in the rule's own
    order; a round fires the bodies :meth:`delta_bodies` gives. Outside recursion, its heads are
    derived by the body the materialisation's ordering gives (``join_orders``: the join_order
    pass); its fire tuples, when asked, in its own order. Each body is prepared with the rule's
    segments (``split``: the segments pass).
    """

    def __init__(self, compiled: CompiledRule, stratum: frozenset = frozenset(), fixed: frozenset = frozenset(),
                 passes: Passes = ALL_PASSES):
        self.compiled = compiled
        self.recursive = bool(stratum)  # its firings are found again when asked, not kept (Materialisation)
        self.stratum = stratum  # the relations of its recursive stratum (none outside recursion)
        self.fixed = fixed  # the chart-independent relations
        self.split = segments.Segments(fixed, passes)  # where its bodies' segments are
        self.join_orders = join_order.JoinOrders()  # the orders it may be derived in, outside recursion
        self.rounds = delta_first.rounds(passes)  # how a round reads its bodies, in recursion
        self._bound: dict[tuple, tuple[_Body, Callable]] = {}  # variables bound first → body, fire tuple reader

    def __getattr__(self, name: str):
        """The prepared bodies (``body``, ``deltas``, ``inner``, ``heads``), made when one is first read:
        a rule whose relation is restored whole (a static stratum's, from the snapshot) or that a batch
        never evaluates (a why reads a few strata) is never prepared."""
        if name not in _PREPARED:
            raise AttributeError(name)
        compiled = self.compiled
        body, heads = self.prepared(compiled.body)
        inner = []  # (aggregate, (its body, the helper row of a binding))
        for agg in compiled.aggregates.values():
            inside = self._body(agg.context + agg.body, {})
            inner.append((agg, (inside, _row_reader([inside.slots[n] for n in agg.group + agg.inner]))))
        deltas = [(k, self._body(compiled.body, compiled.aggregates, k), heads)  # (position read new, body, heads)
                  for k, literal in enumerate(compiled.body)
                  if isinstance(literal, S.Atom) and literal.pred in self.stratum]
        self.__dict__.update(  # all at once: a thread reading them meanwhile prepares its own
            body=body, inner=inner, heads=heads, deltas=deltas)
        return self.__dict__[name]

    def delta_bodies(self, store: Store, changes: Store) -> list[tuple[_Body, Callable]]:
        """The bodies a round after the first fires, each with its heads reader: one for each atom of
        the stratum, that atom read from ``changes`` (the new tuples of the round before), in the
        order the delta_first pass chooses (:mod:`~liuren_logic.datalog.passes.delta_first`)."""
        return self.rounds.bodies(self, store, changes)

    def prepared(self, literals: Sequence, delta: Optional[int] = None) -> tuple[_Body, Callable]:
        """A body of this rule in the order of ``literals`` (the ``delta``-th read from a round's new
        tuples), and its heads reader."""
        body = self._body(literals, self.compiled.aggregates, delta)
        return body, _heads_function(self.compiled.rule.head.args, body.slots)

    def _body(self, literals: Sequence, aggregates: dict, delta: Optional[int] = None, given: Sequence[str] = ()) -> _Body:
        """A body of this rule prepared with its segments."""
        return _Body(literals, aggregates, delta, given, self.split)

    def matching(self, store: Store, values: dict, pattern: Sequence[Optional[Value]]) -> list[tuple]:
        """The fire tuples of this rule over the store that match ``pattern`` (``None`` = any, in the
        fire relation's order): its body run with the pattern's values bound before it."""
        names = tuple(name for name, value in zip(self.body.slots, pattern) if value is not None)
        if names not in self._bound:
            body = self._body(self.compiled.body, self.compiled.aggregates, given=names)
            self._bound[names] = body, _row_reader([body.slots[name] for name in self.body.slots])
        body, reorder = self._bound[names]
        return list(map(reorder, self.run(body, store, values, given=tuple(v for v in pattern if v is not None))))

    def aggregates(self, store: Store) -> tuple[list, dict]:
        """(aggregate, helper rows) of each aggregate of this rule over the store, and each one's
        group → value table by its helper's name. A helper row is (group…, inner…), its group
        ``ALL`` when the aggregate has none, as the pyDatalog engine's helper holds it."""
        helpers, values = [], {}
        for agg, (body, reorder) in self.inner:
            rows = list(map(reorder, self.run(body, store, {})))
            groups = defaultdict(set)
            width = len(agg.group)
            term = (agg.group + agg.inner).index(agg.literal.term.name)
            for row in rows:
                groups[row[:width]].add(row[term])
            try:
                values[agg.helper] = {_group_key(group): aggregate(agg.literal.func, terms)
                                      for group, terms in groups.items()}
            except IntegerLimit as error:
                raise self._past(error) from None
            helpers.append((agg, rows if width else [(ALL, *row) for row in rows]))
        return helpers, values

    def run(self, body: _Body, store: Store, values: dict, delta=None, given: tuple = ()) -> Collection[tuple]:
        """The fire tuples of one body of this rule (:meth:`_Body.run`), arithmetic past the integer
        limit an :class:`EvaluationLimit` naming the rule."""
        try:
            return body.run(store, values, delta, given)
        except (IntegerLimit, O.BindingLimit) as error:
            raise self._past(error) from None

    def _past(self, error: Exception) -> EvaluationLimit:
        """A limit met while deriving this rule, as the :class:`EvaluationLimit` naming it."""
        return EvaluationLimit(self.compiled.rule, f"{error} (deriving {self.compiled.rule.head.pred})")


def _constants(compiled: CompiledRule) -> Iterable[tuple[str, tuple]]:
    """(relation, (position, value)…) of each atom or negation, in a rule's body or an aggregate's,
    with constants among its arguments: what its bodies read with constants."""
    literals = [*compiled.body, *(literal for agg in compiled.aggregates.values() for literal in agg.body)]
    for literal in literals:
        atom = literal.atom if isinstance(literal, S.Negation) else literal
        if isinstance(atom, S.Atom):
            consts = tuple((position, arg.value) for position, arg in enumerate(atom.args) if isinstance(arg, S.Const))
            if consts:
                yield atom.pred, consts


# a compiled rule's parts, stratum, fixed relations and passes → its _Rule, while some plan holds it
_rules: "WeakValueDictionary[tuple, _Rule]" = WeakValueDictionary()


def _shared_rule(compiled: CompiledRule, stratum: frozenset, fixed: frozenset, passes: Passes) -> _Rule:
    """The _Rule of a compiled rule, one for every program that holds the same rule objects in the
    same place with the same stratum and chart-independent relations (schools one reading apart,
    decoded from their snapshots with the modules they share, :mod:`.snapshot`): what it prepares
    (bodies, join orders) depends only on these, and is then prepared once. The key holds the
    objects it names by id (through the _Rule's compiled rule), so no id is reused while kept."""
    key = (id(compiled.rule), compiled.index, compiled.fire, tuple(map(id, compiled.body)), compiled.variables,
           tuple((id(literal), agg) for literal, agg in compiled.aggregates.items()), stratum, fixed, passes)
    found = _rules.get(key)
    if found is None:
        found = _rules[key] = _Rule(compiled, stratum, fixed, passes)
    return found


class Layout(NamedTuple):
    """The shape of a knowledge base's plan (:class:`_Plan`), as values only, the same for every set
    of passes: worked out from the program (:func:`layout`), or as a snapshot kept it
    (:attr:`~liuren_logic.datalog.program.Prepared.layout`, :mod:`.snapshot`), so that a warm start
    does not work it out again."""

    moving: frozenset  # the relations a chart's input reaches (Program.moving)
    strata: tuple  # (members, recursive, dynamic) of each stratum with rules, lowest first
    asked: dict  # (relation, positions) → the constants rules read there
    below: tuple  # each dynamic stratum's: the dynamic strata it rests on, itself included, in order
    reads: tuple  # each dynamic stratum's: the relations its rules read and derive


def layout(kb: "KnowledgeBase | Prepared") -> Layout:
    """Work out the :class:`Layout` of a knowledge base's plan from its program and rules."""
    program = kb.program
    moving, graph = program.moving(), program.dependencies
    strata = tuple((members, recursive, any(p in moving for p in members)) for members, recursive in program.strata()
                   if any(pred in kb.rules_for for pred in members))
    asked = defaultdict(set)
    for members, _, _ in strata:
        for compiled in (c for pred in members for c in kb.rules_for.get(pred, ())):
            for pred, consts in _constants(compiled):
                asked[pred, tuple(p for p, _ in consts)].add(consts[0][1] if len(consts) == 1 else
                                                            tuple(v for _, v in consts))
    stratum_of, below, reads = {}, [], []
    for index, members in enumerate(members for members, _, dynamic in strata if dynamic):
        heads = {pred for pred in members if pred in kb.rules_for}
        stratum_of.update(dict.fromkeys(heads, index))
        read = {q for pred in heads for q in graph.predecessors(pred)} | heads
        below.append({index}.union(*(below[stratum_of[q]] for q in read if stratum_of.get(q, index) != index)))
        reads.append(frozenset(read))
    return Layout(moving, strata, {key: frozenset(values) for key, values in asked.items()},
                  tuple(tuple(sorted(b)) for b in below), tuple(reads))


class _Plan:
    """The rules of a knowledge base prepared for evaluation, stratum by stratum (lowest first),
    as its :class:`Layout` places them (``shape``; worked out when not given).

    ``needs`` maps a relation a chart's input reaches (its fire relations and aggregate helpers
    too) to the dynamic strata it rests on, lowest first, its own included: what a batch
    evaluates before the relation is read. ``reads`` gives each dynamic stratum the relations
    its rules read and derive (those an audit's twin must have ready). ``asked`` gives a
    relation's positions the constants rules read there (:meth:`Store._holding`).
    """

    def __init__(self, kb: KnowledgeBase, passes: Passes = ALL_PASSES, shape: Optional[Layout] = None):
        shape = shape if shape is not None else layout(kb)
        fixed = frozenset(kb.program.preds) - shape.moving
        self.static, self.dynamic = [], []
        for members, recursive, dynamic in shape.strata:
            stratum = frozenset(members) if recursive else frozenset()
            rules = [_shared_rule(c, stratum, fixed, passes) for pred in members for c in kb.rules_for.get(pred, ())]
            (self.dynamic if dynamic else self.static).append((rules, recursive))
        self.asked = shape.asked
        self.reads: list[frozenset] = list(shape.reads)
        self.needs: dict[str, tuple[int, ...]] = {}
        for (rules, _), needs in zip(self.dynamic, shape.below):
            for rule in rules:
                compiled = rule.compiled
                self.needs.update(dict.fromkeys([compiled.rule.head.pred, compiled.fire,
                                                 *(agg.helper for agg in compiled.aggregates.values())], needs))
        self.readers = Counter(pred for read in self.reads for pred in read)  # relation → how many dynamic strata read it


def _alike(a: KnowledgeBase, b: KnowledgeBase) -> frozenset[str]:
    """The relations ``b`` defines as ``a`` does: the same declaration, facts and rules, reading
    only relations alike (input relations are alike when declared alike: a batch's given facts
    are compared when it is cast). Over the same input facts they hold the same tuples."""
    facts_a, facts_b = _facts_by_relation(a.prepared), _facts_by_relation(b.prepared)
    alike: set[str] = set()
    for members, _ in b.program.strata():
        if all(a.program.preds.get(p) == b.program.preds.get(p) and facts_a.get(p) == facts_b.get(p)
               and [c.rule for c in a.rules_for.get(p, ())] == [c.rule for c in b.rules_for.get(p, ())]
               and all(q in alike or q in members for q in b.program.dependencies.predecessors(p))
               for p in members):
            alike.update(members)
    return frozenset(alike)


_facts: "WeakKeyDictionary[object, dict]" = WeakKeyDictionary()  # a program's Prepared → its facts by relation


def _facts_by_relation(prepared) -> dict[str, set]:
    """The program's facts as rows by relation, gathered once per program (a school weighed against
    each of its readings' schools is compared with every one of them)."""
    if prepared not in _facts:
        facts = defaultdict(set)
        for fact in prepared.program.facts:
            facts[fact.head.pred].add(tuple(a.value for a in fact.head.args))
        _facts[prepared] = facts
    return _facts[prepared]


_REST = slice(1, None)  # a row after its first value (a constant: ``row[1:]`` makes a slice a row)


def _rests(rows: Collection[tuple]) -> dict[tuple, list]:
    """Each distinct rest of the rows (a row after its first value; the rows of one relation, of one
    width) → the first values of its rows."""
    by_rest = defaultdict(list)
    width = len(next(iter(rows), ()))
    if width == 2:  # a rest's one value to look up, not a tuple made for each row
        for first, value in rows:
            by_rest[value].append(first)
        return {(value,): firsts for value, firsts in by_rest.items()}
    if width == 3:
        for first, a, b in rows:
            by_rest[a, b].append(first)
        return by_rest
    for row in rows:
        by_rest[row[_REST]].append(row[0])
    return by_rest


def _by_first(rests: dict[tuple, list], order: Optional[Callable] = None, make: Optional[Callable] = None) -> dict:
    """Rows grouped by their first value, from their :func:`_rests`: each group the rest of each row
    (or ``make(rest)``) sorted as :func:`_sorted` sorts the rests (or by ``order(rest)``, stable over
    that), in a tuple. Equal rests are one value: the charts of a batch share most of them (a table's
    44,424 ``spirit`` rows have 439 rests), so each is sorted, made and read once."""
    ordered = _sorted(rests)
    if order is not None:
        ordered.sort(key=order)
    groups = defaultdict(list)
    for rest in ordered:
        value = rest if make is None else make(rest)
        for first in rests[rest]:
            groups[first].append(value)
    return {first: tuple(group) for first, group in groups.items()}


def _sorted(rows) -> list[tuple]:
    rows = list(rows)
    _sort(rows)
    return rows


def _sort(rows: list) -> None:
    try:
        rows.sort()  # a column of one kind sorts as it is
    except TypeError:
        rows.sort(key=sort_key)


class Materialisation:
    """Every relation, fire relation and aggregate helper of a knowledge base over a set of facts.

    ``Materialisation(kb)`` evaluates the chart-independent part once (or takes it from
    ``static``, a :meth:`static_state` of the same program); ``extend(facts)`` returns a
    materialisation of a batch of charts (their input facts) on top of it.

    A batch evaluates on demand: a relation read (``query``, ``chart_rows``, ``holds``,
    ``aggregate_value``, a fire relation) first evaluates the strata it rests on that are not
    evaluated yet, lowest first (:attr:`_Plan.needs`), so a cast that reads its 三傳 never
    evaluates its 畢法. The tuples are those of evaluating everything at once, since a stratum
    reads only lower ones. An :class:`EvaluationLimit` therefore comes from the first read
    that needs the stratum (and again from every such read); :meth:`evaluate_all` evaluates
    what is left, for a caller that wants every error at once.

    The fire relation of a rule outside recursion is computed when first asked (a ``why``):
    its body over the finished store gives exactly the tuples it gave during evaluation,
    since it reads only lower strata. Those of a recursive stratum are not kept at all: a why
    asks them with the head's values bound, and the rule's body run with those values bound
    over the finished store gives exactly the firings of every round (its negations and
    aggregates read only lower strata), a few tuples instead of all of them.
    """

    def __init__(self, kb: KnowledgeBase, base: "Materialisation | None" = None, limits: Limits = Limits(),
                 static: "dict | None" = None, twin: "Materialisation | None" = None, shared: frozenset = frozenset(),
                 passes: Passes = ALL_PASSES):
        self.kb = kb
        self.program = kb.program
        self.rules_for = kb.rules_for
        self.name = kb.name
        self.school = kb.school
        self.limits = base.limits if base else limits
        self.passes = base.passes if base else passes  # the optimisations it makes (the passes package)
        self.base = base
        self.twin, self.shared = twin, shared
        self.added = 0
        self.given: Collection = frozenset()  # a batch's input facts, (relation, arguments): its origins' keys
        self._unfired: dict[str, _Rule] = {}  # fire relation → its rule
        self._unhelped: dict[str, _Rule] = {}  # aggregate helpers of rules not fired here (_read_later)
        self._recursive: dict[str, _Rule] = {}  # the same, of recursive strata' rules
        self._values: dict[str, dict] = {}  # fire relation → the aggregate values its rule was fired with
        # (of a rule with aggregates; the others' are {}); apart from the rule, for the collector (Store)
        self.found = 0  # firings found by recursive rules (not kept)
        self.grouped: LazyDict = LazyDict(self._group)  # relation → chart id → its rows (by_chart)
        self._rests: LazyDict = LazyDict(self._distinct)  # relation → its distinct rests → their chart ids
        self._views: dict[str, MappingProxyType] = {}  # a reader's rows by chart (view)
        self._alike: dict[int, tuple[Materialisation, frozenset]] = {}  # another school's base → what is alike
        self._pending: set[int] = set()  # the dynamic strata (plan.dynamic indexes) a batch has yet to evaluate
        self.order = join_order.ordering(self.passes)  # how it derives rules outside recursion (a batch's: extend)
        if base is None:
            # one for every session of the program (made again for other passes: a test's)
            shape = kb.prepared.layout  # as a snapshot kept it, if one did
            self.plan = kb.prepared.plan(lambda: _Plan(kb, shape=shape)) if self.passes == ALL_PASSES else \
                _Plan(kb, self.passes, shape)
            self.store = Store(asked=self.plan.asked, budget=self.limits.step_bytes)
            self.collector = collector.hook(self.passes, self.store)  # what it evaluates within, and after
            self.origins = MappingProxyType(kb.prepared.origins)  # the facts'; a batch adds its own (extend)
            if static is None:
                for (pred, args) in self.origins:
                    self.store.add(pred, [args])
                with self.collector.paused():
                    for rules, recursive in self.plan.static:
                        self._stratum(rules, recursive)
            else:
                self.store.relations = {pred: dict.fromkeys(rows) for pred, rows in static.items()}
                self._read_later([rule for rules, _ in self.plan.static for rule in rules])
        else:
            self.plan = base.plan
            self.store = Store(base.store, twin.store if twin else None, shared, budget=self.limits.step_bytes)
            self.collector = collector.hook(self.passes, self.store)
            self.origins = ChainMap({}, base.origins)

    def static_state(self) -> dict:
        """What this materialisation holds of its own, as plain data (relation → rows), for ``static``."""
        return {pred: tuple(rows) for pred, rows in self.store.relations.items()}

    def extend(self, facts: Iterable[tuple[str, Sequence[Value], str]],
               alongside: "Materialisation | None" = None) -> "Materialisation":
        """A materialisation with these input facts (relation, arguments, origin) added, evaluated
        as it is read.

        ``alongside``: another school's materialisation of the same input facts (an audit). The
        relations both schools define alike (:func:`_alike`) are read from it (evaluated there
        when first needed), not derived again.
        """
        given = defaultdict(list)
        origins = {}
        for pred, args, origin in facts:
            args = tuple(args)
            given[pred].append(args)
            origins[(pred, args)] = origin
        for pred in given:
            self.kb.check_input(pred)
        twin, shared = None, frozenset()
        if alongside is not None and alongside.given == origins.keys():
            twin, shared = alongside, self._alike_with(alongside.base)
        batch = Materialisation(self.kb, base=self, twin=twin, shared=shared)
        batch.given = origins.keys()
        batch.origins.maps[0] = origins
        for pred, rows in given.items():
            if pred not in shared:
                batch.store.add(pred, rows)
        batch._pending = set(range(len(self.plan.dynamic)))
        batch.order = join_order.ordering(self.passes, max(map(len, given.values()), default=0))
        batch.collector = collector.hook(self.passes, batch.store, self.plan.readers if batch.planning else None)
        return batch

    @property
    def planning(self) -> bool:
        """Whether it derives rules outside recursion in the join orders their relations' sizes suit."""
        return self.order is join_order.planned

    def _alike_with(self, other: "Materialisation") -> frozenset:
        if id(other) not in self._alike:
            self._alike[id(other)] = (other, _alike(other.kb, self.kb))
        return self._alike[id(other)][1]

    def evaluate_all(self) -> "Materialisation":
        """Evaluate every stratum not evaluated yet (a limit it meets is raised here); this materialisation."""
        self._evaluate(sorted(self._pending))
        return self

    def _ensure(self, pred: str) -> None:
        """Evaluate the strata ``pred`` rests on that are not evaluated yet."""
        if self._pending:
            self._evaluate([i for i in self.plan.needs.get(pred, ()) if i in self._pending])

    def _evaluate(self, indexes: list[int]) -> None:
        """Evaluate these dynamic strata, in this order (each after those it reads)."""
        if not indexes:
            return
        with self.collector.paused():  # no cycles: collecting would only walk its tuples
            for index in indexes:
                rules, recursive = self.plan.dynamic[index]
                if self.shared:
                    for pred in self.plan.reads[index] & self.shared:
                        self.twin._ensure(pred)
                if self.shared and all(rule.compiled.rule.head.pred in self.shared for rule in rules):
                    self._read_later(rules)
                else:
                    self._stratum(rules, recursive)
                self._pending.discard(index)
                self.collector.evaluated(self.plan.reads[index])
            self.collector.settled()

    def _stratum(self, rules: list, recursive: bool) -> None:
        """Evaluate one stratum over the lower ones: its aggregates first (they read only lower
        strata), then each rule once, or, in recursion, semi-naively (:meth:`_semi_naive`)."""
        values = {}
        for rule in rules:
            values[rule] = {}
            if rule.inner:
                helpers, values[rule] = rule.aggregates(self.store)
                for agg, rows in helpers:
                    self._add(rule, agg.helper, rows)
        if recursive:
            estimates = self._estimates(rules)
            if estimates:
                self._alternate(rules, values, estimates)
            else:
                self._semi_naive(rules, values)
            return
        for rule in rules:
            body, heads = self.order(rule, self.store)
            fires = rule.run(body, self.store, values[rule])
            if fires:  # a rule that fires nowhere leaves its relations as they are
                self._count(rule, rule.compiled.fire, len(fires))  # distinct: each row extends a binding once
                self._unfire(rule, values[rule])
                self._add(rule, rule.compiled.rule.head.pred, heads(fires))

    def _semi_naive(self, rules: list, values: dict) -> None:
        """The fixpoint of a recursive stratum: a first round fires every rule's whole body; each
        later round only the bodies that read one atom of the stratum from the tuples the round
        before added (``changes``), until a round adds none."""
        for rule in rules:
            self._unfire(rule, values[rule])
        delta = self._round(values, [(rule, rule.body, rule.heads) for rule in rules], None)
        rounds = 1
        while delta:
            rounds += 1
            if rounds > self.limits.rounds:
                rule, pred = next(iter(delta.values()))[0]
                raise EvaluationLimit(rule.compiled.rule, f"{pred} keeps growing: no fixpoint after "
                                      f"{self.limits.rounds} rounds of recursion")
            changes = Store(asked=self.store.asked)  # its constant indexes hold what the rules ask
            for pred, (_, rows) in delta.items():
                changes.add(pred, rows)
            bodies = [(rule, *chosen) for rule in rules for chosen in rule.delta_bodies(self.store, changes)]
            delta = self._round(values, bodies, changes)

    def _estimates(self, rules: list) -> dict[str, str]:
        """est·q → q for the estimates the negations of these rules read (a cycle through defeat)."""
        defeat = self.program.defeat
        if defeat is None or not defeat.estimates:
            return {}
        return {literal.atom.pred: defeat.estimates[literal.atom.pred] for rule in rules
                for literal in rule.compiled.rule.body
                if isinstance(literal, S.Negation) and literal.atom.pred in defeat.estimates}

    def _alternate(self, rules: list, values: dict, estimates: dict[str, str]) -> None:
        """A cycle through defeat by the alternating fixpoint (Van Gelder 1993): the stratum derived
        semi-naively with its negations reading estimates of its own relations held fixed, the
        estimates taken from the derivation before: first none (an overestimate follows), then in
        turn each result, until two underestimates agree. The store then holds that underestimate
        (the well-founded model's true atoms) derived from the last overestimate, which the
        estimates hold: a firing asked later is found again as it was derived."""
        heads = sorted({rule.compiled.rule.head.pred for rule in rules})
        facts = _facts_by_relation(self.kb.prepared)  # a relation derived again starts from its facts

        def derive(estimate: dict) -> dict:
            for name, pred in estimates.items():
                self.store.replace(name, estimate.get(pred, ()))
            for pred in heads:
                self.store.replace(pred, facts.get(pred, ()))
            self._semi_naive(rules, values)
            return {pred: frozenset(self.store.rows(pred)) for pred in heads}

        over, under, turns = derive({}), None, 0
        while True:
            turns += 1
            if turns > self.limits.rounds:
                raise EvaluationLimit(rules[0].compiled.rule, "no fixpoint of a cycle through defeat after "
                                      f"{self.limits.rounds} alternations")
            found = derive(over)
            if found == under:
                return
            under = found
            over = derive(under)

    def _round(self, values, bodies, changes) -> dict:
        """Fire the bodies once over the store as the last round left it (so that no index is built
        again within a round), then add the heads they found; the firings are counted, not kept.
        The new head tuples by relation, with the first rule that made them."""
        new: dict[str, tuple] = {}
        for rule, body, heads in bodies:
            fires = rule.run(body, self.store, values[rule], changes)
            self.found += len(fires)
            if self.found > self.limits.firings:
                raise EvaluationLimit(rule.compiled.rule, f"{rule.compiled.fire} grew past the limit of "
                                      f"{self.limits.firings} firings found in recursion")
            pred = rule.compiled.rule.head.pred
            # the heads not held yet, as a set at once (firings repeat heads many times over): a probe per
            # firing, not a pass over the whole relation, so that a round costs what it found
            fresh = set(filterfalse(self.store.rows(pred).__contains__, heads(fires)))
            del fires
            if fresh:
                new.setdefault(pred, ((rule, pred), set()))[1].update(fresh)
        for pred, ((rule, _), rows) in new.items():
            self._add(rule, pred, rows)
        return new

    def _add(self, rule: _Rule, pred: str, rows) -> None:
        self._count(rule, pred, self.store.add(pred, rows))

    def _count(self, rule: _Rule, pred: str, added: int) -> None:
        self.added += added
        if self.added > self.limits.tuples:
            raise EvaluationLimit(rule.compiled.rule, f"{pred} grew past the limit of {self.limits.tuples} "
                                  "derived tuples")

    def _read_later(self, rules) -> None:
        """Rules whose relations are here without their being fired (read from the twin, or restored
        whole): their fire relations and aggregate helpers are derived when asked (those of a
        recursive rule, :meth:`_firings`, for each pattern asked)."""
        for rule in rules:
            (self._recursive if rule.recursive else self._unfired)[rule.compiled.fire] = rule
            self._unhelped.update((agg.helper, rule) for agg in rule.compiled.aggregates.values())

    def _fired(self, pred: str) -> None:
        """Compute a fire relation (or aggregate helper) left for later, in the materialisation that
        evaluated its rule."""
        self._ensure(pred)
        if pred in self._unhelped:
            self._help(self._unhelped[pred])
        if pred in self._unfired:
            rule = self._unfired.pop(pred)
            self.store.add(pred, rule.run(rule.body, self.store, self._fired_with(rule)))
        elif self.base is not None and (pred in self.base._unfired or pred in self.base._unhelped):
            self.base._fired(pred)

    def _firings(self, pred: str, pattern: Pattern) -> "list[tuple] | None":
        """The fire tuples matching ``pattern`` if ``pred`` is the fire relation of a rule of a recursive
        stratum (found again in the materialisation that evaluated it, each time asked), else None."""
        self._ensure(pred)
        held = self
        while pred not in held._recursive:
            held = held.base
            if held is None:
                return None
        rule = held._recursive[pred]
        return rule.matching(held.store, held._fired_with(rule), pattern)

    def _unfire(self, rule: _Rule, values: dict) -> None:
        """Note a rule fired here whose fire relation is derived when asked, with its aggregate values."""
        (self._recursive if rule.recursive else self._unfired)[rule.compiled.fire] = rule
        if rule.inner:
            self._values[rule.compiled.fire] = values

    def _fired_with(self, rule: _Rule) -> dict:
        """The aggregate values of a rule fired or read here: those it was fired with, or derived now;
        kept for a recursive rule (whose firings are asked again for each pattern), else given once."""
        if not rule.inner:
            return {}
        fire = rule.compiled.fire
        if fire not in self._values:
            self._values[fire] = self._help(rule)
        return self._values[fire] if rule.recursive else self._values.pop(fire)

    def _help(self, rule: _Rule) -> dict:
        """Derive here the aggregate helpers of a rule read from the twin; its aggregate values."""
        helpers, values = rule.aggregates(self.store)
        for agg, rows in helpers:
            self._unhelped.pop(agg.helper, None)
            self.store.add(agg.helper, rows)
        return values

    # the query interface the explainer uses ------------------------------------
    def query(self, pred: str, pattern: Pattern) -> list[tuple]:
        self.kb.check_query(pred, pattern)
        found = self._firings(pred, pattern)
        if found is not None:
            return _sorted(found)
        self._fired(pred)
        return _sorted(self.store.match(pred, tuple(pattern)))

    def chart_rows(self, pred: str, chart_id: Value) -> list[tuple]:
        """``query(pred, [chart_id, None …])`` without the chart id: the relation is read once
        for every chart of the batch (:meth:`by_chart`)."""
        return list(self.by_chart(pred).get(chart_id, ()))

    def by_chart(self, pred: str) -> "MappingProxyType[Value, tuple]":
        """A read-only mapping from each chart id of the batch to its rows of ``pred`` without the
        chart id, sorted, in a tuple (shared among the charts, :func:`_by_first`): the relation is
        evaluated and grouped when first asked, then final (the strata it rests on are evaluated).
        ``grouped[pred]`` is the same."""
        return self.grouped[pred]

    def _group(self, pred: str) -> "MappingProxyType[Value, tuple]":
        with self.collector.paused():  # evaluating and grouping make no cycles: one collection after
            self._ensure(pred)
            if pred in self.shared and pred not in self.store.relations:
                return self.twin.by_chart(pred)
            return MappingProxyType(_by_first(self._rests[pred]))

    def _distinct(self, pred: str) -> dict[tuple, tuple]:
        """The rests of ``pred``'s rows (:func:`_rests`), kept for every grouping of it (by_chart, views)."""
        self._ensure(pred)
        return {rest: tuple(firsts) for rest, firsts in _rests(self.store.rows(pred)).items()}

    def view(self, name: str, pred: str, order: Optional[Callable] = None,
             make: Optional[Callable] = None) -> "MappingProxyType[Value, tuple]":
        """As :meth:`by_chart`, each row ``make(row)``, in the order of ``order(row)`` (stable over the
        sorted rows): a reader's rows of every chart of the batch, ordered and made once for each
        distinct row. Kept under ``name``, which names what ``order`` and ``make`` do."""
        found = self._views.get(name)
        if found is None:
            with self.collector.paused():
                found = self._views[name] = MappingProxyType(_by_first(self._rests[pred], order, make))
        return found

    def holds(self, pred: str, args: Pattern) -> bool:
        found = self._firings(pred, args)
        if found is not None:
            return bool(found)
        self._fired(pred)
        return bool(self.store.match(pred, tuple(args)))

    def is_fact(self, pred: str, args: Sequence[Value]) -> bool:
        return (pred, tuple(args)) in self.origins

    def declared(self, pred: str):
        return self.program.preds.get(pred)

    def aggregate_value(self, agg: CompiledAggregate, group: Sequence[Value]):
        self._fired(agg.helper)
        rows = self.store.match(agg.helper, [*group] + [None] * len(agg.inner)) if agg.group else \
            list(self.store.rows(agg.helper))
        if not rows:
            return None
        term = (agg.group + agg.inner).index(agg.literal.term.name)
        return aggregate(agg.literal.func, {row[term] for row in rows})
