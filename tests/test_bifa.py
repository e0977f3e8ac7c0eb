"""畢法賦 (kb/bifa): the hundred lines, the rules that encode them with the line as source, the
coverage file, and how a chart shows them."""
from __future__ import annotations

import re
from pathlib import Path

COVERAGE = Path(__file__).resolve().parents[1] / "docs" / "coverage_bifa.md"


def lines(session):
    return {f: (n, g) for f, n, g in session.base.query("bifa_line", [None, None, None])}


def encoded(session):
    return {r.head.args[1].value: r for r in session.kb.program.rules if r.head.pred == "bifa"}


def test_the_hundred_lines_in_ten_groups_of_ten(session):
    table = lines(session)
    assert sorted(n for n, _ in table.values()) == list(range(1, 101))
    groups = {}
    for n, g in table.values():
        groups.setdefault(g, []).append(n)
    assert len(groups) == 10 and all(len(v) == 10 and max(v) - min(v) == 9 for v in groups.values())


def test_every_rule_cites_the_line_it_concludes(session):
    rules = [r for r in session.kb.program.rules if r.head.pred == "bifa"]
    assert len(rules) >= 72
    for rule in rules:
        assert rule.source == f"畢法: {rule.head.args[1].value}", rule.id


def test_coverage_file_gives_every_line_and_marks_exactly_the_encoded_ones(session):
    rows = re.findall(r"^\| (\d+) \| (\S+) \| (encoded|needs input|judgement|not encoded) \|", COVERAGE.read_text("utf-8"), re.M)
    table = lines(session)
    assert [int(n) for n, _, _ in rows] == list(range(1, 101))
    assert all(table[f][0] == int(n) for n, f, _ in rows)
    assert {f for _, f, status in rows if status == "encoded"} == set(encoded(session))
    counts = {s: sum(1 for *_, t in rows if t == s) for s in ("encoded", "needs input", "judgement", "not encoded")}
    assert f"Encoded {counts['encoded']}, needs input {counts['needs input']}, judgement {counts['judgement']}, not encoded {counts['not encoded']}." in COVERAGE.read_text("utf-8")
    assert counts["encoded"] == 71


def test_the_first_seed_case_meets_the_noble_in_prison_over_its_own_stem(session):
    chart = session.cast("辛巳", jiang="寅", hour="午")  # the noble rides 午 over 戌, where 辛 lodges
    assert (47, "貴雖在獄宜臨干") in chart.bifa
    graph = session.why(chart, "bifa", "貴雖在獄宜臨干")
    assert any("bifa.gui_yu" in str(data) for _, data in graph.nodes(data=True))


def test_plate_rules_fire_on_exactly_their_offsets(table):
    # 戌 over 亥 (魁度天門) only when heaven is turned 11; 辰 over 寅 (罡塞鬼戶) only when turned 2;
    # 羅網 (each upper one place ahead) only when turned 1
    for name, offset in (("魁度天門關隔定", 11), ("罡塞鬼戶任謀為", 2), ("所謀多拙逢羅網", 1)):
        hits = {c.offset for c in table if name in {f for _, f in c.bifa}}
        assert hits == {offset}, name


def test_shouwei_is_the_zhoubian_keti(table):
    assert all(("周遍" in c.keti) == any(f == "首尾相見始終宜" for _, f in c.bifa) for c in table)


def test_board_and_json_show_the_bifa(session):
    from liuren_logic.explain.board import chart_data, render_chart

    chart = session.cast("辛巳", jiang="寅", hour="午")
    text = render_chart(chart)
    assert "畢法: 47. 貴雖在獄宜臨干 · 48. " in text
    assert {"number": 47, "line": "貴雖在獄宜臨干"} in chart_data(chart)["bifa"]
