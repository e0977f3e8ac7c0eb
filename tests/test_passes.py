"""Every optimisation of the bottom-up engine (liuren_logic/datalog/passes.py) changes only what an evaluation
costs: with all passes on and with all off, the same answers and the same derivations (every fire
relation and aggregate helper) on the KB's 720-chart table, the conformance cases and random programs."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic import Session
from liuren_logic.datalog.checker import check
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.passes import ALL, NONE
from liuren_logic.datalog.passes.join_order import PLAN_FROM


def everything(materialisation: Materialisation) -> dict:
    """Every relation, fire relation and aggregate helper of the program, as the engine answers it."""
    kb = materialisation.kb
    names = [*kb.program.preds, *(c.fire for c in kb.rules),
             *(agg.helper for c in kb.rules for agg in c.aggregates.values())]
    return {name: materialisation.query(name, [None] * kb.arity[name]) for name in names}


def batch(kb: KnowledgeBase, facts: list, passes) -> Materialisation:
    return Materialisation(kb, passes=passes).extend(facts).evaluate_all()


def test_the_720_chart_table_is_the_same_with_every_pass_and_with_none():
    session = Session()
    source = session.table()[0]._source
    facts = [(pred, args, origin) for (pred, args), origin in source.origins.maps[0].items()]
    assert len(facts) >= 720 * 3 and source.planning  # a batch that plans: join orders are chosen
    optimised = batch(session.loaded, facts, ALL)
    plain = batch(session.loaded, facts, NONE)
    assert not plain.planning and all(op.kind != "segment" for stratum, _ in plain.plan.dynamic for rule in stratum
                                      for op in rule.body.ops)
    assert any(op.kind == "segment" for stratum, _ in optimised.plan.dynamic for rule in stratum for op in rule.body.ops)
    assert everything(optimised) == everything(plain)


def test_the_conformance_cases_are_the_same_with_every_pass_and_with_none():
    pytest.importorskip("datalog_conformance", reason="the test extra's datalog-conformance is not installed")
    from conformance import HEAVY, core_cases, translate  # noqa: E402  (tests/conformance.py)
    from liuren_logic.domain.errors import KBError
    from liuren_logic.datalog.semantics import EvaluationLimit

    compared = 0
    for _, case in core_cases(HEAVY):  # the heavy files are not even parsed, as in test_conformance
        try:
            kb = KnowledgeBase(check([parse(translate(case), "case.dl")]))
            optimised = everything(Materialisation(kb, passes=ALL))
        except (KBError, EvaluationLimit):
            continue
        assert everything(Materialisation(kb, passes=NONE)) == optimised, case.name
        compared += 1
    assert compared >= 70


# a chart's relation e, chart-independent f and g: rules that make segments (f, g after e), join
# orders (a lookup, a smaller table, a run first), recursion, negation and an aggregate
PROGRAM = """@kind b: 子 丑 寅 卯.
@pred e(c: b, x: b, y: b) input.
@pred f(x: b, y: b).
@pred g(x: b).
@pred h(c: b, x: b, y: b).
@pred k(c: b, x: b).
"""
RULES = ["h(C, X, Z) :- e(C, X, Y), f(Y, Z), g(Z).",
         "h(C, X, Z) :- e(C, X, Y), f(Y, Z), not g(Y), Y != Z.",
         "h(C, X, Z) :- h(C, X, Y), e(C, Y, Z).",
         "h(C, X, Z) :- e(C, X, Y), h(C, Y, Z), not g(X).",
         "k(C, X) :- e(C, X, _), f(X, Y), f(Y, X), X != Y.",
         "k(C, X) :- e(C, X, Y), e(C, Y, X).",
         "k(C, X) :- e(C, X, Y), f(X, Y).",
         "k(C, X) :- e(C, X, Y), N = count Z : { f(Y, Z) }, N > 1.",
         "k(C, Y) :- e(C, 子, Y), e(C, X, Y), g(X)."]
BRANCHES = "子丑寅卯"
PAIRS = st.lists(st.tuples(st.sampled_from(BRANCHES), st.sampled_from(BRANCHES)), max_size=12, unique=True)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(RULES), min_size=1, max_size=5, unique=True), PAIRS,
       st.lists(st.sampled_from(BRANCHES), max_size=3, unique=True),
       st.lists(st.tuples(*[st.sampled_from(BRANCHES)] * 3), max_size=PLAN_FROM + 16, unique=True))
def test_random_programs_are_the_same_with_every_pass_and_with_none(rules, f, g, e):
    text = PROGRAM + " ".join(f"f({x}, {y})." for x, y in f) + " " + " ".join(f"g({x})." for x in g) + \
        "\n" + "\n".join(rules) + "\n"
    kb = KnowledgeBase(check([parse(text, "t.dl")]))
    facts = [("e", row, "given") for row in e]
    optimised = batch(kb, facts, ALL)
    assert optimised.planning == (len(e) >= PLAN_FROM)
    if RULES[0] in rules:  # f, g after e: one segment
        assert any(op.kind == "segment" for stratum, _ in optimised.plan.dynamic for rule in stratum for op in rule.body.ops)
    assert everything(batch(kb, facts, NONE)) == everything(optimised)
