"""The patterns (課格) of seed 000 and the generals' states: the seed's example days, the first
seed case, and the declarations every pattern carries.

The example-day checks read ``pattern`` for all 720 charts at once. pyDatalog, top-down, takes
about 90 s for that one unbound query on this machine (it re-derives the transmissions of every
chart), so the bulk rows come from the materialising engine (about 0.05 s), which the engine
tests hold to the same answers; the first seed case is asked of the shared ``session`` fixture,
whatever engine it runs, with its derivations.
"""
from __future__ import annotations

import json
import re
import time
from collections import defaultdict

import pytest

from conftest import seed_text
from liuren_logic import Session

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
GENERALS = "貴人 螣蛇 朱雀 六合 勾陳 青龍 天空 白虎 太常 玄武 太陰 天后".split()
TIMINGS: dict[str, float] = {}


# fixtures ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fast(session):
    """A session whose charts are evaluated bottom-up: the shared one if it already is."""
    if getattr(session, "engine", None) == "materialise":
        return session
    try:
        return Session(engine="materialise")
    except TypeError:  # an engine without the choice: fall back to the shared session
        return session


def _rows(sess, charts, pred, arity):
    """Every row of ``pred`` for these charts: one query per batch the charts were cast in (a chart
    cast before the table, like the first seed case, keeps its own batch)."""
    if not hasattr(sess, "source"):
        return sess.kb.query(pred, [None] * arity)
    ids = {chart.id for chart in charts}
    sources = {id(sess.source(chart.id)): sess.source(chart.id) for chart in charts}
    return [row for source in sources.values() for row in source.query(pred, [None] * arity) if row[0] in ids]


@pytest.fixture(scope="module")
def bulk(fast, table):
    """(day, offset) → patterns, for the 720 day charts of the ``table`` fixture, in one query."""
    where = {chart.id: (chart.day, chart.offset) for chart in table}
    charts = fast.table()
    start = time.perf_counter()
    rows = _rows(fast, charts, "pattern", 2)
    TIMINGS["bulk pattern query, 720 charts"] = time.perf_counter() - start
    by_chart = defaultdict(set)
    for chart_id, name in rows:
        by_chart[where[chart_id]].add(name)
    return by_chart


@pytest.fixture(scope="module")
def night(fast):
    charts = fast.table(daytime=False)
    by_chart = defaultdict(set)
    for chart_id, name in _rows(fast, charts, "pattern", 2):
        by_chart[chart_id].add(name)
    return charts, by_chart


def charts_with(bulk, name) -> set:
    return {key for key, names in bulk.items() if name in names}


def days_of(keys) -> set:
    return {day for day, _ in keys}


def parse(spec: str) -> set:
    """'壬子1 丙午1' → {('壬子', 1), ('丙午', 1)}."""
    return {(item[:2], int(item[2:])) for item in spec.split()}


# declarations -----------------------------------------------------------------------------
def test_every_pattern_has_one_group_and_one_gloss(session):
    names = session.kb.program.members["pattern"]
    groups = session.kb.query("pattern_group", [None, None])
    glosses = session.kb.query("pattern_gloss", [None, None, None])
    assert sorted(p for p, _ in groups) == sorted(names)
    assert sorted(p for p, _, _ in glosses) == sorted(names)
    assert all(en and note for _, en, note in glosses)
    assert len(names) > 200


def test_every_general_state_is_a_pattern_of_the_generals(session):
    states = {s for _, _, s in session.kb.query("palace_state", [None, None, None])}
    group = {p for p, g in session.kb.query("pattern_group", [None, "天將"])}
    assert states <= group
    assert all(any(s.startswith(g) for g in GENERALS) for s in group)


def test_the_virtue_table_gives_exactly_the_seeds_four_ghostly_virtues(session):
    # 「凡德加干發用為鬼…惟寅己、申乙、巳辛、亥丁四課」: the virtues that overcome their own stem.
    virtues = session.kb.query("stem_virtue", [None, None])
    ghostly = {(s, b) for s, b in virtues if session.kb.holds("overcomes", [b, s])}
    assert ghostly == {("己", "寅"), ("乙", "申"), ("辛", "巳"), ("丁", "亥")}


# the first seed case -----------------------------------------------------------------------
def test_first_seed_case_shows_the_noble_in_prison_and_the_ghost_calling(session):
    chart = session.cast("辛巳", "寅", "午")
    found = {name for (name,) in chart.rows("pattern")}
    assert {"貴人入獄", "鬼呼"} <= found
    # the seed's own example of 傳鬼為貴人盜氣 is this chart: 辛巳日，午加辛發用，三傳火局，貴、勾、常
    assert "傳鬼盜氣" in found
    # 「課得天網」 is 天網四張 (the hour 午 and the initial 午 both overcome 辛), a pattern of the
    # chart, not the monthly spirit 天網 that falls on 申 in the tenth month
    assert "天網" in found
    texts = {"000": seed_text("000"), "003": seed_text("003")}
    for name, rule_id in (("貴人入獄", "pattern.guiren_ruyu"), ("鬼呼", "pattern.gui_hu"), ("天網", "pattern.tian_wang")):
        graph = session.why(None, f"pattern({chart.id}, {name})")
        rules = {d["rule"]: d["source"] for _, d in graph.nodes(data=True) if d.get("kind") == "rule"}
        assert rule_id in rules, (name, sorted(rules))
        key, _, quote = rules[rule_id].partition(": ")
        assert quote and re.sub(r"\s+", "", quote) in texts[key]
    noble = session.why(None, f"pattern({chart.id}, 貴人入獄)")
    assert any(d.get("text") == f"general_seat({chart.id}, 貴人, 午, 戌)" for _, d in noble.nodes(data=True))
    ghost = session.why(None, f"pattern({chart.id}, 鬼呼)")
    assert any(d.get("text") == "element_tomb(火, 戌)" for _, d in ghost.nodes(data=True))


# 德 -----------------------------------------------------------------------------------------
def test_virtue_patterns_on_the_seeds_example_days(bulk):
    # 德神化鬼 asks that the virtue over the stem also start the transmissions (發用). Of the four
    # lessons the seed lists, only 亥 over 丁 and 申 over 乙 ever do among the 720 charts: 寅 over
    # 己 and 巳 over 辛 always lose to another lesson's 剋.
    assert charts_with(bulk, "德神化鬼") == parse("丁未4 丁酉4 乙酉4")
    assert ("乙未", 2) in charts_with(bulk, "德受下賊")       # 如乙未日，申加午發用
    assert ("丁酉", 4) in charts_with(bulk, "德神歸日")       # 如丁酉日陽貴干上亥
    assert ("乙酉", 11) in charts_with(bulk, "鬼德格")        # 如乙酉日遙剋，申加酉發用
    assert ("己巳", 9) in charts_with(bulk, "文德格")         # 如己巳日寅加巳發用作官星，順貴，朱臨寅


# 合 -----------------------------------------------------------------------------------------
def test_combinations_over_the_day_on_the_seeds_days(bulk):
    # 「凡支加干，上神剋近相合…惟壬子、戊午、丙午三日有之」 and 「止三日。壬子（子壬）、丙午（午丙）、戊午（午戌）」
    assert charts_with(bulk, "上神近合") == parse("壬子1 丙午1 戊午1")
    # 「惟壬申、戊寅、丙寅日六課」, the charts 申丙 寅丙 寅壬 申壬 申戊 寅戊 of line 2226
    assert charts_with(bulk, "合破相害") == parse("丙寅3 丙寅9 壬申3 壬申9 戊寅3 戊寅9")
    # 「乙卯、辛酉二日四課」: 丑乙 未乙 丑辛 未辛
    assert charts_with(bulk, "害中合") == parse("乙卯3 乙卯9 辛酉3 辛酉9")


def test_crossed_over_uppers_combine_on_more_days_than_the_seed_lists(bulk):
    # 「凡支加干，上神相合；或干加支，上神相合…惟丙寅、丙戌、戊戌三日有之」. The rule, read as
    # written (less the neighbouring pairs of 上神近合), also finds 乙亥 辛巳 壬辰 壬申 戊寅.
    # 戊寅 stands on the same plate as the listed 丙寅 (丙 and 戊 both lodge in 巳), so no rule over
    # the chart can take one and leave the other; the seed's list is short.
    derived = charts_with(bulk, "加臨相合")
    assert days_of(derived) >= {"丙寅", "丙戌", "戊戌"}
    assert derived == parse("丙寅3 丙寅9 丙戌5 戊戌5 乙亥5 辛巳5 壬辰5 壬申3 壬申9 戊寅3 戊寅9")


def test_trine_and_six_combination_covers_the_seeds_nine_charts(bulk):
    # 「凡萬事喜忻，三、六合，止八日九課」: 壬寅（未壬） 乙酉（申乙） 壬午（卯壬、未壬） 丙申 丙辰 丙子
    # 戊辰 戊申（丑丙 / 丑戊）. The rule (every upper in a trine with its palace, a six-combination
    # among stem, branch and the two uppers) finds these nine and 21 more: 戊子 stands on the
    # plates of the listed 丙子, and 辛卯 辛未 辛亥 乙丑 乙巳 壬戌 have the same shape.
    seed = parse("壬寅8 乙酉4 壬午4 壬午8 丙申8 丙辰8 丙子8 戊辰8 戊申8")
    derived = charts_with(bulk, "三六合")
    assert seed <= derived
    assert days_of(derived) == {"丙子", "丙申", "丙辰", "乙丑", "乙巳", "乙酉", "壬午", "壬寅", "壬戌",
                                "戊子", "戊申", "戊辰", "辛亥", "辛卯", "辛未"}
    assert {o for _, o in derived} == {4, 8}


def test_of_one_heart_on_the_seeds_days(bulk, fast):
    # 「乙酉、丙申、戊申、辛卯、壬寅五日返吟，干支相合，上神亦相合」: the days whose stem and
    # branch combine are exactly these five.
    charts = fast.table()
    combine = {c for (c,) in _rows(fast, charts, "ganzhi_combine", 1)}
    assert {chart.day for chart in charts if chart.id in combine} == {"乙酉", "丙申", "戊申", "辛卯", "壬寅"}
    tongxin = charts_with(bulk, "同心格")
    assert parse("乙酉6 丙申6 戊申6 辛卯6 壬寅6") <= tongxin
    # 甲申日亥加干 · 乙亥日卯加干 · 壬午日未加干
    assert parse("甲申9 乙亥11 壬午8") <= tongxin


def test_crossing_carts_once_a_day_except_where_stem_and_branch_share_a_palace(bulk):
    # 「此例除甲寅、庚申、丁未、己未、癸丑五日支干同處，交車不合，餘則一日一課」
    jiaoche = charts_with(bulk, "交車格")
    per_day = defaultdict(int)
    for day, _ in jiaoche:
        per_day[day] += 1
    assert len(per_day) == 55 and set(per_day.values()) == {1}
    assert not {"甲寅", "庚申", "丁未", "己未", "癸丑"} & set(per_day)


@pytest.mark.parametrize("name, example", [
    ("交車長生合", "甲申3"),   # 甲申日，干上巳為支長生，支上亥為干長生
    ("交車財合", "辛丑2"),     # 辛丑日，干上子為支財，支上卯為干財
    ("交車脫合", "戊辰4"),     # 戊辰日，干上酉脫，支上申脫
    ("交車害合", "丁丑5"),     # 丁丑日 (干上子害未，支上午害丑; the seed's text garbles 干上 as 午)
    ("交車空合", "辛亥4"),     # 辛亥日，干上寅空，支上卯空
    ("交車刑合", "癸卯9"),     # 癸卯日，干上戌刑干，支上子刑支
    ("交車衝合", "甲申3"),     # 七 (name lost): 甲申日，巳亥寅申又相剋
    ("交車剋合", "庚子5"),     # 八 (name lost): 庚子日，干上丑剋支，支上巳剋干
    ("交車交會合", "乙丑8"),   # 乙丑日，干上子，支上酉，三傳巳丑酉
])
def test_each_kind_of_crossing_carts_on_its_example(bulk, name, example):
    (key,) = parse(example)
    assert name in bulk[key] and "交車格" in bulk[key]


def test_three_crossings_on_the_seeds_two_charts_and_their_twins(bulk):
    # 「惟己酉日辰加干，丁卯日戌加干二課」. 丁 and 己 lodge in the same palace, so 丁酉 (辰加干) and
    # 己卯 (戌加干) stand on the same plates with the same transmissions: the seed lists one of
    # each pair.
    assert charts_with(bulk, "交車三交合") == parse("己酉9 丁卯3 丁酉9 己卯3")


def test_trines_crossing_in_attack_on_the_seeds_example(bulk):
    assert ("甲子", 8) in charts_with(bulk, "三合交剋")     # 甲子日，干上戌，支上申


# 鬼 -----------------------------------------------------------------------------------------
def test_ghost_patterns_on_the_seeds_example_days(bulk):
    assert ("庚辰", 1) in charts_with(bulk, "攢眉格")        # 庚辰日午加巳發用
    assert ("己丑", 1) in charts_with(bulk, "家鬼弄家神")    # 己丑日，支上寅發用，三傳寅卯辰
    assert ("癸亥", 3) in charts_with(bulk, "支神救鬼")      # 癸亥日，辰加干發用，支上寅制之
    assert ("丙子", 7) in charts_with(bulk, "鬼脫生格")      # 丙子日，干上子發用，生末傳寅


def test_ghost_trine_feeding_the_stem_misses_days_whose_transmissions_differ(bulk):
    # The seed: 庚午 (干上辰，三傳戌午寅) and 「庚寅、午、戌，乙巳、酉、丑，己巳七日同」. In this KB
    # 庚寅 庚午 庚戌 with 辰 over the stem transmit 子申辰 (庚午: 子 and 戌 both 下賊, 涉害 takes
    # 子; 庚戌: 子 the only 下賊), not the fire trine, and no 己巳 chart has a wood trine under
    # fire over the stem; so only the three 乙 days are derived.
    assert charts_with(bulk, "鬼局生干") == parse("乙丑8 乙巳8 乙酉8")


def test_virtue_and_noble_holding_the_ghost_by_night(fast):
    # 乙丑、乙巳二日，酉加巳發用，三傳酉丑巳金局為鬼，申加干為德、為貴 (申 is 乙's night noble)
    for day in ("乙丑", "乙巳"):
        chart = fast.cast_offset(day, 4, daytime=False)
        assert "貴德臨身" in {name for (name,) in chart.rows("pattern")}


def test_borrowed_profit_needs_an_earth_general_on_the_wood_trine(fast, bulk):
    # 壬子日，未加卯發用，三傳木局，夜貴，貴、勾、常為鬼: the hidden ghost is an earth general on
    # the transmissions, which the wood trine overcomes. The noble table decides which generals
    # ride 未亥卯; 天空 counts as earth (戌土), so whichever earth general rides them makes the
    # seed's example 借益格, and without one it is not.
    chart = fast.cast_offset("壬子", 4, daytime=False)
    # with 壬's night noble on 卯 (the table of practice) they are the seed's own 勾陳 太常 貴人
    assert [t.general for t in chart.transmissions] == ["勾陳", "太常", "貴人"]
    earth = {t.general for t in chart.transmissions} & {"貴人", "勾陳", "太常", "天空"}
    found = "借益格" in {name for (name,) in chart.rows("pattern")}
    assert found == bool(earth)
    if found:
        graph = fast.why(None, f"pattern({chart.id}, 借益格)")
        texts = {d.get("text") for _, d in graph.nodes(data=True)}
        assert any(f"general_element({g}, 土)" in texts for g in earth)
    assert charts_with(bulk, "借益格")


# 墓 -----------------------------------------------------------------------------------------
STEM_GROUPS = {"甲": "甲乙", "乙": "甲乙", "丙": "丙丁", "丁": "丙丁", "戊": "戊己壬癸", "己": "戊己壬癸",
               "庚": "庚辛", "辛": "庚辛", "壬": "戊己壬癸", "癸": "戊己壬癸"}


def offsets(upper: str, palace: str) -> int:
    return (BRANCHES.index(upper) - BRANCHES.index(palace)) % 12


@pytest.mark.parametrize("name, seed", [
    ("長生乘墓", {"甲乙": "未亥", "丙丁": "戌寅", "戊己壬癸": "辰申", "庚辛": "丑巳"}),     # 甲乙日未臨亥 …
    ("長生自乘墓", {"甲乙": "辰亥", "丙丁": "未寅", "戊己壬癸": "丑申", "庚辛": "戌巳"}),   # 甲乙日辰加亥 …
    ("長生坐墓", {"甲乙": "亥辰", "丙丁": "寅未", "戊己壬癸": "申丑", "庚辛": "巳戌"}),     # 甲乙日亥臨辰 …
])
def test_birth_and_tomb_on_the_seeds_plates(bulk, name, seed):
    derived = charts_with(bulk, name)
    assert derived
    for day, offset in derived:
        upper, palace = seed[STEM_GROUPS[day[0]]]
        assert offset == offsets(upper, palace), (name, day, offset)


def test_birth_walking_into_its_tomb_is_the_fourth_turn(bulk):
    # 寅加戌，巳加丑，申加辰，亥加未: all four stand four places on
    assert {o for _, o in charts_with(bulk, "自生入墓")} == {4}


def test_the_branch_wearing_and_sitting_on_its_tomb(bulk):
    # 辰加亥子并辰戌丑未；未加寅卯，丑加申酉；戌加巳午 — and 坐墓 the other way round
    tomb = {"子": "辰", "亥": "辰", "辰": "辰", "戌": "辰", "丑": "辰", "未": "辰",
            "寅": "未", "卯": "未", "申": "丑", "酉": "丑", "巳": "戌", "午": "戌"}
    wears = charts_with(bulk, "支戴墓")
    sits = charts_with(bulk, "支坐墓")
    assert len(wears) == len(sits) == 60
    assert all(o == offsets(tomb[day[1]], day[1]) for day, o in wears)
    assert all(o == offsets(day[1], tomb[day[1]]) for day, o in sits)


# 課體 (the day lists at the end of the chapter) -------------------------------------------
def test_mourning_gate_and_condoler_on_exactly_the_ten_days(bulk):
    # 「凡喪弔全逢惟十日。甲午、丁亥、己亥、庚子、癸巳…甲戌、丁卯、己卯、庚辰、癸酉五日」
    assert charts_with(bulk, "喪弔全逢") == parse("甲午2 丁亥2 己亥2 庚子2 癸巳2 甲戌10 丁卯10 己卯10 庚辰10 癸酉10")


def test_source_dried_root_cut_covers_the_seeds_four_charts(bulk):
    # 「止四日四課。癸未（卯癸）、癸巳（卯癸）、癸卯（卯癸）、辛卯（子辛）」. The rule (every lesson
    # drained by its upper) finds those four and 13 more: 辛巳 辛未 己卯 己巳 己未 on the same turn,
    # and the 甲 戊 庚 壬 days two turns on (甲寅4 甲辰4 戊子3 戊申3 庚子3 庚申3 壬子3 壬申3).
    derived = charts_with(bulk, "源消根斷")
    assert parse("癸未2 癸巳2 癸卯2 辛卯2") <= derived
    assert len(derived) == 17


def test_the_ding_spirit_over_the_house_on_every_xin_day(bulk):
    # 「凡六辛日午加辛，亦丁神臨宅」: once a day, and on the six 辛 days with 午 over 辛
    derived = charts_with(bulk, "丁神臨宅")
    assert len(derived) == 60 and len(days_of(derived)) == 60
    assert parse("辛丑8 辛卯8 辛巳8 辛未8 辛酉8 辛亥8") <= derived


# 刑 follows the loaded reading -------------------------------------------------------------------
def test_punishment_patterns_follow_the_loaded_reading(fast, bulk):
    other = Session(readings={"punishment": "seed000"}, engine="materialise")
    charts = other.table()
    where = {chart.id: (chart.day, chart.offset) for chart in charts}
    seed000 = {where[c] for c, p in _rows(other, charts, "pattern", 2) if p == "干刑"}
    common = charts_with(bulk, "干刑")
    lost, gained = common - seed000, seed000 - common
    assert lost and gained
    # at the stem, only the common reading has 申 punishing 寅 (甲) or 未 punishing 丑 (癸), and only
    # seed 000's has 未 punishing 辰 (乙) or 申 punishing 亥 (壬), unless the transmissions themselves
    # changed (伏吟 takes its transmissions through 刑)
    common_sanchuan = {chart.id: chart.sanchuan for chart in fast.table()}
    same = {(c.day, c.offset) for c in charts if c.sanchuan == common_sanchuan[c.id]}
    assert {day[0] for day, offset in lost & same} == set("甲癸")
    assert {day[0] for day, offset in gained & same} == set("乙壬")
    # 朋刑 stays within the seed's two triads: 未刑辰 and 申刑亥 are 刑, but not 朋刑
    peng = {where[c] for c, p in _rows(other, charts, "pattern", 2) if p == "朋刑"}
    assert peng and ("乙巳", 3) in seed000 and ("乙巳", 3) not in peng  # 未 over 辰, the stem's lodging


# 天將 ---------------------------------------------------------------------------------------
def test_no_general_rides_where_the_seed_says_it_never_does(fast, night):
    # 「十二天將，惟貴神、天空不乘辰戌，玄武、六合不乘丑末」
    day_charts = fast.table()
    assert _rows(fast, day_charts, "forbidden_ride", 3) == []
    assert _rows(fast, night[0], "forbidden_ride", 3) == []


# Under this KB's direction rule (the noble over 亥…辰 runs forward, else backward) a general k
# steps from the noble never stands over these palaces, so their states cannot occur; seed 000
# itself says 晝順行，夜逆行 (line 2245), a reading under which every state could.
UNREACHABLE = {"螣蛇": "戌亥", "朱雀": "子酉戌亥", "六合": "子丑申酉戌亥", "勾陳": "酉戌亥",
               "青龍": "戌亥", "白虎": "辰巳", "太常": "卯辰巳午", "玄武": "寅卯辰巳午未",
               "太陰": "卯辰巳午", "天后": "辰巳"}


def test_every_palace_state_occurs_unless_the_direction_rule_forbids_it(fast, bulk, night):
    seen = set().union(*bulk.values(), *night[1].values())
    states = fast.kb.query("palace_state", [None, None, None])
    missing = {(g, p) for g, p, s in states if s not in seen}
    expected = {(g, p) for g, ps in UNREACHABLE.items() for p in ps}
    assert missing == expected
    # the noble in prison is exactly the noble over 辰 or 戌
    noble = {(c.day, c.offset) for c in fast.table() if c.heaven.get("戌") == c.noble or c.heaven.get("辰") == c.noble}
    assert charts_with(bulk, "貴人入獄") == noble


def test_monthly_and_seasonal_states_of_a_dated_chart(fast):
    # the first seed case cast from its date: the tenth month (亥), winter. 螣蛇 stands over 酉:
    # 交戰 in the tenth month (正卯、二酉、三子、四午，週而復始 → 十 酉) and 當臥 in winter (冬酉);
    # 青龍 rides 丑 over 巳: 臥 in winter (冬巳).
    chart = fast.cast_at("1998-11-30 12:00")
    states = {(g, s) for g, s in chart.rows("general_state")}
    assert {("螣蛇", "螣蛇交戰"), ("螣蛇", "螣蛇當臥"), ("青龍", "青龍臥"), ("貴人", "貴人入獄")} <= states


@pytest.mark.parametrize("moment, name", [
    ("1998-01-30 12:30", "衝歲"),   # a 丁丑 year: 丑 over the stem clashes 未, 未 over the branch clashes 丑
    ("1998-01-04 12:30", "衝月"),   # a 壬子 month: 巳 over 辛 clashes 亥 (壬), 午 over 亥 clashes 子
    ("1998-01-01 18:30", "盤珠"),   # 戊申 day, 酉 hour, 子 month, 丑 year: all four in 課傳 (酉丑子辰, 辰申子)
])
def test_year_and_month_patterns_of_dated_charts(fast, moment, name):
    chart = fast.cast_at(moment)
    assert name in {n for (n,) in chart.rows("pattern")}


def test_bulk_query_time(bulk):
    # the measured time is printed with -s; the budget is generous: it is one lookup
    print({k: round(v, 3) for k, v in TIMINGS.items()})
    assert TIMINGS["bulk pattern query, 720 charts"] < 10


# the month: a bare branch is the same month as its pillar ------------------------------------
def _monthly_conclusions(sess, day, month, **given):
    """Patterns, generals' states and 課體 of a day's 24 charts (12 offsets, day and night) in a month."""
    inputs = [sess.offset_input(day, o, daytime, month=month, **given) for daytime in (True, False) for o in range(12)]
    return [{pred: sorted(c.rows(pred)) for pred in ("pattern", "general_state", "keti")}
            for c in sess.cast_many(inputs)]


def test_a_month_given_as_a_branch_gives_the_patterns_of_its_pillar(fast):
    # 甲子 day in a 亥 month: 白虎仰視 螣蛇交戰 青龍開眼 … read the month branch; 衝月 also reads the
    # month's stem, which a bare branch leaves unknown until the year gives it (癸卯 year: 癸亥 month)
    pillar = _monthly_conclusions(fast, "甲子", "癸亥")
    named = {str(v) for chart in pillar for rows in chart.values() for row in rows for v in row}
    assert {"白虎仰視", "螣蛇交戰", "青龍開眼", "天后淫亂", "衝月"} <= named
    assert _monthly_conclusions(fast, "甲子", "亥", year="癸卯") == _monthly_conclusions(fast, "甲子", "癸亥", year="癸卯")
    bare = _monthly_conclusions(fast, "甲子", "亥")
    for by_branch, by_pillar in zip(bare, pillar):
        assert by_branch["general_state"] == by_pillar["general_state"] and by_branch["keti"] == by_pillar["keti"]
        assert set(by_pillar["pattern"]) - set(by_branch["pattern"]) <= {("衝月",)}


def test_month_branch_and_pillar_on_the_command_line(capsys):
    from liuren_logic.faces.cli import main

    shown = []
    for month in ("亥", "癸亥"):
        assert main(["cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--month", month, "--json"]) == 0
        shown.append(json.loads(capsys.readouterr().out)["patterns"])
    assert shown[0] == shown[1] and any(p["pattern"] == "螣蛇交戰" for p in shown[0])
