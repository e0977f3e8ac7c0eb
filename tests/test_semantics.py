"""Both engines mean what liuren_logic.datalog.semantics says: random facts mixing numbers and texts,
rules with comparisons, arithmetic, aggregates over outer variables (under ``not``, in
comparisons) and recursion, against a small reference evaluator written from the definitions."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic.datalog import syntax as S
from liuren_logic.datalog.checker import check
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.semantics import aggregate, arithmetic, compare, sort_key

VALUES = (0, 1, 2, -3, "a", "b", "子")
PROGRAM = """@pred e(x: any, y: any).
@pred f(x: any).
@pred ne(x: any, y: any).
@pred lt(x: any, y: any).
@pred eq(x: any, y: any).
@pred plus(x: any, y: any).
@pred lonely(x: any, n: int).
@pred apart(x: any, n: int).
@pred top(x: any, m: any).
@pred low(x: any, m: any).
@pred total(x: any, s: int).
@pred path(x: any, y: any).
@pred reach(x: any, y: any).
@pred tri(x: any, y: any, z: any).
@pred noloop(x: any).
@pred next(x: any, n: any).
ne(X, Y) :- e(X, Y), X != Y.
lt(X, Y) :- e(X, Y), X < Y.
eq(X, Y) :- f(X), f(Y), X = Y.
plus(X, Y) :- e(X, Z), Y = (Z + 1) mod 3.
lonely(X, N) :- f(X), N = count Y : { e(Y, Z), not e(X, Z) }.
apart(X, N) :- f(X), N = count Y : { e(Y, Z), Z != X, Y >= X }.
top(X, M) :- f(X), M = max Y : { e(X, Y) }.
low(X, M) :- f(X), M = min Y : { e(X, Y) }.
total(X, T) :- f(X), T = sum Y : { e(X, Y) }.
path(X, Y) :- e(X, Y).
path(X, Z) :- path(X, Y), e(Y, Z).
reach(X, Y) :- e(X, Y).
reach(X, Z) :- e(X, Y), reach(Y, Z).
tri(X, Y, Z) :- e(X, Y), e(Y, Z).
noloop(X) :- f(X), not tri(X, Y, Y).
next(X, Y * 2 - 1) :- e(X, Y).
"""


def reference(program) -> dict[str, set]:
    """Naive stratified evaluation straight from the definitions, one binding at a time."""
    relations: dict[str, set] = {p: set() for p in program.preds}
    for fact in program.facts:
        relations[fact.head.pred].add(tuple(a.value for a in fact.head.args))
    for members, _ in program.strata():
        rules = [r for r in program.rules if r.head.pred in members]
        while True:
            new = {(r.head.pred, tuple(_value(a, b) for a in r.head.args)) for r in rules
                   for b in _solve(list(r.body), {}, relations)}
            new = {(p, row) for p, row in new if row not in relations[p] and None not in row}
            if not new:
                break
            for pred, row in new:
                relations[pred].add(row)
    return relations


def _value(term, binding):
    if isinstance(term, S.Const):
        return term.value
    if isinstance(term, S.Var):
        return binding.get(term.name)
    left, right = _value(term.left, binding), _value(term.right, binding)
    return None if left is None or right is None else arithmetic(term.op, left, right)


def _ready(literal, binding, body) -> bool:
    if isinstance(literal, S.Aggregate):  # after the atoms that bind its outer variables
        return not any(isinstance(l, S.Atom) for l in body)
    names = {v.name for v in S.variables(literal.left) + S.variables(literal.right)} \
        if isinstance(literal, S.Comparison) else {v.name for v in S.atom_variables(literal.atom)}
    return names <= set(binding) or S.assignment_target(literal, set(binding)) is not None


def _solve(body, binding, relations):
    if not body:
        yield binding
        return
    literal = next((l for l in body if not isinstance(l, S.Atom) and _ready(l, binding, body)), None)
    literal = literal or next((l for l in body if isinstance(l, S.Atom)), body[0])
    rest = [l for l in body if l is not literal]
    if isinstance(literal, S.Atom):
        for row in relations[literal.pred]:
            extended = _match(literal.args, row, binding)
            if extended is not None:
                yield from _solve(rest, extended, relations)
    elif isinstance(literal, S.Negation):
        if not any(_match(literal.atom.args, row, binding) is not None for row in relations[literal.atom.pred]):
            yield from _solve(rest, binding, relations)
    elif isinstance(literal, S.Comparison):
        target = S.assignment_target(literal, set(binding))
        if target is not None:
            expr = literal.right if isinstance(literal.left, S.Var) and literal.left.name == target else literal.left
            value = _value(expr, binding)
            if value is not None:
                yield from _solve(rest, {**binding, target: value}, relations)
        else:
            left, right = _value(literal.left, binding), _value(literal.right, binding)
            if left is not None and right is not None and compare(literal.op, left, right):
                yield from _solve(rest, binding, relations)
    else:
        values = {b[literal.term.name] for b in _solve(list(literal.body), binding, relations)}
        value = aggregate(literal.func, values)
        result = literal.result.name
        if value is not None and binding.get(result, value) == value:
            yield from _solve(rest, {**binding, result: value}, relations)


def _match(args, row, binding):
    out = dict(binding)
    for arg, value in zip(args, row):
        if isinstance(arg, S.Const):
            if not compare("=", arg.value, value):
                return None
        elif not arg.anonymous:
            if arg.name in out and not compare("=", out[arg.name], value):
                return None
            out[arg.name] = value
    return out


def _text(e, f) -> str:
    facts = [f"e({S.format_value(a)}, {S.format_value(b)})." for a, b in sorted(e, key=sort_key)]
    facts += [f"f({S.format_value(a)})." for a in sorted(f, key=lambda v: sort_key((v,)))]
    return PROGRAM + "\n".join(facts) + "\n"


@settings(max_examples=30, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(VALUES), st.sampled_from(VALUES)), max_size=8),
       st.sets(st.sampled_from(VALUES), max_size=4))
def test_both_engines_agree_with_the_reference(e, f):
    program = check([parse(_text(e, f), "t.dl")])
    expected = reference(program)
    kb = KnowledgeBase(program)
    bottom_up, top_down = Materialisation(kb), PyDatalog(kb)
    for decl in program.preds.values():
        wanted = [None] * decl.arity
        assert set(bottom_up.query(decl.name, wanted)) == expected[decl.name], (decl.name, e, f)
    for decl in program.preds.values():
        assert set(top_down.query(decl.name, [None] * decl.arity)) == expected[decl.name], (decl.name, e, f)


def test_the_reported_cases():
    """An outer variable only under 'not' inside an aggregate, and one in a comparison there."""
    program = check([parse(PROGRAM + "e(1, a). e(2, b). e(a, b). f(a). f(1).\n", "t.dl")])
    for engine in (PyDatalog(KnowledgeBase(program)), Materialisation(KnowledgeBase(program))):
        assert engine.query("lonely", [None, None]) == [(1, 2), ("a", 1)]
        assert engine.query("apart", [None, None]) == [(1, 2), ("a", 1)]
        assert engine.query("ne", [None, None]) == [(1, "a"), (2, "b"), ("a", "b")]
        assert engine.query("lt", [None, None]) == [("a", "b")]
        assert engine.query("top", [None, None]) == [(1, "a"), ("a", "b")]
        assert engine.query("total", [None, None]) == []
        assert engine.query("noloop", [None]) == [(1,), ("a",)]
        assert engine.query("next", [None, None]) == []


@pytest.mark.parametrize("op, left, right, holds", [
    ("!=", 1, "1", True), ("=", 1, "1", False), ("<", 1, "a", False), (">=", 1, "a", False),
    ("<", "a", "b", True), ("<=", 2, 2, True)])
def test_comparisons(op, left, right, holds):
    assert compare(op, left, right) is holds


def test_arithmetic_and_aggregates():
    assert arithmetic("mod", -7, 12) == 5 and arithmetic("mod", 1, 0) is None and arithmetic("+", 1, "a") is None
    assert aggregate("max", {1, "a", 3}) == "a" and aggregate("min", {1, "a"}) == 1
    assert aggregate("sum", {1, "a", 3}) == 4 and aggregate("sum", {"a"}) is None and aggregate("count", set()) == 0
