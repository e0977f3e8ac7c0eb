"""The 畢法 that read the 十二長生 and the month's 旺 (法 13, 36, 78–80): over the 720 charts the KB's
count agrees with a definition written here from the 賦 line, independently of the KB rule."""
from __future__ import annotations

import pytest

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
STEMS = "甲乙丙丁戊己庚辛壬癸"
ELEMENT = dict(zip(STEMS, "木木火火土土金金水水")) | dict(zip(BRANCHES, "水土木木土火火土金金土水"))
LODGING = dict(zip(STEMS, "寅辰巳未巳未申戌亥丑"))
# 十二長生 by element, forward (the default school): 木 亥, 火 寅, 金 巳, 水 and 土 申
BIRTH = {"木": "亥", "火": "寅", "金": "巳", "水": "申", "土": "申"}
STAGES = "長生 沐浴 冠帶 臨官 帝旺 衰 病 死 墓 絕 胎 養".split()


def stage(symbol, branch):
    return STAGES[(BRANCHES.index(branch) - BRANCHES.index(BIRTH[ELEMENT[symbol]])) % 12]


def uppers(chart):
    stem, branch = chart.inputs.stem, chart.inputs.branch
    return stem, branch, chart.heaven[LODGING[stem]], chart.heaven[branch]


def both(chart, name):  # 干上 is the stem's {name}, 支上 the branch's
    stem, branch, gan, zhi = uppers(chart)
    return stage(stem, gan) == name and stage(branch, zhi) == name


DEFINITIONS = {
    "干支皆敗勢傾頹": lambda c: both(c, "沐浴"),  # 敗 is 沐浴
    "干支值絕凡謀決": lambda c: both(c, "絕"),
    "人宅皆死各衰羸": lambda c: both(c, "死"),
    "互旺皆旺坐謀宜": lambda c: both(c, "帝旺")  # 皆旺, or 互旺: 干上 the branch's, 支上 the stem's
    or (stage(uppers(c)[1], uppers(c)[2]) == "帝旺" and stage(uppers(c)[0], uppers(c)[3]) == "帝旺"),
}


@pytest.mark.parametrize("line", sorted(DEFINITIONS))
def test_the_stage_bifa_over_the_720_charts(table, line):
    kb = {c.id for c in table if line in {f for _, f in c.bifa}}
    mine = {c.id for c in table if DEFINITIONS[line](c)}
    assert kb == mine and kb, line


def test_a_ghost_in_season_needs_the_month(session):
    # wood days in a 酉 month: metal rules, so a metal transmission is a ghost in season (法 13)
    days = [s + b for s, b in (("甲", "子"), ("乙", "丑"), ("甲", "戌"), ("乙", "亥"), ("甲", "申"), ("乙", "酉"))]
    inputs = [session.chart_input(d, BRANCHES[(6 + k) % 12], "午", month="酉") for d in days for k in range(12)]
    charts = session.cast_many(inputs)
    kb = {c.id for c in charts if "鬼賊當時無畏忌" in {f for _, f in c.bifa}}
    mine = {c.id for c in charts if any(ELEMENT[t.branch] == "金" for t in c.transmissions)}
    assert kb == mine and kb
    assert not any("鬼賊當時無畏忌" in {f for _, f in c.bifa} for c in session.cast_many(
        [session.chart_input(d, BRANCHES[(6 + k) % 12], "午") for d in days[:1] for k in range(12)]))
