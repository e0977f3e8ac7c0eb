"""The contrastive why-not: the decisive reason first, true of the chart, on all 720 charts."""
from __future__ import annotations

import networkx as nx
import pytest

from liuren_logic.cli import main
from liuren_logic.explain.contrast import answer
from liuren_logic.inputs import members


def test_why_not_initial_answers_in_at_most_three_lines(capsys):
    code = main(["why-not", "initial", "丑", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--lang", "en"])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0 and len(out) <= 3
    assert out == ["賊剋 decides this chart; its candidates are 午 alone.",
                   "丑: in lesson 3, 丑 over 巳 has no 剋, so it is no candidate."]
    assert "？" not in "".join(out)


@pytest.mark.parametrize("daytime", [True, False])
def test_every_branch_but_the_initial_has_a_reason_true_of_the_chart(session, daytime):
    charts = session.table(daytime)
    branches = members(session.base, "branch")
    for chart in charts:
        initial = chart.transmissions[0].branch
        rejected = {x for (x,) in chart.rows("rejected")}
        assert rejected == set(branches) - {initial}, chart.id
        source = session.source(chart.id)
        for x in sorted(rejected)[:: 1 if daytime else 5]:
            short = answer(chart, "initial", x, "en")
            assert len(short.lines) <= 3 and x in short.lines[1]
            assert f"rejected({chart.id}, {x})" in short.atoms
            for atom in short.atoms:  # each stated atom holds in this chart
                pred, _, rest = atom.partition("(")
                args = [a.strip() for a in rest.rstrip(")").split(",")]
                assert source.holds(pred, [int(a) if a.isdigit() else a for a in args]), atom


def test_the_reasons_agree_with_the_chart_they_are_about(session, table):
    for chart in table[::7]:
        lessons = {l.upper for l in chart.lessons}
        for (x,) in chart.rows("rejected"):
            rule = answer(chart, "initial", x, "en").rules[0]
            if rule == "contrast.not_upper":
                assert x not in lessons
            if rule in ("contrast.no_ke", "contrast.upper_behind_lower", "contrast.not_upper"):
                assert (x,) not in chart.rows("candidate")


def test_why_not_method_says_unmet_or_outranked(session):
    chart = session.cast_offset("甲子", 6)  # 返吟, where 涉害 would also apply
    short = answer(chart, "method", "涉害", "en")
    assert short.lines == ["返吟 decides this chart.",
                           "涉害: 涉害 applies, but 返吟 is tried first (2 before 5)."]
    short = answer(session.cast("辛巳", "寅", "午"), "method", "涉害", "zh")
    assert short.lines[1] == "涉害：惟午一神為候選，賊剋已取，不待涉害。"


def test_why_not_a_pattern_names_the_closest_rule_without_placeholders(session):
    chart = session.cast("丁未", "丑", "戌")
    short = answer(chart, "pattern", "貴人入獄", "en")
    assert short.lines[0].endswith("does not hold.") and "Closest:" in short.lines[1]
    assert "？" not in "".join(short.lines)
    graph = short.graph
    assert graph.graph["question"].startswith("why not") and len(graph) <= 12


GLANCE = 16  # nodes a why-not picture may draw: read at a glance (the largest on the sample below is 14)


def glance_questions(chart):
    """Every branch but the initial, every method but the deciding one, a pattern and a spirit the chart lacks."""
    initial = chart.transmissions[0].branch
    methods = [m for (m, _) in chart.session.source(chart.id).query("method_order", [None, None]) if m != chart.method]
    patterns = {p for _, p in chart.patterns}
    spirits = {s for _, _, s in chart.spirits}
    extra = [("pattern", p) for p in ("天網", "貴人入獄") if p not in patterns]
    extra += [("spirit_present", s) for s in ("天目", "天醫") if s not in spirits]
    return [("initial", b) for b in members(chart.session.base, "branch") if b != initial] + \
        [("method", m) for m in methods] + extra


def test_the_why_not_picture_reads_at_a_glance(session):
    """The picture drawn for a why-not (not --full): few nodes, every one labelled in words without a
    '？' placeholder, the decisive rule among them with its label, the question at the root. On 22
    charts by day and night (every 67th: the offsets vary, so do the methods) and a 比用, ~3 s."""
    from liuren_logic.explain.picture import node_lines, to_dot

    charts = session.table(True)[::67] + session.table(False)[33::67] + [session.cast_offset("甲子", 5)]  # and a 比用
    assert {c.method for c in charts} >= {"賊剋", "比用", "涉害", "返吟", "伏吟"}
    for n, chart in enumerate(charts):
        for question, value in glance_questions(chart):
            for lang in (("zh", "en")[n % 2],):
                short = answer(chart, question, value, lang)
                picture = short.picture()
                where = (chart.id, question, value, lang)
                assert 3 <= picture.number_of_nodes() <= GLANCE, where
                root = picture.nodes[picture.graph["root"]]
                assert root["kind"] in ("atom", "absent") and value in root["text"], where
                for node, attrs in picture.nodes(data=True):
                    lines = node_lines(attrs, lang)
                    assert lines and all(line.strip() for line in lines), (where, attrs)
                    if attrs["kind"] in ("atom", "absent", "not", "rule", "fail"):
                        assert attrs.get(lang), (where, attrs)  # words, not only the atom's text
                    assert "？" not in "".join(lines), (where, lines)
                decisive = [a for _, a in picture.nodes(data=True) if a.get("rule") == short.rules[0]]
                assert decisive and decisive[0].get(lang), where
                assert decisive[0]["rule"] in to_dot(picture, lang)
                assert all_reached(picture), where


def all_reached(graph) -> bool:
    """Every node is reached from the root."""
    return nx.descendants(graph, graph.graph["root"]) | {graph.graph["root"]} == set(graph)
