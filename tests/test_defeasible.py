"""Defeasible logic in the KB language (docs/defeasible.md): the suite's defeasible cases, the
checker's located errors, and derivations that name the rules a conclusion defeated.

The conformance cases run as the core ones do (tests/defeasible_conformance.py): one test a case;
the case files over 100 KB (the strict-only forms of po3–po5, ranpo, access1, hmmer and lubm, 27
cases) one test a file, in the complete set (``pytest -m complete``), read only when it runs.
"""
from __future__ import annotations

import pytest

pytest.importorskip("datalog_conformance", reason="the test extra's datalog-conformance is not installed")
from conformance import ENGINES  # noqa: E402
from defeasible_conformance import (HEAVY, OTHER_SEMANTICS, cases_in, defeasible_cases,  # noqa: E402
                                    heavy_files, run)

from liuren_logic.datalog.checker import check  # noqa: E402
from liuren_logic.datalog.evaluate import Materialisation  # noqa: E402
from liuren_logic.datalog.parser import parse  # noqa: E402
from liuren_logic.datalog.program import KnowledgeBase  # noqa: E402
from liuren_logic.datalog.provenance import Explainer  # noqa: E402
from liuren_logic.datalog.pydatalog_backend import PyDatalog  # noqa: E402
from liuren_logic.domain.errors import KBError  # noqa: E402


@pytest.mark.parametrize("case, engine", [pytest.param(case, engine, id=f"defeasible/{folder}/{case.name}[{engine}]")
                                          for folder, case in defeasible_cases(HEAVY) for engine in ENGINES])
def test_defeasible_case(case, engine):
    _check(case, engine)


@pytest.mark.complete
@pytest.mark.parametrize("path", [pytest.param(path, id=f"defeasible/{path.parent.name}/{path.stem}")
                                  for path in heavy_files()])
def test_every_defeasible_case_of_a_heavy_file(path):
    """The bottom-up engine only: these are the core suite's heavy programs again, strict only,
    which tests/test_conformance.py already runs through pyDatalog."""
    for case in cases_in(path):
        _check(case, "materialise")


def _check(case, engine):
    outcome, detail = run(case, engine)
    if outcome == "unsupported":
        pytest.xfail(detail)
    if case.name in OTHER_SEMANTICS:
        assert outcome == "other", f"{case.name} was expected to differ ({OTHER_SEMANTICS[case.name]}): {outcome}"
        pytest.xfail(OTHER_SEMANTICS[case.name] + f" ({detail})")
    assert outcome == "pass", f"{case.name}: {detail}"


BIRDS = """\
@pred bird(x: any) en "{x} is a bird". @pred penguin(x: any) en "{x} is a penguin".
@pred flies(x: any) en "{x} flies". @pred nests(x: any).
bird(tweety). penguin(opus).
@rule zoo.penguin_bird en "a penguin is a bird" source "zoology".
bird(X) :- penguin(X).
@default zoo.fly en "a bird flies" source "Tweety's rule".
flies(X) :- bird(X).
@default zoo.penguin en "a penguin does not fly" source "the penguin's rule".
~flies(X) :- penguin(X).
@prefer zoo.penguin > zoo.fly en "the penguin is the more specific" source "specificity".
nests(X) :- flies(X).
"""


def materialise(text: str, policy: str = "blocking") -> Materialisation:
    return Materialisation(KnowledgeBase(check([parse(text, "birds.dl")], policy)))


def problems(text: str) -> list[str]:
    with pytest.raises(KBError) as error:
        check([parse(text, "bad.dl")])
    return [str(p) for p in error.value.problems]


def test_superiority_decides_and_strong_negation_is_a_relation():
    engine = materialise(BIRDS)
    assert engine.query("flies", [None]) == [("tweety",)]
    assert engine.query("~flies", [None]) == [("opus",)]
    assert engine.query("nests", [None]) == [("tweety",)]  # a strict rule reads what is defeasibly proven
    assert engine.query("Δ·flies", [None]) == []  # nothing about flying is definite …
    assert engine.query("Δ·nests", [None]) == []  # … so neither is what a strict rule concludes from it
    definite = engine.program.defeat.definite  # a relation nothing defeasible reaches is its own Δ
    assert definite("bird") == "bird" and definite("nests") == "Δ·nests" and definite("~flies") == "Δ·~flies"


def test_without_the_superiority_both_are_blocked_and_supported():
    engine = materialise(BIRDS.replace("@prefer zoo.penguin > zoo.fly", "% no preference"))
    assert engine.query("flies", ["opus"]) == [] and engine.query("~flies", ["opus"]) == []
    assert engine.query("Σ·flies", ["opus"]) == [("opus",)] and engine.query("Σ·~flies", ["opus"]) == [("opus",)]
    assert engine.query("flies", ["tweety"]) == [("tweety",)]


def test_a_defeater_blocks_and_concludes_nothing():
    text = BIRDS + '@pred hurt(x: any).\nhurt(tweety).\n@defeater zoo.hurt en "a hurt bird may not fly".\n' \
                   "~flies(X) :- hurt(X).\n"
    engine = materialise(text)
    assert engine.query("flies", [None]) == []  # tweety's flying is blocked …
    assert engine.query("~flies", [None]) == [("opus",)]  # … and not refuted


def test_a_definite_complement_wins_over_any_default():
    text = BIRDS + "@rule zoo.stone.\n~flies(X) :- bird(X), X = tweety.\n"
    engine = materialise(text)
    assert engine.query("Δ·~flies", [None]) == [("tweety",)]
    assert engine.query("flies", [None]) == []
    assert engine.query("~flies", [None]) == [("opus",), ("tweety",)]


def test_team_defeat_needs_every_attacker_outranked():
    text = """@pred p(x: any). @pred a(x: any). @pred b(x: any).
a(1). b(1).
@default t.p1.
p(X) :- a(X).
@default t.p2.
p(X) :- b(X).
@default t.n1.
~p(X) :- a(X).
@default t.n2.
~p(X) :- b(X).
@prefer t.p1 > t.n1.
@prefer t.p2 > t.n2.
"""
    assert materialise(text).query("p", [None]) == [(1,)]  # each attacker is beaten by a different rule of the team
    weaker = text.replace("@prefer t.p2 > t.n2.", "")
    assert materialise(weaker).query("p", [None]) == []  # t.n2 stands unanswered
    assert materialise(weaker).query("~p", [None]) == []  # and t.p1, t.p2 answer its side


def test_blocking_and_propagating_differ_on_an_ambiguous_attacker():
    text = """@pred p(). @pred a(). @pred q().
@default t.r1.
p().
@default t.r2.
a().
@default t.r3.
~a().
@default t.r4.
~p() :- a().
@default t.r5.
q() :- p().
"""
    assert materialise(text, "blocking").query("q", []) == [()]
    assert materialise(text, "propagating").query("q", []) == []
    assert materialise(text, "propagating").query("Σ·q", []) == [()]


CYCLE = """@pred answer(c: any, v: any) en "{c}: {v}". @pred good(c: any). @pred p(). @pred r().
good(1). r().
@default t.cheng en "good is 成".
answer(C, 成) :- good(C).
@default t.xiong en "good is 凶 too".
answer(C, 凶) :- good(C).
@defeater t.block en "成 blocks 凶".
~answer(C, 凶) :- answer(C, 成).
@default t.p.
p() :- r().
@defeater t.self.
~p() :- p().
"""


def test_a_cycle_through_defeat_is_derived_by_the_alternating_fixpoint():
    """answer attacks itself through t.block (no stratification of the relations), though no ground
    conclusion attacks itself: 成 stands and blocks 凶. p is attacked by a defeater that applies when p
    is proven: neither proven nor refuted, it is undecided (its estimate holds it, the relation not)."""
    engine = materialise(CYCLE)
    assert engine.query("answer", [None, None]) == [(1, "成")]
    assert engine.query("p", []) == [] and engine.query("est·beaten·p", []) == [()]
    graph = Explainer(engine).why_not("answer", [1, "凶"])
    assert "t.block" in {attrs.get("rule") for _, attrs in graph.nodes(data=True)}
    undecided = Explainer(engine).why_not("p", [])
    assert any(attrs.get("undecided") for _, attrs in undecided.nodes(data=True))


def test_the_derivation_of_a_defeasible_conclusion_names_the_rule_it_defeated():
    engine = materialise(BIRDS)
    graph = Explainer(engine).why("~flies", ["opus"])
    rules = {attrs["rule"]: attrs for _, attrs in graph.nodes(data=True) if attrs["kind"] == "rule"}
    assert "zoo.penguin·wins" in rules  # the winning rule …
    assert "zoo.penguin" in rules  # … applied: its body
    prefer = rules["zoo.penguin>zoo.fly"]  # the superiority that outranked the attacker, with its source
    assert prefer["source"] == "specificity"
    assert rules["zoo.fly·supported"]["en"] == "a bird flies"  # the defeated rule, with its body
    assert any(attrs["kind"] == "fact" and attrs["text"] == "penguin(opus)" for _, attrs in graph.nodes(data=True))


def test_why_not_names_the_rule_that_beats_it():
    graph = Explainer(materialise(BIRDS)).why_not("flies", ["opus"])
    rules = {attrs["rule"] for _, attrs in graph.nodes(data=True) if attrs["kind"] in ("rule", "fail")}
    assert {"zoo.fly·wins", "zoo.penguin·attacks", "zoo.penguin"} <= rules


@pytest.mark.parametrize("text, message", [
    (BIRDS + "@prefer zoo.pengiun > zoo.fly.\n", "bad.dl:12:9: @prefer names zoo.pengiun, which is no rule's id "
                                                "(did you mean zoo.penguin?)"),
    (BIRDS + "@prefer zoo.fly > zoo.penguin.\n", "bad.dl:12:1: a cycle in @prefer: zoo.fly > zoo.penguin > zoo.fly"),
    (BIRDS + "@prefer zoo.fly > zoo.fly.\n", "bad.dl:12:1: @prefer zoo.fly > zoo.fly: a rule cannot be superior"),
    (BIRDS + "@prefer zoo.fly >= zoo.penguin.\n", "bad.dl:12:17: a superiority is written '@prefer zoo.fly > "
                                                  "zoo.penguin', not '>='"),
    (BIRDS + "@pred walks(x: any).\nwalks(X) :- bird(X), ~nests(X).\n",
     "bad.dl:13:22: ~nests(X) can never hold: no fact, strict or @default rule concludes ~nests"),
    (BIRDS.replace('penguin".', 'penguin" input.') + "@default zoo.in.\n~penguin(X) :- bird(X).\n",
     "penguin is an input relation: its facts come at run time, so it cannot be defeasible"),
    (BIRDS + "@default zoo.orphan.\n", "bad.dl:12:1: @default zoo.orphan is not followed by a rule"),
    (BIRDS + "@defeater zoo.bad.\n~flies(X) :- bird(Y).\n", "variable X in the head is not bound by a positive atom"),
])
def test_located_errors(text, message):
    found = problems(text) if "followed" not in message else None
    if found is None:
        with pytest.raises(KBError) as error:
            parse(text, "bad.dl")
        found = [str(p) for p in error.value.problems]
    assert any(message in line for line in found), found


def test_pydatalog_agrees_and_refuses_a_cycle_through_defeat_in_one_line():
    top_down = PyDatalog(KnowledgeBase(check([parse(BIRDS, "birds.dl")])))
    bottom_up = materialise(BIRDS)
    for pred in ("flies", "~flies", "nests", "Σ·flies", "beaten·flies", "outranked·zoo.fly"):
        assert sorted(top_down.query(pred, [None])) == bottom_up.query(pred, [None])
    cyclic = PyDatalog(KnowledgeBase(check([parse(CYCLE, "cycle.dl")])))
    with pytest.raises(KBError) as error:
        cyclic.query("answer", [None, None])
    assert len(error.value.problems) == 1
    assert "cycle.dl:8:18: answer(C, 成) closes a cycle through defeat" in str(error.value.problems[0])


def test_a_program_without_defeasible_rules_is_unchanged():
    text = "@pred e(a: any, b: any). @pred t(a: any, b: any).\ne(1, 2).\nt(X, Y) :- e(X, Y).\n"
    program = check([parse(text, "plain.dl")])
    assert program.defeat is None and [r.head.pred for r in program.rules] == ["t"]


def test_a_snapshot_compiles_the_defeasible_rules_again(tmp_path):
    """A warm start reads the checked modules and their compiled rules from a snapshot: the rules
    their defeasible rules compile to are made again, and answer as the fresh load does."""
    from liuren_logic.datalog import snapshot
    from liuren_logic.domain.school import _load_afresh

    sources = [("birds.dl", BIRDS.encode()), ("more.dl", b"@pred walks(x: any).\nwalks(X) :- ~flies(X).\n")]
    fresh = _load_afresh(sources)
    decoded = snapshot._decode(snapshot._encode(fresh), sources)
    assert [str(r) for r in decoded.prepared.program.rules] == [str(r) for r in fresh.prepared.program.rules]
    engine = Materialisation(KnowledgeBase(decoded.prepared.program, prepared=decoded.prepared, static=decoded.static))
    assert engine.query("walks", [None]) == [("opus",)]
    assert Explainer(engine).why("walks", ["opus"]).number_of_nodes() > 5


def test_a_prefer_that_can_never_decide_is_a_warning():
    from liuren_logic.datalog.checker import warnings

    text = BIRDS + ('@pred hurt(x: any).\n@defeater zoo.hurt.\n~flies(X) :- hurt(X).\n'
                    '@prefer zoo.hurt > zoo.fly.\n@prefer zoo.penguin_bird > zoo.fly.\n')
    found = [str(p) for p in warnings(check([parse(text, "birds.dl")]))]
    assert any("birds.dl:15:1: @prefer zoo.hurt > zoo.fly has no effect: a defeater concludes nothing to defend; "
               "it blocks flies unless @prefer zoo.fly > zoo.hurt" in line for line in found), found
    assert any("birds.dl:16:1: @prefer zoo.penguin_bird > zoo.fly has no effect: their heads (bird, flies) never "
               "conflict" in line for line in found), found
    assert warnings(check([parse(BIRDS, "birds.dl")])) == []


WEIGH = """@pred demo_answer(c: text, v: text) zh "{c}斷{v}" en "{c}: the answer is {v}".
@default demo.ji zh "日干得生則吉" en "a nourished day stem is good" source "demo: ji".
demo_answer(C, 吉) :- chart(C).
@default demo.xiong zh "空亡則凶" en "a void is bad" source "demo: xiong".
~demo_answer(C, 吉) :- chart(C).
@prefer demo.ji > demo.xiong zh "生重於空" en "nourishment outweighs the void" source "demo: prefer".
"""


def test_the_command_line_says_which_rule_won_and_what_it_defeated(capsys, tmp_path):
    """A KB file given with --kb beside the default school: why names the winning rule and the one
    it outranked with the @prefer's source; why-not on ~p names the rule that beat it."""
    from liuren_logic.faces.cli import main

    path = tmp_path / "weigh.dl"
    path.write_text(WEIGH, encoding="utf-8")
    chart = ["--day", "辛巳", "--jiang", "寅", "--hour", "午", "--kb", str(path), "--lang", "en", "--ids"]
    assert main(["why", "demo_answer(辛巳日寅將午時, 吉)", *chart[:-1]]) == 0  # a reader's view: the rules' labels
    out = capsys.readouterr().out
    assert "⇐ a nourished day stem is good (prevails)  «demo: ji»" in out and "demo.ji" not in out
    assert main(["why", "demo_answer(辛巳日寅將午時, 吉)", *chart]) == 0  # --ids: which rule, by its id
    out = capsys.readouterr().out
    assert "demo.ji·wins: a nourished day stem is good (prevails)" in out
    assert "demo.ji>demo.xiong: nourishment outweighs the void  «demo: prefer»" in out
    assert "demo.xiong·supported: a void is bad" in out
    assert main(["why-not", "~demo_answer(辛巳日寅將午時, 吉)", *chart]) == 0
    out = capsys.readouterr().out
    assert "demo.xiong·wins does not fire" in out and "demo.ji·attacks" in out


def test_a_prevailing_rule_reads_its_label_with_no_slot_it_cannot_bind():
    """The rule ``r·wins`` has the head's arguments only: its label keeps the head's slots and leaves
    out those of the body (「{B}大」 reads 「大」, never 「某大」 or "any is big")."""
    program = check([parse('@pred big(c: text).\n@pred size(c: text, b: any).\nsize("c", 子).\n'
                           '@default t.r zh "{C}之{B}大" en "{B} of {C} is big".\nbig(C) :- size(C, B).\n', "t.dl")])
    (wins,) = [rule for rule in program.rules if rule.id == "t.r·wins"]
    assert dict(wins.labels) == {"zh": "{X1}之大（勝）", "en": "of {X1} is big (prevails)"}
