"""A batch evaluates what is read of it: the same tuples as evaluating it whole, in any order of reading."""
from __future__ import annotations

import random
import subprocess
import sys

import networkx as nx
import pytest

from liuren_logic import Session
from liuren_logic.datalog.checker import check
from liuren_logic.datalog.evaluate import Limits, Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.provenance import Explainer
from liuren_logic.datalog.semantics import EvaluationLimit

GROW = ("@pred grow(c: text, n: int).\n"
        "grow(C, 0) :- day(C, _, _).\n"
        "grow(C, X) :- grow(C, Y), X = Y + 1.\n")  # reaches no fixpoint: one chart's relation past the rounds limit


def _inputs(session: Session) -> list:
    """Charts of every kind: from pillars (with a month and year), by offset by day and by night,
    and from moments with a querent."""
    return [session.chart_input("辛巳", "寅", "午", month="癸亥", year="戊寅"),
            session.offset_input("甲子", 3), session.offset_input("丁未", 0, daytime=False),
            session.dated_input("1998-11-30 12:00", born="1970-02-03 08:00", sex="f"),
            session.dated_input("2024-06-21 03:30", born=1985, sex="m")]


@pytest.mark.parametrize("readings", [None, {"punishment": "seed000", "noble": "jia_yang"}])
def test_every_relation_read_lazily_in_any_order_is_as_evaluated_whole(readings):
    session = Session(readings=readings)
    facts = [fact for i in _inputs(session) for fact in i.facts()]
    whole = session.base.extend(facts).evaluate_all()
    arity = session.base.kb.arity  # every relation, fire relation and aggregate helper
    names = sorted(arity)
    random.Random(15).shuffle(names)
    lazy = session.base.extend(facts)
    assert lazy.store.relations.keys() <= {pred for pred, _, _ in facts}  # nothing derived before a read
    for pred in names:
        pattern = [None] * arity[pred]
        assert lazy.query(pred, pattern) == whole.query(pred, pattern), pred
    chart_id = facts[0][1][0]
    for pred in ("initial", "bifa"):  # a derivation on a batch not yet read draws the same graph
        atom = whole.query(pred, [chart_id] + [None] * (arity[pred] - 1))[0]
        graphs = [Explainer(batch).why(pred, atom) for batch in (whole, session.base.extend(facts))]
        assert nx.node_link_data(graphs[0], edges="edges") == nx.node_link_data(graphs[1], edges="edges")
    by_chart = session.base.extend(facts)  # read chart by chart, from the highest stratum down
    for pred in reversed([p for p in session.base.kb.program.moving() if p in session.base.kb.program.preds]):
        assert by_chart.chart_rows(pred, chart_id) == whole.chart_rows(pred, chart_id), pred


def test_reading_the_transmissions_leaves_the_strata_they_do_not_rest_on_unevaluated():
    session = Session()
    chart = session.cast_offset("辛巳", 8)
    batch = session.source(chart.id)
    assert chart.sanchuan == "午寅戌"
    needs = batch.plan.needs
    assert needs["bifa"][-1] in batch._pending and needs["keti"][-1] in batch._pending  # their own strata
    assert not set(needs["initial"]) & batch._pending
    read = batch.added
    assert chart.bifa and batch.added > read  # read later, evaluated then


def test_a_runaway_rule_stops_every_read_that_needs_it_and_no_other():
    text = ("@pred seed(x: int) input.\n@pred n(x: int).\n@pred lone(x: int).\n"
            "n(X) :- seed(X).\nn(X) :- n(Y), X = Y + 1.\nlone(X) :- seed(X), X > 0.\n")
    base = Materialisation(KnowledgeBase(check([parse(text, "t.dl")])), limits=Limits(rounds=50))
    batch = base.extend([("seed", [1], "given")])
    assert batch.query("lone", [None]) == [(1,)]  # n is not read: not evaluated
    for _ in range(2):  # the stratum is left unevaluated: the next read meets the limit again
        with pytest.raises(EvaluationLimit, match=r"rule t\.5 .*n keeps growing: no fixpoint after 50 rounds"):
            batch.query("n", [None])
    with pytest.raises(EvaluationLimit, match=r"rule t\.5 "):
        base.extend([("seed", [2], "given")]).evaluate_all()


def test_a_command_showing_the_whole_chart_reports_a_runaway_rule_it_never_shows(tmp_path, capsys):
    from liuren_logic.faces.cli import main

    path = tmp_path / "grow.dl"
    path.write_text(GROW, "utf-8")
    chart = ["--day", "辛巳", "--jiang", "寅", "--hour", "午", "--kb", str(path)]
    assert main(["cast", *chart]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "rule grow.3" in err and "grow keeps growing: no fixpoint after 10000 rounds" in err
    assert main(["why", "initial", *chart]) == 0  # a derivation reads only what it rests on
    assert "午" in capsys.readouterr().out


PROBE = ("import sys; from liuren_logic import Session; s = Session(engine={engine!r}); c = s.cast('辛巳', '寅', '午'); "
         "print(s.kb.query('initial', [None, None]), s.kb.holds('trine', ['子', '水', '旺']), "
         "type(s.base).__name__, 'pyDatalog' in sys.modules)")


@pytest.mark.parametrize("engine, answers", [("materialise", "Materialisation False"), ("pydatalog", "PyDatalog True")])
def test_session_kb_answers_from_the_sessions_own_engine(engine, answers):
    """Under the default engine ``session.kb`` reads the charts' batches and pyDatalog is never
    imported; under ``pydatalog`` it asks pyDatalog; the answers are the same."""
    done = subprocess.run([sys.executable, "-c", PROBE.format(engine=engine)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f"[('辛巳日寅將午時', '午')] True {answers}"


def test_session_kb_is_given_the_facts_of_the_charts_cast_when_first_asked_and_forget_drops_the_rest(session):
    first, second = (session.cast_offset(day, 8, born=1931, sex="f") for day in ("辛巳", "甲子"))  # charts of this test only
    session.forget([second.id])
    assert session.kb.query("day", [first.id, None, None]) == [(first.id, "辛", "巳")]
    assert session.kb.query("initial", [first.id, None]) == [(first.id, "午")]
    assert not session.kb.query("day", [second.id, None, None])
    third = session.cast_offset("丙寅", 0, born=1931, sex="f")
    assert session.kb.holds("day", [third.id, "丙", "寅"]) and session.kb.is_fact("day", [third.id, "丙", "寅"])
