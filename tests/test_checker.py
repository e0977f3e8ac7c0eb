"""Each class of checker error, with the exact line and column it is reported at."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liuren_logic.datalog.checker import check, pydatalog_problems, warnings
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.domain.errors import KBError
from liuren_logic.datalog.evaluate import Limits, Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.semantics import EvaluationLimit

HEADER = """@kind b: 子 丑 寅.
@kind s: 甲 乙.
@pred e(x: b, y: b).
@pred p(x: b).
@pred q(x: b).
@pred t(x: b, y: b).
@pred n(x: int).
@pred st(x: s).
"""


def problems(body: str) -> list:
    with pytest.raises(KBError) as caught:
        check([parse(HEADER + body, "t.dl")])
    return caught.value.problems


def where(problem) -> tuple[int, int]:
    return problem.position.line - HEADER.count("\n"), problem.position.col


def test_a_clean_program_passes():
    program = check([parse(HEADER + "e(子, 丑).\np(X) :- e(X, _), not q(X).\n", "t.dl")])
    assert len(program.rules) == 1 and len(program.facts) == 1


@pytest.mark.parametrize("body, line, col, words", [
    ("p(X) :- r(X).", 1, 9, "undeclared predicate r"),
    ("p(X) :- pp(X).", 1, 9, "did you mean p?"),
    ("p(X) :- e(X).", 1, 9, "e takes 2 arguments (x, y), not 1"),
    ("p(Y) :- q(X).", 1, 3, "variable Y in the head is not bound"),
    ("p(X) :- q(X), not e(X, Y).", 1, 24, "variable Y under 'not' is not bound"),
    ("p(X) :- q(X), Y < 3.", 1, 15, "variable Y in a comparison is not bound"),
    ("p(卯).", 1, 3, "卯 is not a b"),
    ("n(子).", 1, 3, "is a number"),
    ("p(X) :- q(X), st(X).", 1, 18, "variable X is a s here but a b at"),
    ("p(X).", 1, 3, "a fact must be ground"),
    ("p(X) :- q(X), e(X + 1, X).", 1, 17, "arithmetic cannot stand inside e"),
    ("p(_) :- q(X).", 1, 3, "'_' cannot stand in a rule's head"),
])
def test_each_error_class_at_its_position(body, line, col, words):
    found = problems(body)
    assert any(where(p) == (line, col) and words in p.message for p in found), [str(p) for p in found]


def test_duplicate_rule_ids():
    found = problems('@rule a.b zh "x".\np(X) :- q(X).\n@rule a.b zh "y".\nq(X) :- p(X), e(X, _).\n')
    assert any("rule id a.b is already used at t.dl:10" in p.message and where(p) == (4, 1) for p in found)


def test_negation_through_recursion_is_rejected_with_the_cycle():
    found = problems("p(X) :- q(X), not p(X).")
    assert [where(p) for p in found] == [(1, 19)]
    assert "negation or aggregate through recursion: p → p" in found[0].message


def test_aggregate_through_recursion_is_rejected():
    found = problems("n(N) :- N = count X : { p(X) }.\np(X) :- q(X), n(N), N > 0.")
    assert any("through recursion" in p.message for p in found)


def test_right_recursion_over_a_cyclic_relation_is_answered_by_both_engines():
    ring = " ".join(f"e({a}, {b})." for a, b in zip("子丑寅", "丑寅子"))
    program = check([parse(HEADER + ring + "\nt(X, Z) :- e(X, Y), t(Y, Z).\nt(X, Y) :- e(X, Y).", "t.dl")])
    kb = KnowledgeBase(program)
    top_down = PyDatalog(kb)
    assert top_down.query("t", [None, None]) == Materialisation(kb).query("t", [None, None])
    assert len(top_down.query("t", [None, None])) == 9 and pydatalog_problems(program) == []


def test_right_recursion_with_a_constant_in_the_step():
    text = ("@pred flight(a: text, x: text, y: text).\n@pred va(x: text, y: text).\n"
            'flight("VA", "a", "b"). flight("VA", "b", "a"). flight("QA", "c", "c").\n'
            'va(X, Y) :- flight("VA", X, Y).\nva(X, Y) :- flight("VA", X, Z), va(Z, Y).\n')
    kb = KnowledgeBase(check([parse(text, "t.dl")]))
    expected = [("a", "a"), ("a", "b"), ("b", "a"), ("b", "b")]
    assert PyDatalog(kb).query("va", [None, None]) == Materialisation(kb).query("va", [None, None]) == expected


def test_mutual_recursion_through_two_and_three_relations_answers_under_both_engines():
    pair = "@pred base(x: int).\n@pred a(x: int).\n@pred b(x: int).\nbase(1).\na(X) :- base(X).\na(X) :- b(X).\nb(X) :- a(X).\n"
    kb = KnowledgeBase(check([parse(pair, "t.dl")]))
    assert PyDatalog(kb).query("b", [None]) == Materialisation(kb).query("b", [None]) == [(1,)]
    three = pair.replace("b(X) :- a(X).", "@pred c(x: int).\nb(X) :- c(X).\nc(X) :- a(X).")
    kb = KnowledgeBase(check([parse(three, "t.dl")]))
    assert pydatalog_problems(kb.program) == []
    assert PyDatalog(kb).query("c", [None]) == Materialisation(kb).query("c", [None]) == [(1,)]


def test_a_cycle_of_three_relations_an_input_reaches_is_derived_again_after_new_input():
    text = ("@pred seed(x: int) input.\n@pred base(x: int).\n@pred a(x: int).\n@pred b(x: int).\n"
            "@pred c(x: int).\n@pred lone(x: int).\nbase(1). base(2).\n"
            "a(X) :- seed(X).\na(X) :- c(X).\nb(X) :- a(X), base(X).\nc(X) :- b(X).\n"
            "lone(X) :- base(X), not c(X).\n")
    kb = PyDatalog(KnowledgeBase(check([parse(text, "t.dl")])))
    assert kb.query("c", [None]) == [] and kb.query("lone", [None]) == [(1,), (2,)]
    kb.add_fact("seed", [2], "given")
    assert kb.query("c", [None]) == [(2,)] and kb.query("a", [None]) == [(2,)]
    kb.add_fact("seed", [3], "given")
    assert kb.query("a", [None]) == [(2,), (3,)] and kb.query("lone", [None]) == [(1,)]
    batch = Materialisation(kb.kb).extend([("seed", [2], "given"), ("seed", [3], "given")])
    assert [batch.query(p, [None]) for p in ("a", "c", "lone")] == [kb.query(p, [None]) for p in ("a", "c", "lone")]


@settings(max_examples=15, deadline=None)
@given(st.sets(st.tuples(st.sampled_from("子丑寅"), st.sampled_from("子丑寅")), max_size=6),
       st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abce"), st.sampled_from("abce"),
                          st.booleans()), min_size=3, max_size=6))
def test_random_cycles_of_three_relations_agree_under_both_engines(edges, rules):
    """a, b, c defined from e and from each other, joined left or right: pyDatalog's rounds give the bottom-up answer."""
    text = ("@kind b: 子 丑 寅.\n@pred e(x: b, y: b).\n@pred a(x: b, y: b).\n@pred b(x: b, y: b).\n"
            "@pred c(x: b, y: b).\n" + " ".join(f"e({x}, {y})." for x, y in sorted(edges)) +
            "\na(X, Y) :- e(X, Y).\nb(X, Y) :- a(Y, X).\nc(X, Y) :- b(X, Y).\na(X, Y) :- c(X, Y).\n")
    for head, first, second, left in rules:
        text += f"{head}(X, Z) :- {first}(X, Y), {second}(Y, Z).\n" if left else f"{head}(X, Z) :- {first}(Y, Z), {second}(X, Y).\n"
    kb = KnowledgeBase(check([parse(text, "t.dl")]))
    bottom_up, top_down = Materialisation(kb), PyDatalog(kb)
    for pred in "abc":
        assert top_down.query(pred, [None, None]) == bottom_up.query(pred, [None, None])


def test_a_cycle_of_three_relations_is_bounded_under_pydatalog_naming_the_rule():
    text = ("@kind b: 子 丑 寅.\n@pred e(x: b, y: b).\n@pred a(x: b, y: b).\n@pred b(x: b, y: b).\n"
            "@pred c(x: b, y: b).\n" + " ".join(f"e({x}, {y})." for x in "子丑寅" for y in "子丑寅") +
            "\na(X, Y) :- e(X, Y).\na(X, Y) :- c(X, Y).\nb(X, Y) :- a(X, Y).\nc(X, Z) :- b(X, Y), e(Y, Z).\n")
    assert len(PyDatalog(KnowledgeBase(check([parse(text, "t.dl")]))).query("c", [None, None])) == 9
    small = PyDatalog(KnowledgeBase(check([parse(text, "t.dl")])))
    small.limits = Limits(tuples=20)
    with pytest.raises(EvaluationLimit, match=r"rule t\.9 \(t\.dl:9:1\): b grew past the limit of 20 derived"):
        small.query("c", [None, None])


def test_arithmetic_feeding_its_own_recursion_is_a_warning_and_stops_with_one_error():
    program = check([parse("@pred n(x: int).\nn(0).\nn(X) :- n(Y), X = Y + 1.\n", "t.dl")])
    found = warnings(program)
    assert [(p.position.line, p.position.col) for p in found] == [(3, 15)] and "never end" in found[0].message
    with pytest.raises(EvaluationLimit, match=r"rule t\.3 \(t\.dl:3:1\): n keeps growing: no fixpoint after 50 rounds"):
        Materialisation(KnowledgeBase(program), limits=Limits(rounds=50))
    with pytest.raises(KBError, match="computes an argument of n"):
        PyDatalog(KnowledgeBase(program)).query("n", [None])


def test_integer_size_and_derived_tuples_are_bounded_naming_the_rule():
    doubling = check([parse("@pred n(x: int).\nn(1).\nn(X) :- n(Y), X = Y * 2.\n", "t.dl")])
    with pytest.raises(EvaluationLimit, match=r"rule t\.3 .*larger than \(2\*\*63 − 1\), the bound of whole numbers \(deriving n\)"):
        Materialisation(KnowledgeBase(doubling))
    square = check([parse(HEADER + "e(子, 丑). e(丑, 寅). e(寅, 子).\nt(X, Y) :- e(X, _), e(Y, _).\n", "t.dl")])
    with pytest.raises(EvaluationLimit, match=r"t grew past the limit of 10 derived tuples"):
        Materialisation(KnowledgeBase(square), limits=Limits(tuples=10))


def test_left_recursion_and_right_recursion_over_acyclic_facts_pass():
    check([parse(HEADER + "e(子, 丑). e(丑, 寅).\nt(X, Z) :- t(X, Y), e(Y, Z).\nt(X, Y) :- e(X, Y).", "t.dl")])
    check([parse(HEADER + "e(子, 丑). e(丑, 寅).\nt(X, Z) :- e(X, Y), t(Y, Z).\nt(X, Y) :- e(X, Y).", "t.dl")])


def test_declarations_twice_and_unknown_kinds():
    found = problems("@pred p(x: b).\n@pred w(x: bogus).")
    messages = " | ".join(p.message for p in found)
    assert "predicate p is already declared at t.dl:4" in messages
    assert "unknown kind 'bogus'" in messages


def test_arithmetic_in_a_head_and_a_variable_repeated_only_under_not():
    text = ("@kind b: 子 丑.\n@pred n(x: int).\n@pred m(x: int).\n@pred p(x: b).\n@pred q(x: b).\n"
            "@pred e3(x: b, y: b, z: b).\nn(1). n(2). p(子). p(丑). e3(子, 丑, 丑). e3(丑, 子, 丑).\n"
            "m(X * 3 - 1) :- n(X).\nq(X) :- p(X), not e3(X, Y, Y).\n")
    kb = KnowledgeBase(check([parse(text, "t.dl")]))
    for engine in (PyDatalog(kb), Materialisation(kb)):
        assert engine.query("m", [None]) == [(2,), (5,)]
        assert engine.query("q", [None]) == [("丑",)]
    with pytest.raises(KBError) as caught:
        check([parse(text.replace("m(X * 3 - 1)", "p(X + 1)").replace("e3(X, Y, Y)", "e3(X, Y, _)"), "t.dl")])
    found = caught.value.problems
    assert [(p.position.line, p.position.col) for p in found] == [(8, 3), (9, 25)]
    assert "(X + 1) is a number, but argument x of p is a b" in found[0].message
    assert "variable Y under 'not' is not bound" in found[1].message and "for no Y" in found[1].message


def test_a_rule_that_never_ends_stops_the_cast_with_one_line_naming_it(tmp_path, capsys):
    from liuren_logic.faces.cli import main

    path = tmp_path / "n.dl"
    path.write_text("@pred n(x: int).\nn(0).\nn(X) :- n(Y), X = Y + 1.\n", "utf-8")
    assert main(["cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--kb", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "rule n.3" in err and "n keeps growing: no fixpoint after 10000 rounds" in err


def test_a_sum_is_bounded_as_arithmetic_is_naming_the_rule():
    """Each number within 2**63, their sum not: the rule stops, as arithmetic past the bound does."""
    big = 2 ** 62
    text = (f"@pred n(x: int).\n@pred total(s: int).\nn({big}). n({big + 1}).\n"
            "total(S) :- S = sum X : { n(X) }.\n")
    with pytest.raises(EvaluationLimit, match=r"rule t\.4 \(t\.dl:4:1\): the sum of 2 numbers is larger than "
                                              r"\(2\*\*63 − 1\), the bound of whole numbers \(deriving total\)"):
        Materialisation(KnowledgeBase(check([parse(text, "t.dl")])))
    within = text.replace(f"n({big + 1}).", f"n({-big}).")
    assert Materialisation(KnowledgeBase(check([parse(within, "t.dl")]))).query("total", [None]) == [(0,)]


def test_a_join_is_bounded_by_the_bindings_it_would_build_before_building_them():
    """Counted before a step builds them, each binding a tuple (64 bytes and a list slot) of references
    (8 bytes a value): a product past the budget stops naming the rule and the literal."""
    text = ("@pred n(x: int).\n@pred one(x: int).\n@pred two(x: int, y: int, z: int).\n" +
            " ".join(f"n({i})." for i in range(5)) + "\none(1) :- n(A), n(B), n(C), n(D), A + B + C + D < 0.\n"
            "two(A, B, C) :- n(A), n(B), n(C), C = A + B.\n")
    kb = KnowledgeBase(check([parse(text, "t.dl")]))
    with pytest.raises(EvaluationLimit, match=r"rule t\.5 \(t\.dl:5:1\): n\(D\) would make 625 bindings of 4 values "
                                              r"\(about 0\.06 MB\), past the limit of 0\.059999 MB for one step of a "
                                              r"body \(deriving one\)"):
        Materialisation(kb, limits=Limits(step_bytes=625 * (64 + 8 * 4) - 1))
    assert Materialisation(kb, limits=Limits(step_bytes=625 * (64 + 8 * 4))).query("one", [None]) == []
    joined = check([parse(HEADER + " ".join(f"e({x}, {y})." for x in "子丑寅" for y in "子丑寅") +
                          "\n@pred f(x: b, y: b, z: b).\nf(X, Y, Z) :- e(X, Y), e(Y, Z).\n", "t.dl")])
    with pytest.raises(EvaluationLimit, match=r"e\(Y, Z\) would make 27 bindings of 3 values"):
        Materialisation(KnowledgeBase(joined), limits=Limits(step_bytes=27 * 88 - 1))  # a join through an index
    assert len(Materialisation(KnowledgeBase(joined), limits=Limits(step_bytes=27 * 88)).query("f", [None] * 3)) == 27


def test_a_product_past_the_bindings_budget_stops_the_cast_in_one_line(tmp_path, capsys):
    from liuren_logic.faces.cli import main

    path = tmp_path / "p.dl"
    path.write_text("@pred n(x: int).\n@pred one(x: int).\n" + " ".join(f"n({i})." for i in range(300)) +
                    "\none(1) :- n(A), n(B), n(C), A + B + C < 0.\n", "utf-8")
    assert main(["cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--kb", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"rule p.4 ({path}:4:1): n(C) would make 27000000 bindings of 3 values (about " \
        "2,376 MB), past the limit of 800 MB for one step of a body (deriving one)" in err


def test_recursive_atoms_come_from_one_pass_over_the_graph_for_every_rule(monkeypatch):
    """kb check near-linear in rules: the groups of mutually recursive relations are found once,
    not a search of the graph per atom (a chain of 10,000 rules took minutes so)."""
    from liuren_logic.datalog import checker
    from liuren_logic.datalog.checker import recursive_atoms

    rules = 300
    text = "".join(f"@pred p{i}(x: int).\n" for i in range(rules + 1)) + f"p{rules}(1).\n" + \
        "".join(f"p{i}(X) :- p{i + 1}(X).\n" for i in range(rules)) + "p7(X) :- p3(X), X = X + 1.\n"
    passes = []
    components = checker.components
    monkeypatch.setattr(checker, "components", lambda graph: passes.append(1) or components(graph))
    program = check([parse(text, "t.dl")])
    found = warnings(program)
    assert len(passes) == 1
    assert [str(p.position) for p in found] == [f"t.dl:{2 * rules + 3}:17"]  # p3 … p7 recurse through the last rule
    recursive = [(rule.head.pred, [a.pred for a in recursive_atoms(program, rule)]) for rule in program.rules if rule.body]
    assert recursive[2:9] == [("p2", []), ("p3", ["p4"]), ("p4", ["p5"]), ("p5", ["p6"]), ("p6", ["p7"]),
                              ("p7", []), ("p8", [])] and recursive[-1] == ("p7", ["p3"])


def test_kb_check_prints_fifty_problems_then_counts_the_rest(tmp_path, capsys):
    from liuren_logic.faces.cli import main

    path = tmp_path / "many.dl"
    path.write_text("@pred q(x: int).\n" + "".join(f"q({i}, 1).\n" for i in range(60)), "utf-8")
    assert main(["kb", "check", "--alone", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count(f"{path}:") == 50 and f"{path}:51:1" in err and f"{path}:52:1" not in err
    assert err.strip().splitlines()[-2:] == ["… and 10 more problems", "60 problems found"]


def test_a_line_with_many_problems_is_echoed_once_with_a_caret_under_each():
    """300 wrong-arity facts on one line: 300 located messages, the line shown once."""
    line = " ".join("e(子)." for _ in range(300))
    with pytest.raises(KBError) as caught:
        check([parse(HEADER + line + "\n", "t.dl")])
    text = str(caught.value)
    assert len(caught.value.problems) == 300
    assert text.count(line) == 1
    assert text.count("t.dl:9:") == 300
    carets = text.splitlines()[-1].strip()
    assert carets.count("^") == 300 and carets.startswith("^")
