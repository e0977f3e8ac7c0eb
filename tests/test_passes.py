"""Every optimisation of the bottom-up engine (liuren_logic/datalog/passes/) changes only what an
evaluation costs: with all passes on and with all off, the same answers and the same derivations
(every fire relation and aggregate helper) on the KB's 720-chart table, the conformance cases and
random programs; and each pass alone off, on a program where it changes the work done, the same
answers with the work it spares measured (a broken pass fails its own test: the commit that added
these says which break each was tried with)."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic import Session
from liuren_logic.datalog.checker import check
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.passes import ALL, NONE, Passes
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


# Each pass alone off, on a program where it changes the work done: the work it spares is
# measured, and every relation, fire relation and aggregate helper compared with all passes on.
# A chart's chain e (CHAIN edges) and its pairs a, b (the same on every chart); chart-independent
# f, g and cut. h reads a run of f and g after b (segments, and their memo across batches); m
# reads a few a rows and many b rows (join_order: b first, each row looked up in a); t and s
# recurse, s a tuple or two a round (delta_first); each has a filter a broken pass may drop.
CHAIN, CHARTS = 30, 2 * PLAN_FROM
ALONE = f"""@pred e(c: int, x: int, y: int) input.
@pred a(c: int, x: int) input.
@pred b(c: int, x: int, y: int) input.
@pred f(x: int, y: int).
@pred g(x: int).
@pred cut(x: int, y: int).
@pred h(c: int, x: int, z: int).
@pred m(c: int, y: int).
@pred t(c: int, x: int, y: int).
@pred s(c: int, x: int).
{" ".join(f"f({y}, {z})." for y in range(CHAIN + 1) for z in (y, y + 1, 2 * y % CHAIN))}
{" ".join(f"g({x})." for x in range(0, CHAIN + 1, 3))}
cut(3, 7). cut(4, 9). cut(10, 20).
h(C, X, Z) :- b(C, X, Y), f(Y, Z), g(Z).
h(C, X, Z) :- b(C, X, Y), f(Y, Z), not g(Y), Y != Z.
m(C, Y) :- a(C, X), b(C, X, Y), not g(Y).
t(C, X, Y) :- e(C, X, Y).
t(C, X, Z) :- e(C, X, Y), t(C, Y, Z), s(C, Y), not cut(Y, Z).
s(C, Y) :- t(C, 0, Y).
"""


def alone_facts(charts: range, chained: int = 2) -> list:
    """The input facts of these charts: the chain on the first ``chained`` (the recursion's), a, b on each."""
    chain = [("e", (c, x, x + 1), "given") for c in charts[:chained] for x in range(CHAIN)]
    return chain + [fact for c in charts for fact in [("a", (c, c % 5), "given")] +
                    [("b", (c, x, y), "given") for x in range(5) for y in range(x, x + 6)]]


@pytest.fixture
def made(monkeypatch) -> Counter:
    """The bindings each kind of operation makes while the test runs (its output's length, summed),
    the rows put in tables (``tabled``) and the starts segments find tails for (``starts``)."""
    from liuren_logic.datalog import operations, store
    from liuren_logic.datalog.passes import segments
    from liuren_logic.datalog.passes.segments import Segment

    counts = Counter()
    table, by_start = store._table, segments._by_start
    monkeypatch.setattr(store, "_table", lambda rows, *rest: counts.update(tabled=len(rows)) or table(rows, *rest))
    monkeypatch.setattr(segments, "_by_start", lambda found, width, starts:
                        counts.update(starts=len(starts)) or by_start(found, width, starts))
    for kind in [Segment, *operations.Operation.__subclasses__(), *operations._AtomOperation.__subclasses__()]:
        if "apply" in vars(kind):
            monkeypatch.setattr(kind, "apply", _counted(kind.apply, kind.kind, counts))
    return counts


def _counted(apply, kind: str, counts: Counter):
    def counting(op, bindings, *rest):
        found = apply(op, bindings, *rest)
        counts[kind] += len(found)
        return found
    return counting


def alone_off(name: str, made: Counter) -> tuple[Counter, Counter, list]:
    """Every answer with all passes on and with the pass ``name`` alone off, over a batch of CHARTS
    charts, compared; the work each evaluation did (``made``) and the two batches."""
    answers, work, batches = {}, {}, []
    for passes in (ALL, Passes(**{name: False})):
        made.clear()
        evaluated = batch(KnowledgeBase(check([parse(ALONE, "alone.dl")])), alone_facts(range(CHARTS)), passes)
        work[passes], batches = Counter(made), batches + [evaluated]
        answers[passes] = everything(evaluated)
    (on, off), (work_on, work_off) = answers.values(), work.values()
    assert on == off and on["h"] and on["m"] and len(on["t"]) > 2 * CHAIN, name
    return work_on, work_off, batches


def test_segments_alone_off(made):
    """A segment joins f and g once per distinct value of b's Y (10), not once per chart's row (1,440)."""
    on, off, (segmented, plain) = alone_off("segments", made)
    assert any(op.kind == "segment" for rules, _ in segmented.plan.dynamic for rule in rules for op in rule.body.ops)
    assert not any(op.kind == "segment" for rules, _ in plain.plan.dynamic for rule in rules for op in rule.body.ops)
    assert 0 < on["starts"] <= 2 * 10 and 5 * on["join"] < off["join"], (on, off)


def test_the_memo_keeps_tails_per_root_store_so_a_shared_rule_answers_each_school_its_own():
    """A rule prepared once may serve two schools (their chart-independent relations may differ): the
    tails a segment keeps are one table for a store and the stores that sit on it, another for
    another root."""
    from liuren_logic.datalog.passes import memo
    from liuren_logic.datalog.store import Store

    one, two = Store(), Store()
    kept = memo.tails(ALL)
    chart = Store(one)
    assert kept.of(chart) is kept.of(one) is kept.of(Store(chart)) and kept.of(two) is not kept.of(one)
    kept.of(one).joined({(1,): [(10,)]})
    assert kept.of(chart)[(1,)] == [(10,)] and (1,) not in kept.of(two)
    unkept = memo.tails(Passes(memo=False))
    assert unkept.of(one) is not unkept.of(one) and unkept.of(one).joined({(1,): []}) == {(1,): []}


def test_memo_alone_off(made):
    """A later batch of the program reads the tails its segments kept, and joins f and g for no start."""
    kb = KnowledgeBase(check([parse(ALONE, "alone.dl")]))
    later = {}
    for passes in (ALL, Passes(memo=False)):
        base = Materialisation(kb, passes=passes)
        base.extend(alone_facts(range(4))).evaluate_all()
        made.clear()
        evaluated = base.extend(alone_facts(range(4, 8))).evaluate_all()
        work = Counter(made)
        later[passes] = everything(evaluated), work
    (kept, on), (computed, off) = later.values()
    assert kept == computed and kept["h"]
    assert on["segment"] == off["segment"] > 0 and on["starts"] == 0 < off["starts"], (on, off)


def test_join_order_alone_off(made):
    """m is derived from b's rows, each looked up in a (whose rows are a sixth of b's), not from a's
    rows joined to a table built on b."""
    on, off, (planned, own) = alone_off("join_order", made)
    assert planned.planning and not own.planning
    assert on["tabled"] + CHARTS * 5 * 6 <= off["tabled"], (on, off)  # no table of b's rows
    assert 2 * on["join"] < off["join"], (on, off)


def test_delta_first_alone_off(made):
    """A round reads the body whose s is new from its new tuples (a tuple or two a round), not from e
    and t joined whole; the firings found are the same."""
    on, off, (first, own) = alone_off("delta_first", made)
    assert first.found == own.found > 0
    assert 3 * on["join"] < off["join"], (on, off)


def test_collector_alone_off():
    """With the pass, the collector waits while the batch evaluates, its relations are settled after,
    and the tables no stratum left reads are dropped; without it, collections run and all stay."""
    import gc

    collections, batches = [], []
    for passes in (ALL, Passes(collector=False)):
        evaluated = Materialisation(KnowledgeBase(check([parse(ALONE, "alone.dl")])), passes=passes) \
            .extend(alone_facts(range(CHARTS), chained=CHARTS))
        before = gc.get_stats()[0]["collections"]
        evaluated.evaluate_all()
        collections.append(gc.get_stats()[0]["collections"] - before)
        batches.append(evaluated)
    (paused, running), (collected, plain) = collections, batches
    assert paused <= 1 < running, collections
    assert collected.store._settled and not plain.store._settled
    assert not collected.store._tables and plain.store._tables
    assert everything(collected) == everything(plain)
