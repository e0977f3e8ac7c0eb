"""The core relations, derived by rules, against the tables of docs/rules.md §1."""
from __future__ import annotations

import pytest

from liuren_logic.domain.errors import InputError
from liuren_logic.domain.inputs import parse_pillar, parse_symbol


def pairs(session, pred):
    return {"".join(row) for row in session.kb.query(pred, [None, None])}


def test_sixty_pillars_and_their_numbers(session):
    rows = session.kb.query("pillar_index", [None, None, None])
    assert len(rows) == 60 and sorted(r[2] for r in rows) == list(range(60))
    assert ("辛", "巳", 17) in rows and ("癸", "亥", 59) in rows


@pytest.mark.parametrize("pred, expected", [
    ("clashes", "子午 丑未 寅申 卯酉 辰戌 巳亥"),
    ("combines", "子丑 寅亥 卯戌 辰酉 巳申 午未"),
    ("harms", "子未 丑午 寅巳 卯辰 申亥 酉戌"),
    ("breaks", "子酉 丑辰 寅亥 卯午 巳申 未戌"),
])
def test_symmetric_branch_relations(session, pred, expected):
    want = set(expected.split()) | {p[::-1] for p in expected.split()}
    assert pairs(session, pred) == want


def test_punishment_default_reading(session):
    assert pairs(session, "punishes") == set("寅巳 巳申 申寅 丑戌 戌未 未丑 子卯 卯子 辰辰 午午 酉酉 亥亥".split())


def test_trines_post_horses_and_stem_combinations(session):
    trine = {(b, e, r) for b, e, r in session.kb.query("trine", [None, None, None])}
    for members, element in (("申子辰", "水"), ("亥卯未", "木"), ("寅午戌", "火"), ("巳酉丑", "金")):
        assert {(b, element, r) for b, r in zip(members, ("長生", "旺", "墓"))} <= trine
    assert len(trine) == 12
    horses = dict(session.kb.query("post_horse", [None, None]))
    assert [horses[b] for b in "申子辰寅午戌巳酉丑亥卯未"] == list("寅寅寅申申申亥亥亥巳巳巳")
    assert pairs(session, "stem_combines") == set("甲己 乙庚 丙辛 丁壬 戊癸 己甲 庚乙 辛丙 壬丁 癸戊".split())


def test_ranks_polarity_and_kin(session):
    ranks = dict(session.kb.query("rank", [None, None]))
    assert "".join(sorted(b for b, r in ranks.items() if r == "孟")) == "".join(sorted("寅申巳亥"))
    polarity = dict(session.kb.query("polarity", [None, None]))
    assert [polarity[s] for s in "甲乙子丑"] == ["陽", "陰", "陽", "陰"]
    kin = {x: k for _, x, k in session.kb.query("kin", ["辛", None, None])}
    assert (kin["申"], kin["子"], kin["丑"], kin["寅"], kin["午"]) == ("兄弟", "子孫", "父母", "妻財", "官鬼")


@pytest.mark.parametrize("day, void, hidden", [
    ("甲子", "戌亥", {"子": "甲", "酉": "癸"}),
    ("辛巳", "申酉", {"戌": "甲", "午": "壬", "未": "癸"}),
    ("癸亥", "子丑", {"寅": "甲", "亥": "癸"}),
])
def test_void_and_hidden_stems_come_from_the_decade(session, day, void, hidden):
    chart = session.cast(day, "子", "子")
    assert "".join(chart.void) == void  # in branch order
    assert {b: chart.hidden_stems[b] for b in hidden} == hidden
    assert not set(void) & set(chart.hidden_stems)


@pytest.mark.parametrize("text, words", [
    ("甲丑", "impossible pillar 甲丑"), ("甲", "expected a stem and a branch"),
    ("X子", "unknown stem 'X'"), ("甲Q", "unknown branch 'Q'"),
])
def test_bad_pillars_are_refused_by_name(session, text, words):
    with pytest.raises(InputError, match=words):
        parse_pillar(session.kb, text)


@pytest.mark.parametrize("question, simplified, traditional", [
    ("method", "贼克", "賊剋"), ("pattern", "贵人入狱", "貴人入獄"), ("name", "元首", "元首"),
])
def test_simplified_input_is_accepted(session, question, simplified, traditional):
    """A value typed in simplified characters names the traditional one the KB is written in."""
    chart = session.cast("辛巳", "寅", "午")
    assert session.resolve(chart, question, simplified)[1] == (chart.id, traditional)
    assert set(session.why(chart, question, simplified).nodes) == set(session.why(chart, question, traditional).nodes)


def test_simplified_symbols_read_as_traditional(session):
    assert parse_symbol(session.kb, "贼克", "method", "the method") == "賊剋"
    with pytest.raises(InputError, match="unknown method '贼'"):
        parse_symbol(session.kb, "贼", "method", "the method")
