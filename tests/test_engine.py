"""Compiled programs answer as Datalog says they should: random programs against a reference."""
from __future__ import annotations

from collections import Counter

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic.datalog.checker import check
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.domain.errors import InputError
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase

DOMAIN = ("子", "丑", "寅")
HEADER = "@kind b: 子 丑 寅.\n@pred e(x: b, y: b).\n@pred f(x: b).\n@pred d1(x: b).\n@pred d2(x: b, y: b).\n"
VARS = ("X", "Y", "Z")


def load(text: str) -> KnowledgeBase:
    return KnowledgeBase(check([parse(text, "t.dl")]))


@st.composite
def programs(draw):
    """Facts for e and f, then rules for d1 (over e, f) and d2 (over e, f, d1)."""
    e = draw(st.sets(st.tuples(st.sampled_from(DOMAIN), st.sampled_from(DOMAIN)), max_size=6))
    f = draw(st.sets(st.sampled_from(DOMAIN), max_size=3))
    rules = []
    for head, lower in (("d1", ("e", "f")), ("d2", ("e", "f", "d1"))):
        for _ in range(draw(st.integers(1, 2))):
            body, bound = [], set()
            for _ in range(draw(st.integers(1, 3))):
                pred = draw(st.sampled_from(lower))
                args = [draw(st.sampled_from(VARS)) for _ in range(2 if pred in ("e", "d2") else 1)]
                body.append(("atom", pred, args))
                bound |= set(args)
            names = sorted(bound)
            if draw(st.booleans()):
                pred = draw(st.sampled_from(lower))
                args = [draw(st.sampled_from(names)) for _ in range(2 if pred in ("e", "d2") else 1)]
                body.insert(draw(st.integers(0, len(body))), ("not", pred, args))  # anywhere: the compiler reorders
            if len(names) > 1 and draw(st.booleans()):
                body.insert(0, ("ne", None, draw(st.permutations(names))[:2]))
            head_args = [draw(st.sampled_from(names)) for _ in range(1 if head == "d1" else 2)]
            rules.append((head, head_args, body))
    return e, f, rules


def text_of(e, f, rules) -> str:
    lines = [HEADER] + [f"e({a}, {b})." for a, b in sorted(e)] + [f"f({a})." for a in sorted(f)]
    for head, head_args, body in rules:
        parts = []
        for kind, pred, args in body:
            if kind == "ne":
                parts.append(f"{args[0]} != {args[1]}")
            else:
                parts.append(("not " if kind == "not" else "") + f"{pred}({', '.join(args)})")
        lines.append(f"{head}({', '.join(head_args)}) :- {', '.join(parts)}.")
    return "\n".join(lines)


def reference(e, f, rules) -> dict:
    """Naive stratified evaluation: d1 from the base, then d2."""
    relations = {"e": set(e), "f": {(x,) for x in f}, "d1": set(), "d2": set()}
    for stratum in ("d1", "d2"):
        for head, head_args, body in rules:
            if head != stratum:
                continue
            for values in itertools.product(DOMAIN, repeat=len(VARS)):
                env = dict(zip(VARS, values))
                ok = True
                for kind, pred, args in body:
                    if kind == "ne":
                        ok = env[args[0]] != env[args[1]]
                    else:
                        present = tuple(env[a] for a in args) in relations[pred]
                        ok = present if kind == "atom" else not present
                    if not ok:
                        break
                if ok:
                    relations[head].add(tuple(env[a] for a in head_args))
    return relations


@settings(max_examples=40, deadline=None)
@given(programs())
def test_random_programs_match_the_reference(program):
    e, f, rules = program
    kb = load(text_of(e, f, rules))
    bottom_up, top_down = Materialisation(kb), PyDatalog(kb)
    expected = reference(e, f, rules)
    for pred, arity in (("d1", 1), ("d2", 2)):
        assert set(top_down.query(pred, [None] * arity)) == expected[pred], text_of(e, f, rules)
        assert set(bottom_up.query(pred, [None] * arity)) == expected[pred], text_of(e, f, rules)


def test_count_of_an_empty_group_is_zero_and_max_has_no_value():
    kb = load(HEADER + "@pred c(x: b, n: int).\n@pred m(x: b, n: int).\n@pred g(x: b, y: b, n: int).\n"
              "f(子). f(丑). e(子, 丑). e(子, 寅). g(子, 丑, 4). g(子, 寅, 7).\n"
              "c(X, N) :- f(X), N = count Y : { e(X, Y) }.\n"
              "m(X, N) :- f(X), N = max K : { g(X, _, K) }.\n")
    for engine in (PyDatalog(kb), Materialisation(kb)):
        assert engine.query("c", [None, None]) == [("丑", 0), ("子", 2)]
        assert engine.query("m", [None, None]) == [("子", 7)]


def test_arithmetic_with_mod_and_negative_numbers():
    kb = load("@pred i(x: int).\n@pred r(x: int, y: int).\ni(1). i(5).\nr(X, Y) :- i(X), Y = (X - 7) mod 12.\n")
    assert PyDatalog(kb).query("r", [None, None]) == Materialisation(kb).query("r", [None, None]) == [(1, 6), (5, 10)]


def test_an_atom_of_constants_and_bound_variables_is_looked_up_in_its_relation():
    """An atom (or negation) whose every argument is a constant or already bound is a row looked up
    in the relation itself: the same answers as the reference engine, and no table nor constant index
    is built on the relation for it."""
    kb = load(HEADER + "@pred t(x: b, y: b, z: b).\n"
              "f(子). f(丑). e(子, 丑). e(丑, 丑). e(子, 子). e(寅, 子).\n"
              "t(子, 子, 丑). t(丑, 子, 丑). t(丑, 丑, 子). t(寅, 丑, 子).\n"
              "d1(X) :- f(X), e(X, 丑).\n"
              "d2(X, Y) :- e(X, Y), t(X, 子, Y), not t(Y, 丑, X).\n"
              "d2(X, X) :- f(X), e(子, X), not e(X, 寅), not t(寅, 子, 子).\n")
    bottom_up, top_down = Materialisation(kb), PyDatalog(kb)
    assert bottom_up.query("d1", [None]) == top_down.query("d1", [None]) == [("丑",), ("子",)]
    assert bottom_up.query("d2", [None, None]) == top_down.query("d2", [None, None]) == [("丑", "丑"), ("子", "子")]
    kinds = {op.kind for rules, _ in bottom_up.plan.static for rule in rules for op in rule.body.ops}
    assert {"member", "absent"} <= kinds
    assert not [key for key in bottom_up.store._tables if key[0] in ("e", "t")]


def test_two_knowledge_bases_live_side_by_side():
    inputs = "@kind b: 子 丑 寅.\n@pred f(x: b) input.\n@pred d1(x: b).\n"
    one = PyDatalog(load(inputs + "f(子).\nd1(X) :- f(X).\n"))
    two = PyDatalog(load(inputs + "f(丑).\nd1(X) :- f(X).\n"))
    one.add_fact("f", ["寅"], "test")
    assert one.query("d1", [None]) == [("子",), ("寅",)]
    assert two.query("d1", [None]) == [("丑",)]
    assert one.query("d1", [None]) == [("子",), ("寅",)]


def test_a_declared_relation_without_facts_or_rules_is_empty():
    kb = PyDatalog(load(HEADER + "e(子, 子).\nd1(X) :- e(X, X), not f(X).\n"))
    assert kb.query("f", [None]) == []
    assert kb.query("d1", [None]) == [("子",)]


def test_only_input_relations_take_facts_at_run_time():
    kb = PyDatalog(load(HEADER + "f(子).\nd1(X) :- f(X).\n"))
    with pytest.raises(InputError, match="f is not an input relation"):
        kb.add_fact("f", ["丑"], "test")


def test_recursive_closure_bottom_up_and_top_down():
    kb = load("@kind b: 子 丑 寅 卯.\n@pred e(x: b, y: b).\n@pred t(x: b, y: b).\n"
              "e(子, 丑). e(丑, 寅). e(寅, 卯).\nt(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n")
    expected = [(a, b) for i, a in enumerate("子丑寅卯") for b in "子丑寅卯"[i + 1:]]
    assert sorted(PyDatalog(kb).query("t", [None, None])) == sorted(Materialisation(kb).query("t", [None, None])) == sorted(expected)


def test_bottom_up_bindings_follow_the_fire_relations(session):
    """A binding's places are the fire relation's arguments, so fire tuples read back as proofs."""
    from liuren_logic.datalog.evaluate import _Rule

    for compiled in session.kb.rules:
        slots = _Rule(compiled).body.slots
        assert tuple(slots) == compiled.variables and list(slots.values()) == list(range(len(slots))), compiled.rule.id


AGGREGATES = """@kind b: 子 丑 寅.
@pred e(x: b, y: b).
@pred f(x: b).
@pred n(x: b, k: int).
@pred c(x: b, k: int).
@pred m(x: b, k: int).
@pred s(x: b, k: int).
@pred g(x: b).
@pred h(x: b, y: b).
c(X, K) :- f(X), K = count Y : { e(X, Y) }.
m(X, M) :- f(X), M = max K : { n(X, K) }.
s(X, T) :- f(X), T = sum K : { n(X, K) }.
g(X) :- c(X, K), K >= 2.
h(X, Y) :- e(X, Y), not g(Y), c(Y, K), K < 3, J = (K + 1) mod 3, J != 0.
"""


@settings(max_examples=25, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(DOMAIN), st.sampled_from(DOMAIN)), max_size=7),
       st.sets(st.sampled_from(DOMAIN), max_size=3),
       st.sets(st.tuples(st.sampled_from(DOMAIN), st.integers(0, 5)), max_size=6))
def test_aggregates_negation_and_arithmetic_agree_with_a_reference(e, f, n):
    facts = [f"e({a}, {b})." for a, b in sorted(e)] + [f"f({a})." for a in sorted(f)] + \
            [f"n({a}, {k})." for a, k in sorted(n)]
    kb = load(AGGREGATES + "\n".join(facts) + "\n")
    count = {x: len({y for a, y in e if a == x}) for x in f}
    values = {x: {k for a, k in n if a == x} for x in f}
    expected = {
        "c": set(count.items()),
        "m": {(x, max(v)) for x, v in values.items() if v},
        "s": {(x, sum(v)) for x, v in values.items() if v},
        "g": {(x,) for x, k in count.items() if k >= 2},
    }
    expected["h"] = {(x, y) for x, y in e if (y,) not in expected["g"] and y in count
                     and count[y] < 3 and (count[y] + 1) % 3 != 0}
    bottom_up, top_down = Materialisation(kb), PyDatalog(kb)
    for pred, rows in expected.items():
        arity = len(next(iter(rows))) if rows else (1 if pred == "g" else 2)
        assert set(top_down.query(pred, [None] * arity)) == rows, (pred, facts)
        assert set(bottom_up.query(pred, [None] * arity)) == rows, (pred, facts)


def test_a_segment_gives_the_bindings_of_its_literals_one_by_one(session):
    """A run of chart-independent literals evaluated as one operation (a segment, once per distinct
    case) gives the bindings its literals give one by one, each as often. Not in the same order:
    the tails a segment keeps (the memo pass) come in the order of the batch that first found them,
    which another base of the same rules (a school evaluated afresh in this process) may have set."""
    from liuren_logic.datalog.evaluate import _Body

    facts = [fact for day, offset in (("甲子", 3), ("丁未", 0), ("辛巳", 8))
             for fact in session.offset_input(day, offset).facts()]
    batch = session.base.extend(facts).evaluate_all()
    segmented = [rule for rules, _ in batch.plan.dynamic for rule in rules
                 if any(op.kind == "segment" for op in rule.body.ops)]
    assert len(segmented) > 100
    for rule in segmented:
        _, values = rule.aggregates(batch.store)
        one_by_one = _Body(rule.compiled.body, rule.compiled.aggregates)
        assert Counter(map(tuple, rule.body.run(batch.store, values))) \
            == Counter(map(tuple, one_by_one.run(batch.store, values))), rule.compiled.rule.id


def test_a_segment_keeps_the_tails_of_each_start_for_every_batch_up_to_its_cap(session, monkeypatch):
    """A segment reads only chart-independent relations, so the tails it finds for a start serve every
    batch of the program after: a batch that finds them kept gives the bindings one that computes
    them gives. A full memo (``SEGMENT_MEMO``) takes no more starts, and the bindings stay the same."""
    facts = [fact for day, offset in (("乙丑", 4), ("戊戌", 6)) for fact in session.offset_input(day, offset).facts()]
    batch = session.base.extend(facts).evaluate_all()
    segmented = [(rule, [op.memo.of(batch.store) for op in rule.body.ops if op.kind == "segment"])
                 for rules, _ in batch.plan.dynamic for rule in rules]
    segmented = [(rule, memos) for rule, memos in segmented if memos]
    kept = {rule: list(rule.body.run(batch.store, rule.aggregates(batch.store)[1])) for rule, _ in segmented}
    assert sum(len(memo) for _, memos in segmented for memo in memos) > 100
    monkeypatch.setattr("liuren_logic.datalog.passes.memo.SEGMENT_MEMO", 0)
    for rule, memos in segmented:
        for memo in memos:
            memo.clear()
        assert list(rule.body.run(batch.store, rule.aggregates(batch.store)[1])) == kept[rule], rule.compiled.rule.id
        assert not any(memos)


def test_every_constant_a_batch_reads_is_one_its_index_holds(session, monkeypatch):
    """A constant read over a relation (a recursive round's new tuples included) comes from the index
    of the constants the rules ask there, built once, not from a scan of the relation for each."""
    from liuren_logic.datalog.store import Store

    asked, holding = [], Store._holding

    def recording(store, pred, consts):
        where, values = tuple(p for p, _ in consts), tuple(v for _, v in consts)
        asked.append((values[0] if len(values) == 1 else values) in store.asked.get((pred, where), ()))
        return holding(store, pred, consts)
    monkeypatch.setattr(Store, "_holding", recording)
    facts = [fact for day, offset in (("甲子", 3), ("丁未", 0)) for fact in session.offset_input(day, offset).facts()]
    session.base.extend(facts).evaluate_all()
    assert len(asked) > 100 and all(asked)


def planning_facts(session) -> list:
    """The input facts of a batch just large enough to plan its join orders."""
    from liuren_logic.datalog.passes.join_order import PLAN_FROM

    return [fact for k in range(PLAN_FROM) for fact in session.offset_input(("甲子", "丁未", "辛巳")[k % 3], k % 12).facts()]


def test_every_join_order_a_batch_may_plan_derives_the_same_heads(session):
    """Each move :meth:`JoinOrders.planned` may make (a lookup, a smaller table, a run first, a probe) derives,
    over a batch large enough to plan, the heads the rule's own order derives."""
    batch = session.base.extend(planning_facts(session)).evaluate_all()
    assert batch.planning
    kinds = set()
    for rule in (rule for rules, recursive in batch.plan.dynamic if not recursive for rule in rules):
        _, values = rule.aggregates(batch.store)
        own = set(rule.heads(rule.run(rule.body, batch.store, values)))
        for move in rule.join_orders.moves(rule):
            body, heads, _ = rule.join_orders.order(rule, (move,))
            assert set(heads(rule.run(body, batch.store, values))) == own, (rule.compiled.rule.id, move)
            kinds.add(move[0])
    assert kinds == {"lookup", "smaller", "first", "probe"}


def test_a_batch_that_plans_forgets_the_tables_no_stratum_left_reads(session):
    """Once the strata that read a relation are evaluated, a planning batch drops the relation's
    tables; a why reading one builds it again, with the fire tuples of a batch that kept them."""
    from liuren_logic.datalog.passes.collector import Paused

    facts = planning_facts(session)
    batch = session.base.extend(facts)
    batch.query("initial", [None, None])
    left = {pred for pred, count in batch.collector.unread.items() if count}
    assert {spec[0] for spec in batch.store._tables} <= left
    batch.evaluate_all()
    assert not batch.store._tables
    kept = session.base.extend(facts)
    kept.collector = Paused(kept.store)  # the collector pass without its forgetting
    kept.evaluate_all()
    assert kept.store._tables
    for rule in (rule for rules, recursive in batch.plan.dynamic if not recursive for rule in rules
                 if rule.compiled.rule.head.pred in ("initial", "pattern", "general_ride")):
        fire = rule.compiled.fire
        assert batch.query(fire, [None] * len(rule.compiled.variables)) == \
            kept.query(fire, [None] * len(rule.compiled.variables)), rule.compiled.rule.id
