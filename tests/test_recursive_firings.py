"""Firings of recursive rules are not kept: found again, with the head's values bound, when a why asks.

They must be exactly the firings the evaluation found in its rounds. Two references: pyDatalog's
own answers for the fire relations of random programs, and, for the KB's recursive strata, the
whole body run over the finished store (every firing, filtered by the head asked).
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic import Session
from liuren_logic.datalog import syntax as S
from liuren_logic.datalog.checker import check
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.datalog.evaluate import Limits, Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.provenance import Explainer
from liuren_logic.datalog.semantics import EvaluationLimit

DOMAIN = ("子", "丑", "寅", "卯")
# a cycle of three relations (a → p → q → a) with right recursion, a negation and an aggregate
# over the lower strata inside it, and a constant in a head; e is a chart's input
CYCLE = """@kind b: 子 丑 寅 卯.
@pred e(x: b, y: b) input.
@pred s(x: b).
@pred a(x: b, y: b).
@pred p(x: b, y: b).
@pred q(x: b, y: b).
s(X) :- e(X, X).
a(X, Y) :- e(X, Y), not s(X).
a(X, Z) :- e(X, Y), q(Y, Z).
p(X, Y) :- a(X, Y), K = count Z : { e(Y, Z) }, K < 3.
q(X, Y) :- p(X, Y).
q(X, 子) :- p(X, Y), s(Y).
"""


def load(text: str) -> KnowledgeBase:
    return KnowledgeBase(check([parse(text, "t.dl")]))


def head_pattern(compiled, args) -> "list | None":
    """The fire relation's pattern for a head tuple, as the explainer asks it (None: another head)."""
    binding = {}
    for term, value in zip(compiled.rule.head.args, args):
        if isinstance(term, S.Const) and term.value != value or binding.setdefault(getattr(term, "name", ""), value) != value:
            return None
    return [binding.get(name) for name in compiled.variables]


def check_firings(kb, rules) -> None:
    """Each rule's firings asked with a head bound are those of its whole fire relation with that head."""
    for compiled in rules:
        whole = kb.query(compiled.fire, [None] * len(compiled.variables))
        asked = []
        for args in kb.query(compiled.rule.head.pred, [None] * len(compiled.rule.head.args)):
            pattern = head_pattern(compiled, args)
            if pattern is not None:
                found = kb.query(compiled.fire, pattern)
                assert found == [row for row in whole if all(v in (None, w) for v, w in zip(pattern, row))]
                asked += found
        assert sorted(asked) == whole, compiled.rule.id


@settings(max_examples=20, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(DOMAIN), st.sampled_from(DOMAIN)), max_size=8))
def test_firings_of_a_recursive_stratum_are_pydatalogs(edges):
    top_down = PyDatalog(load(CYCLE))
    for x, y in sorted(edges):
        top_down.add_fact("e", [x, y], "given")
    bottom_up = Materialisation(load(CYCLE)).extend([("e", [x, y], "given") for x, y in sorted(edges)])
    recursive = [c for c in bottom_up.kb.rules if c.rule.head.pred in "apq"]
    for compiled in recursive:  # a fire relation read first: its stratum is evaluated then
        pattern = [None] * len(compiled.variables)
        assert bottom_up.query(compiled.fire, pattern) == top_down.query(compiled.fire, pattern), compiled.rule.id
    assert not {c.fire for c in recursive} & set(bottom_up.store.relations)  # none kept
    check_firings(bottom_up, recursive)


def test_the_kbs_recursive_strata_answer_whys_from_firings_found_when_asked():
    session = Session()  # its own: every head of the shared session's hundreds of charts would be asked
    chart = session.cast("辛巳", "寅", "午")
    kb = session.explainer(chart.id).kb
    recursive = {p for members, is_recursive in kb.program.strata() if is_recursive for p in members}
    assert {"lesson", "trine"} <= recursive  # a stratum of each batch, and one of the school's
    check_firings(kb, [c for pred in sorted(recursive) for c in kb.rules_for.get(pred, ())])
    fresh = Explainer(kb)
    lesson = fresh.why("lesson", kb.query("lesson", [chart.id, 4, None, None])[0])
    assert {lesson.nodes[n]["pred"] for n in lesson if lesson.nodes[n]["kind"] == "atom"} >= {"lesson", "tianpan"}


def test_only_kept_tuples_count_and_firings_found_are_bounded_naming_the_rule():
    text = ("@kind b: 子 丑 寅.\n@pred e(x: b, y: b).\n@pred t(x: b, y: b).\n"
            + " ".join(f"e({x}, {y})." for x in "子丑寅" for y in "子丑寅")
            + "\nt(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n")
    whole = Materialisation(load(text))
    assert whole.added == 9 and whole.found == 9 + 27  # t's tuples; the firings of both rules
    assert len(whole.query("Fire_1", [None, None, None])) == 27
    with pytest.raises(EvaluationLimit, match=r"rule t\.6 \(t\.dl:6:1\): Fire_1 grew past the limit of 20 "
                                              r"firings found in recursion"):
        Materialisation(load(text), limits=Limits(firings=20))


def test_a_semi_naive_round_reads_what_is_new_not_the_whole_relation(monkeypatch):
    """A chain's closure: the rows of t read over all rounds stay within a few times t's final size
    (a pass over the whole relation each round would read about a third of the rounds times it)."""
    from liuren_logic.datalog.store import Store

    read = []

    class Watched(dict):
        def __iter__(self):
            read.append(len(self))
            return super().__iter__()

    rows = Store.rows
    monkeypatch.setattr(Store, "rows", lambda held, pred: Watched(rows(held, pred)) if pred == "t" else rows(held, pred))
    edges = 60
    text = ("@pred e(x: int, y: int).\n@pred t(x: int, y: int).\n" + " ".join(f"e({i}, {i + 1})." for i in range(edges))
            + "\nt(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n")
    closure = Materialisation(load(text)).query("t", [None, None])
    assert len(closure) == edges * (edges + 1) // 2
    assert sum(read) <= 3 * len(closure), sum(read)


def test_a_round_builds_no_table_again(monkeypatch):
    """t and r recurse through each other and are read through tables: each round adds its new rows
    to the tables (rows put in tables stay within twice the closure; built again each round, 41,480)."""
    from liuren_logic.datalog import store

    built = []
    table = store._table
    monkeypatch.setattr(store, "_table", lambda rows, *rest: built.append(len(rows)) or table(rows, *rest))
    edges = 60
    text = ("@pred e(x: int, y: int).\n@pred t(x: int, y: int).\n@pred r(x: int).\n" +
            " ".join(f"e({i}, {i + 1})." for i in range(edges)) +
            "\nr(0).\nt(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z), r(Y).\nr(Y) :- t(0, Y).\n")
    evaluated = Materialisation(load(text))
    size = len(evaluated.query("t", [None, None]))
    assert size == edges * (edges + 1) // 2 and evaluated.query("r", [None]) == [(i,) for i in range(edges + 1)]
    assert sum(built) <= 2 * size, sum(built)


@pytest.mark.parametrize("filters", ["", ", N = 1, N > 0"])
def test_a_round_starts_from_few_new_tuples_with_the_same_answers(monkeypatch, filters):
    """t and s recurse through each other: the body reading s's new tuples starts from them (a few a
    round), not from e and t joined whole each round, so the bindings its joins build stay within a
    few times the firings found; in the rule's own order (the pass off), many times more. The
    relations and the firings found are the same either way. A filter that needs no binding
    (``N = 1``) does not take the new tuples' place at the body's start."""
    from liuren_logic.datalog import operations
    from liuren_logic.datalog.passes import ALL, Passes

    edges = 60
    text = ("@pred e(x: int, y: int).\n@pred t(x: int, y: int).\n@pred s(x: int).\n" +
            " ".join(f"e({i}, {i + 1})." for i in range(edges)) +
            f"\nt(X, Y) :- e(X, Y).\nt(X, Z) :- e(X, Y), t(Y, Z), s(Y){filters}.\ns(X) :- t(X, _).\n")
    joined, join = [], operations.Join.apply
    monkeypatch.setattr(operations.Join, "apply", lambda op, bindings, *rest: joined.append(
        len(found := join(op, bindings, *rest))) or found)
    results = {}
    for passes in (ALL, Passes(delta_first=False)):
        joined.clear()
        evaluated = Materialisation(load(text), passes=passes)
        results[passes] = (evaluated.query("t", [None, None]), evaluated.query("s", [None]), evaluated.found,
                           sum(joined))
    (t, s, found, first), (*plain, own) = results.values()
    assert len(t) == edges * (edges + 1) // 2 and [t, s, found] == plain
    assert first <= 3 * found < own, (first, found, own)


def test_a_body_started_from_its_new_tuples_joins_each_atom_to_those_before():
    """hmmer's rule read from the new r_memory: r_is_ptr, which shares P with it, comes before r_load
    (read right after it, r_load's every row made a binding with each new tuple: 8.6 million in one
    step); a filter still comes right after the atoms that bind its variables. Both engines read a
    round's new tuples in this order (the pyDatalog backend's delta fire relations too)."""
    from liuren_logic.datalog.passes.delta_first import read_first

    kb = load("@pred l(d: int, a: int).\n@pred p(a: int, o: int).\n@pred m(a: int, o: int).\n@pred g(a: int).\n"
              "p(D, O) :- l(D, A), p(A, P), m(P, O), not g(D).\nm(A, O) :- p(A, O).\n")
    body = next(c for c in kb.rules if c.rule.head.pred == "p").body
    assert list(map(str, body)) == ["l(D, A)", "not g(D)", "p(A, P)", "m(P, O)"]  # the rule's own order
    assert list(map(str, read_first(body, 3))) == ["m(P, O)", "p(A, P)", "l(D, A)", "not g(D)"]
