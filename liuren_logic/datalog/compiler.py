"""A checked program → pyDatalog clauses through its Python API (never ``load``/``ask``).

The firing-rule rewrite makes derivations data: rule ``r``

    h(X, Z) :- a(X, Y), b(Y, Z).

becomes ``Fire_r(X, Y, Z) <= a(X, Y) & b(Y, Z)`` beside ``h(X, Z) <= a(X, Y) & b(Y, Z)``,
so every way a head was derived can be read back with all its bindings (a head
defined through its fire relation would put every cycle of mutual recursion two steps
longer, and pyDatalog does not finish on those). KB predicates
are compiled as ``k_<name>``; internal ones start with a capital letter.

Bodies are reordered before compiling, because pyDatalog evaluates left to right
and silently answers wrongly when a negation or comparison meets an unbound
variable: each filter is placed as soon as its variables are bound. Arithmetic,
comparisons and the order of ``max``/``min`` are Python functions of
:mod:`~liuren_logic.datalog.semantics` called by pyDatalog, never its own operators, so both
engines mean the same by them; a number too large for the semantics is recorded in
``faults`` (pyDatalog would swallow the exception) for the caller to report.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from . import syntax as S
from .passes.delta_first import read_first
from .schedule import binds, schedule
from .semantics import IntegerLimit, arithmetic, compare, value_key

AGGREGATE_FUNCTIONS = {"count": "len_", "sum": "sum_", "max": "max_", "min": "min_"}
ALL = "all"  # first key of every aggregate function, so that a group may be empty


def relation(pred: str) -> str:
    """pyDatalog's name for a KB predicate: prefixed, so none can clash with its built-ins (rank, len_ …),
    and an identifier (a relation compiled from defeasible rules, ``app·w.x``, ``~p``, ``Δ·p``, is
    written with capitals, which no KB name holds: one name for each relation)."""
    return "k_" + _identifier(pred)


_ESCAPES = {"·": "Q", ".": "P", "~": "N", ">": "G", "Δ": "D", "Σ": "S"}


def _identifier(pred: str) -> str:
    if pred.isidentifier() and pred.isascii():
        return pred
    return "".join(c if c.isascii() and (c.isalnum() or c == "_") else _ESCAPES.get(c, f"X{ord(c)}X") for c in pred)


@dataclass(frozen=True)
class CompiledAggregate:
    literal: S.Aggregate
    helper: str  # Agg…(group…, inner…): every witness with its bindings
    function: str  # AggF…[all, group…] == value
    exists: str  # AggAny…(group…): the group is not empty (for count = 0)
    group: tuple[str, ...]
    inner: tuple[str, ...]
    body: tuple[S.Literal, ...]  # the aggregate's own body, in evaluation order
    context: tuple[S.Literal, ...] = ()  # the rule's literals before it, when its body cannot bind its group


@dataclass(frozen=True)
class CompiledRule:
    rule: S.Rule
    index: int
    fire: str
    body: tuple[S.Literal, ...]  # in evaluation order, anonymous variables named
    variables: tuple[str, ...]  # the arguments of the fire relation
    aggregates: dict  # Aggregate literal → CompiledAggregate


class _Namer:
    """Gives every ``_`` its own name, so fire relations keep whole bindings."""

    def __init__(self):
        self.count = 0

    def term(self, term):
        if isinstance(term, S.Var) and term.anonymous:
            self.count += 1
            return S.Var(f"_{self.count}·")
        if isinstance(term, S.BinOp):
            return S.BinOp(term.op, self.term(term.left), self.term(term.right), term.places)
        return term

    def atom(self, atom: S.Atom) -> S.Atom:
        return S.Atom(atom.pred, tuple(self.term(a) for a in atom.args), atom.places, atom.at)

    def literal(self, literal):
        if isinstance(literal, S.Atom):
            return self.atom(literal)
        if isinstance(literal, S.Negation):
            return S.Negation(self.atom(literal.atom), literal.at)
        if isinstance(literal, S.Aggregate):
            return S.Aggregate(literal.result, literal.func, literal.term,
                               tuple(self.literal(l) for l in literal.body), literal.places, literal.at)
        return literal


def _ordered_variables(body) -> tuple[str, ...]:
    names: list[str] = []
    bound: set[str] = set()
    for literal in body:
        for name in sorted(binds(literal, bound), key=lambda n: _first_index(literal, n)):
            if name not in names:
                names.append(name)
        bound |= binds(literal, bound)
    return tuple(names)


def _first_index(literal, name: str) -> int:
    if isinstance(literal, S.Atom):
        return [v.name for v in S.atom_variables(literal)].index(name)
    return 0


def _head_arithmetic(rule: S.Rule) -> S.Rule:
    """A head that computes an argument, ``h(X + 1) :- b(X)``, as ``h(V) :- b(X), V = X + 1``."""
    args, assignments = [], []
    for number, (arg, at) in enumerate(zip(rule.head.args, rule.head.places)):
        if isinstance(arg, S.BinOp):
            var = S.Var(f"_head{number}·")
            args.append(var)
            assignments.append(S.Comparison("=", var, arg, (at, at), at))
        else:
            args.append(arg)
    if not assignments:
        return rule
    return replace(rule, head=replace(rule.head, args=tuple(args)), body=rule.body + tuple(assignments))


def plan(rule: S.Rule, index: int) -> CompiledRule:
    """Name anonymous variables, order the body and work out the fire relation of a rule."""
    rule = _head_arithmetic(rule)
    namer = _Namer()
    body = schedule([namer.literal(l) for l in rule.body], set())
    aggregates = {}
    outside = {v.name for lit in body if not isinstance(lit, S.Aggregate) for v in S.literal_variables(lit)}
    outside |= {v.name for v in S.atom_variables(rule.head)}
    for number, literal in enumerate(l for l in body if isinstance(l, S.Aggregate)):
        used = {v.name for l in literal.body for v in S.literal_variables(l)}
        context: tuple = ()
        if not used & outside <= set(_ordered_variables(schedule(literal.body, set()))):
            # an outer variable only under 'not' or in a comparison: the helper starts from the rule's
            # literals before the aggregate, which bind it
            context = tuple(l for l in body[: body.index(literal)] if not isinstance(l, S.Aggregate))
        inner_body = schedule(literal.body, set(_ordered_variables(context)))
        names = _ordered_variables(context + inner_body)
        group = tuple(n for n in names if n in outside and n in used)
        inner = tuple(n for n in names if n not in outside)
        tag = f"{index}_{number}"
        aggregates[literal] = CompiledAggregate(literal, f"Agg_{tag}", f"AggF_{tag}", f"AggAny_{tag}",
                                                group, inner, inner_body, context)
    return CompiledRule(rule, index, f"Fire_{index}", body, _ordered_variables(body), aggregates)


# pyDatalog terms (pyDatalog is imported on first use: planning and the bottom-up engine need none of it)

def Term(*args, **kwargs):  # noqa: N802 - pyDatalog's class
    from pyDatalog.pyParser import Term as term

    return term(*args, **kwargs)


def constant(value):
    return Term(value, forced_type="constant")


@lru_cache(maxsize=1)
def _call_type() -> type:
    from pyDatalog.pyParser import Operation

    class Call(Operation):
        """A pyDatalog expression calling a Python function on the values of its arguments."""

        def __unicode__(self):
            return f"{self._pyD_operator.__name__}#{id(self._pyD_operator)}{self._pyD_rhs._pyD_name}"

    return Call


def _call(function, *args):
    return _call_type()(None, function, list(args))


def _holds(value) -> bool:
    return value is not None


def _is_number(value) -> bool:
    return type(value) is int


def _sort_key(value) -> tuple:
    return value_key(value)


class _Emitter:
    """Builds the pyDatalog terms of one clause; KB variable names map to V0, V1, …

    ``faults`` collects (rule, message) for arithmetic past the integer limit."""

    def __init__(self, rule: S.Rule | None = None, faults: list | None = None):
        self.names: dict[str, Term] = {}
        self.rule, self.faults = rule, faults if faults is not None else []

    def var(self, name: str) -> Term:
        if name not in self.names:
            self.names[name] = Term(f"V{len(self.names)}")
        return self.names[name]

    def term(self, term):
        if isinstance(term, S.Var):
            return self.var(term.name)
        if isinstance(term, S.Const):
            return constant(term.value)
        op, rule, faults = term.op, self.rule, self.faults

        def apply(a, b):
            try:
                return arithmetic(op, a, b)
            except IntegerLimit as error:
                faults.append((rule, str(error)))
                return None

        return _call(apply, self.term(term.left), self.term(term.right))

    def atom(self, atom: S.Atom, name: str | None = None):
        return Term(name or relation(atom.pred))(*[self.term(a) for a in atom.args])

    def comparison(self, literal: S.Comparison, bound: set[str]):
        target = S.assignment_target(literal, bound)
        left, right = literal.left, literal.right
        if target is not None:
            if not (isinstance(left, S.Var) and left.name == target):
                left, right = right, left
            var = self.var(target)
            binding = var == self.term(right)
            return binding & (constant(True) == _call(_holds, var)) if isinstance(right, S.BinOp) else binding
        op = literal.op

        def test(a, b):
            return a is not None and b is not None and compare(op, a, b)

        return constant(True) == _call(test, self.term(left), self.term(right))

    def body(self, body, aggregates: dict, zero: S.Aggregate | None = None, renamed: dict | None = None):
        """``renamed``: atoms read from another relation than their own (atom → pyDatalog name)."""
        parts, bound = [], set()
        for literal in body:
            if isinstance(literal, S.Atom):
                parts.append(self.atom(literal, (renamed or {}).get(literal)))
            elif isinstance(literal, S.Negation):
                parts.append(~self.atom(literal.atom))
            elif isinstance(literal, S.Comparison):
                parts.append(self.comparison(literal, bound))
            elif literal is zero:
                agg = aggregates[literal]
                parts.append(~Term(agg.exists)(*self.group(agg)))
                parts.append(self.var(literal.result.name) == constant(0))
            else:
                agg = aggregates[literal]
                parts.append(Term(agg.function)[self.keys(agg)] == self.var(literal.result.name))
            bound |= binds(literal, bound)
        result = parts[0]
        for part in parts[1:]:
            result = result & part
        return result

    def group(self, agg: CompiledAggregate):
        return [self.var(n) for n in agg.group] or [constant(ALL)]

    def keys(self, agg: CompiledAggregate):
        return tuple([constant(ALL)] + [self.var(n) for n in agg.group])


def emit_fact(rule: S.Rule) -> None:
    +Term(relation(rule.head.pred))(*[constant(a.value) for a in rule.head.args])


def declare_empty(pred: str, arity: int, name: str | None = None) -> None:
    """Make an empty relation known (``name``: pyDatalog's, if not the KB predicate's), so that
    asking it (or its negation) answers 'none'."""
    placeholder = Term(name or relation(pred))(*[constant("·") for _ in range(arity)])
    +placeholder
    -placeholder


def delta(pred: str) -> str:
    """The relation holding the tuples of ``pred`` that the last round added (semi-naive rounds)."""
    return "Delta_" + _identifier(pred)


def emit_delta_rules(compiled: CompiledRule, recursive: set[str], faults: list | None = None) -> list[str]:
    """For each atom of the body over a ``recursive`` relation, a fire relation reading that atom
    from its delta (first, :func:`read_first`): what a round of a semi-naive evaluation asks.
    (name, relation) of each."""
    names = []
    atoms = [(k, l) for k, l in enumerate(compiled.body) if isinstance(l, S.Atom) and l.pred in recursive]
    for number, (k, atom) in enumerate(atoms):
        name = f"{compiled.fire}_delta{number}"
        order = read_first(compiled.body, k)
        for zero in [None] + [a for a in compiled.aggregates if a.func == "count"]:
            emitter = _Emitter(compiled.rule, faults)
            fire = Term(name)(*[emitter.var(n) for n in compiled.variables])
            fire <= emitter.body(order, compiled.aggregates, zero, {atom: delta(atom.pred)})
        names.append((name, atom.pred))
    return names


def emit_rule(compiled: CompiledRule, head: bool = True, faults: list | None = None, first=()) -> None:
    """Assert the clauses of one rule; without ``head`` only its fire relation (the caller materialises heads).

    ``first``: the body atoms of the rule's own recursion, put first (pyDatalog does not finish
    on right recursion over a cyclic relation, ``t(X, Z) :- e(X, Y), t(Y, Z)``; it does on the
    same body in the other order)."""
    if not compiled.body:  # a defeasible rule or defeater without a body: its head is ground, it fires once
        +Term(compiled.fire)()
        if head:
            emit_fact(compiled.rule)
        return
    for agg in compiled.aggregates.values():
        _emit_aggregate(agg, _Emitter(compiled.rule, faults))
    order = compiled.body
    if first and compiled.body[0] not in first:
        order = schedule([l for l in compiled.body if l in first] + [l for l in compiled.body if l not in first], set())
    variants = [None] + [a for a in compiled.aggregates if a.func == "count"]
    for zero in variants:
        emitter = _Emitter(compiled.rule, faults)
        fire = Term(compiled.fire)(*[emitter.var(n) for n in compiled.variables])
        body = emitter.body(order, compiled.aggregates, zero)
        fire <= body
        if head:  # from the body itself: through the fire relation, pyDatalog hangs on mutual recursion
            emitter.atom(compiled.rule.head) <= body


def head_values(compiled: CompiledRule, row: tuple) -> tuple:
    """The head a fire tuple concludes."""
    binding = dict(zip(compiled.variables, row))
    return tuple(binding[a.name] if isinstance(a, S.Var) else a.value for a in compiled.rule.head.args)


def _emit_aggregate(agg: CompiledAggregate, body_emitter: _Emitter) -> None:
    helper = Term(agg.helper)(*body_emitter.group(agg), *[body_emitter.var(n) for n in agg.inner])
    helper <= body_emitter.body(agg.context + agg.body, {})
    emitter = _Emitter()
    helper = Term(agg.helper)(*emitter.group(agg), *[emitter.var(n) for n in agg.inner])
    value = emitter.var(agg.literal.term.name)
    function = Term(AGGREGATE_FUNCTIONS[agg.literal.func])
    if agg.literal.func in ("max", "min"):  # in the semantics' order, numbers before texts
        key = emitter.var("·key")
        aggregate, helper = function(value, order_by=key), helper & (key == _call(_sort_key, value))
    elif agg.literal.func == "sum":  # of the numbers among the values
        aggregate, helper = function(value, for_each=value), helper & (constant(True) == _call(_is_number, value))
    else:
        aggregate = function(value)
    (Term(agg.function)[emitter.keys(agg)] == aggregate) <= helper
    emitter = _Emitter()
    Term(agg.exists)(*emitter.group(agg)) <= Term(agg.helper)(*emitter.group(agg), *[emitter.var(n) for n in agg.inner])
