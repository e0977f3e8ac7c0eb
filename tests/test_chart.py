"""Charts cast from the rules: the seed cases, the counts of docs/rules.md §3, the 《指南》 cases."""
from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter

import networkx as nx
import pytest

from conftest import stratified
from scopes import SCOPES

# docs/rules.md §3: charts per method, and per name within a method, over the 720 (day) charts.
METHOD_COUNTS = {"賊剋": 337, "比用": 81, "涉害": 76, "遙剋": 65, "伏吟": 60, "返吟": 60, "八專": 16, "昴星": 16, "別責": 9}
NAME_COUNTS = {("賊剋", "重審"): 218, ("賊剋", "元首"): 119, ("涉害", "見機"): 11, ("涉害", "察微"): 9,
               ("遙剋", "蒿矢"): 40, ("遙剋", "彈射"): 25}
# The three 《指南》 涉害 charts the default count does not give: 2 follow the 孟仲季 short-cut (癸卯 10,
# 癸酉 7), and 戊辰 6 (巳亥巳) 《大全》's 比用格 (tests/data/cases/README.md; tests/test_disputed_readings.py).
SHEHAI_DISPUTED_CASES = {("癸卯", 10), ("癸酉", 7), ("戊辰", 6)}
ALIASES = {"朱": "雀", "六": "合", "青": "龍", "白": "虎", "後": "后"}


def short(session, general):
    return session.kb.query("general_short", [general, None])[0][1] if general else None


@pytest.mark.parametrize("index", [0, 1])
def test_seed_cases_exactly(session, seed_cases, index):
    case = seed_cases[index]
    chart = session.cast(case["day"], case["yuejiang"], case["hour"])
    assert chart.offset == case["offset"] and chart.daytime == case["daytime"]
    assert [[l.upper, l.lower] for l in chart.lessons] == case["lessons"]
    assert [short(session, l.general) for l in chart.lessons] == case["lesson_generals"]
    assert chart.sanchuan == "".join(case["sanchuan"])
    assert [short(session, t.general) for t in chart.transmissions] == case["sanchuan_generals"]
    assert chart.method == case["method"] and case["name"] in chart.subnames


def test_method_counts_over_the_720_charts(table):
    assert len(table) == 720 and len({c.id for c in table}) == 720
    assert Counter(c.method for c in table) == METHOD_COUNTS


def test_name_counts_within_methods(table):
    names = Counter((c.method, n) for c in table for n in c.subnames)
    assert {key: names[key] for key in NAME_COUNTS} == NAME_COUNTS


def test_every_chart_has_one_method_and_three_transmissions(table):
    for chart in table:
        assert len(chart.rows("chosen")) == 1, chart
        assert [t.position for t in chart.transmissions] == [1, 2, 3], chart
        assert chart.subnames, chart


def test_derivations_of_initials_rest_on_facts(session, table):
    for chart in table[::37]:  # 20 charts spread over days and offsets
        graph = session.why(chart, "initial")
        assert nx.is_directed_acyclic_graph(graph)
        assert {graph.nodes[n]["kind"] for n in graph if graph.out_degree(n) == 0} <= {"fact", "compare", "absent"}
        facts = {graph.nodes[n]["text"] for n in graph if graph.nodes[n]["kind"] == "fact"}
        assert f"day({chart.id}, {chart.inputs.stem}, {chart.inputs.branch})" in facts


def test_zhinan_transmissions_agree_but_for_the_shortcut_cases(session, zhinan_cases):
    disagree = {}
    for case in zhinan_cases:
        chart = session.cast(case["day"], case["yuejiang"], case["hour"])
        assert chart.offset == case["offset"], case["seq"]
        if chart.sanchuan != case["sanchuan"]:
            disagree[(case["day"], case["offset"])] = (case["sanchuan"], chart.sanchuan, chart.method)
    assert set(disagree) == SHEHAI_DISPUTED_CASES, disagree
    assert all(method in ("涉害", "返吟") for _, _, method in disagree.values())


def test_zhinan_generals_agreement_is_reported(session, zhinan_cases):
    """Generals by the fixed 卯–申 day: count agreement; a miss the other day/night split explains is named so."""
    agree = total = 0
    by_season, slips = [], []
    for case in (c for c in zhinan_cases if c.get("transmission_rows")):
        chart = session.cast(case["day"], case["yuejiang"], case["hour"])
        other = session.cast_offset(case["day"], case["offset"], daytime=not chart.daytime)
        book = [ALIASES.get(r["general"], r["general"]) for r in case["transmission_rows"]]
        ours = [short(session, chart.generals[r["branch"]]) for r in case["transmission_rows"]]
        theirs = [short(session, other.generals[r["branch"]]) for r in case["transmission_rows"]]
        agree += sum(a == b for a, b in zip(book, ours))
        total += len(book)
        if book != ours:
            (by_season if book == theirs else slips).append((case["seq"], case["day"], case["hour"], case["month"]))
    print(f"\n《指南》 generals: {agree}/{total} rows agree; other day/night split: {by_season}; other: {slips}")
    # measured under the default school; a change here is a change of the KB, to be looked at
    assert (agree, total) == (196, 213)  # 165 while 壬癸 took 卯 by day
    assert [seq for seq, *_ in by_season] == [7, 32, 33, 71]
    assert [seq for seq, *_ in slips] == [5, 69, 76, 125]
    # the four slips have this in common: the book's own rows fit no ring of the twelve generals
    # (no noble branch, forward or backward, puts them all where the book does): a copying slip
    order = dict(session.base.query("general_order", [None, None]))
    index = dict((b, i) for b, i in session.base.query("branch_index", [None, None]))
    names = {short(session, g): g for g in order}
    unfit = []
    for case in (c for c in zhinan_cases if c.get("transmission_rows")):
        rows = [(index[r["branch"]], order[names[ALIASES.get(r["general"], r["general"])]]) for r in case["transmission_rows"]]
        if not any(all((noble + step * k) % 12 == b for b, k in rows) for noble in range(12) for step in (1, -1)):
            unfit.append(case["seq"])
    assert unfit == [seq for seq, *_ in slips]


def test_first_seed_case_initial_explained(session):
    chart = session.cast("辛巳", "寅", "午")
    graph = session.why(chart, "initial")
    texts = {graph.nodes[n]["text"] for n in graph}
    rules = {graph.nodes[n].get("rule") for n in graph}
    assert f"lesson({chart.id}, 1, 午, 辛)" in texts
    assert "overcomes(午, 辛)" in texts and "element_overcomes(火, 金)" in texts
    assert "zeike.yuanshou" in rules and "zeike.upper" in rules
    negation = next(n for n in graph if graph.nodes[n]["kind"] == "not")
    assert graph.nodes[negation]["text"] == f"not has_lower({chart.id})"
    assert any(graph.nodes[n]["kind"] == "fail" and graph.nodes[n]["rule"] == "zeike.lower" for n in nx.descendants(graph, negation))


def test_shehai_aggregate_shows_every_count_and_the_tie_break(session):
    chart = session.cast_offset("丁卯", 10)
    assert chart.method == "涉害"
    graph = session.why(chart, "initial")
    aggregates = [graph.nodes[n] for n in graph if graph.nodes[n]["kind"] == "aggregate"]
    maxima = [a for a in aggregates if a["func"] == "max"]
    assert maxima, "the deepest count is an aggregate"
    (top,) = [n for n in graph if graph.nodes[n]["kind"] == "aggregate" and graph.nodes[n]["func"] == "max"]
    counted = {graph.nodes[c]["text"]: graph.edges[top, c] for c in graph.successors(top)}
    pool = {row[0] for row in chart.rows("shehai_pool")}
    assert len(counted) == len(pool) >= 2
    assert sum(edge["chosen"] for edge in counted.values()) >= 1
    assert any(graph.nodes[n]["kind"] == "atom" and graph.nodes[n]["pred"] == "shehai_met" for n in graph)


@pytest.mark.parametrize("complete", SCOPES)
def test_both_engines_agree_on_every_chart_relation(table, complete):
    """The bottom-up materialisation and pyDatalog's top-down answers, relation by relation: on the
    first chart of each method (九宗門) by yang and by yin day, all 720 under ``-m complete`` (about a
    second of CPU a chart)."""
    from liuren_logic import Session

    top_down = Session(engine="pydatalog")
    sample = table if complete else stratified(table, lambda c: (c.method, c.day[0] in "甲丙戊庚壬"))
    assert complete or len(sample) >= 12
    charts = [top_down.cast(c.day, c.jiang, c.hour) for c in sample]
    moving = sorted(top_down.kb.program.moving() & set(top_down.kb.program.preds))
    bottom_up = Session(engine="materialise")
    for chart in charts:
        other = bottom_up.cast(chart.day, chart.jiang, chart.hour)
        for pred in moving:
            if top_down.kb.program.preds[pred].params[0][1] == "text":
                assert bottom_up.rows(pred, other.id) == top_down.rows(pred, chart.id), (pred, chart.id)


# Every property and some rows of 37 charts (three days' offsets, one with a month, a year and a querent), one line each.
READ_ALL = """
import inspect
from functools import cached_property
from liuren_logic import Session
from liuren_logic.domain.chart import Chart
s = Session()
charts = s.cast_many([s.offset_input(d, o) for d in ("甲子", "辛巳", "丁卯") for o in range(12)]
                     + [s.chart_input("辛巳", "寅", "午", month="亥", year=1998, born=1980, sex="m")])
names = [n for n, v in inspect.getmembers(Chart) if not n.startswith("_") and isinstance(v, (property, cached_property))]
for c in charts:
    print(c.id, *(repr(getattr(c, n)) for n in names), *(c.rows(p) for p in ("spirit", "pattern", "general")),
          s.chart_rows("lesson", c.id), s.rows("keti", c.id))
"""


def test_charts_read_alike_under_any_hash_seed():
    """A batch groups its relations from sets, whose order follows the string hash: every property
    and row reads the same under two seeds (two processes, about a second each: only another process
    has another seed)."""
    def read(seed: str) -> str:
        return subprocess.run([sys.executable, "-c", READ_ALL], env={**os.environ, "PYTHONHASHSEED": seed},
                              check=True, capture_output=True, text=True).stdout
    first = read("1")
    assert first.count("\n") == 37 and "元首" in first and "1980" in first
    assert read("2") == first


def test_a_batch_holds_each_distinct_row_once(table):
    """A relation is grouped by chart with one tuple per distinct row (without the chart id): two
    charts of one offset read the very same 天盤 rows, sorted."""
    first, same_offset = table[0], table[12]
    assert first.offset == same_offset.offset and first.day != same_offset.day
    rows, others = first.rows("tianpan"), same_offset.rows("tianpan")
    assert rows == sorted(rows) and len(rows) == 12
    assert all(row is other for row, other in zip(rows, others))


def test_the_table_is_one_batch_whatever_was_cast_before():
    """A chart of the table cast before, alone, is cast again with the rest: the table does not
    depend on what the session (a shared test fixture) cast first."""
    from liuren_logic import Session

    session = Session()
    alone = session.cast_offset("甲子", 0)
    table = session.table()
    assert table[0] is not alone and table[0].id == alone.id and session.chart(alone.id) is table[0]
    assert len({id(chart._source) for chart in table}) == 1 and session.table() == table
    assert all(row is other for row, other in zip(table[0].rows("tianpan"), table[12].rows("tianpan")))
    assert alone.rows("tianpan") == table[0].rows("tianpan") and alone.sanchuan == table[0].sanchuan

def test_lessons_and_transmissions_equal_only_their_own_kind(table):
    from liuren_logic.domain.chart import Lesson, Transmission

    lesson, transmission = table[0].lessons[0], table[0].transmissions[0]
    assert lesson == Lesson(*lesson) and hash(lesson) == hash(Lesson(*lesson)) and lesson.number == 1
    assert lesson != tuple(lesson) and not lesson == tuple(lesson) and tuple(lesson) != lesson
    assert transmission == Transmission(*transmission) and transmission != Lesson(*transmission[:4])
    assert repr(transmission).startswith(f"Transmission(position=1, branch='{transmission.branch}', general=")


def test_a_view_orders_and_makes_each_distinct_row_once_for_the_batch(session, table):
    """A view is the chart's sorted rows in the order given (stable), each made once a batch: two
    charts that hold the same row read the very same made value."""
    order, made = (lambda row: row[1]), []

    def make(row):
        made.append(row)
        return list(row)  # a new object each call: shared only if made once
    views = [session.view(chart.id, "test_view", "tianpan", order, make) for chart in table[:24]]
    for chart, view in zip(table, views):
        assert list(view) == [list(row) for row in sorted(chart.rows("tianpan"), key=order)]
    assert len(made) == len(set(made)) == 144  # the table's distinct 天盤 rows, each once
    assert all(a is b for a, b in zip(views[0], views[12]))  # one offset, two days
    assert session.view(table[0].id, "test_view", "tianpan") is views[0]  # kept under its name
