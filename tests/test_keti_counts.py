"""Over the 720 charts (day charts, hour 午), how many carry each 課體: the KB's count, the count
of a definition written here independently of the KB rule (a predicate over the cast chart's
plates, lessons and transmissions), and the table in docs/keti_counts.md must all agree."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
STEMS = "甲乙丙丁戊己庚辛壬癸"
ELEMENT = dict(zip(STEMS, "木木火火土土金金水水")) | dict(zip(BRANCHES, "水土木木土火火土金金土水"))
OVERCOMES = {"木": "土", "土": "水", "水": "火", "火": "金", "金": "木"}
LODGING = dict(zip(STEMS, "寅辰巳未巳未申戌亥丑"))
BIRTH = {"木": "亥", "火": "寅", "金": "巳", "水": "申", "土": "申"}
TOMB = {"木": "未", "火": "戌", "金": "丑", "水": "辰", "土": "辰"}
TRINES = {"潤下": set("申子辰"), "炎上": set("寅午戌"), "曲直": set("亥卯未"), "從革": set("巳酉丑")}
COMBINES = {frozenset(p) for p in ("子丑", "寅亥", "卯戌", "辰酉", "巳申", "午未")}
GENERAL_ELEMENT = dict(zip("貴人 螣蛇 朱雀 六合 勾陳 青龍 天空 白虎 太常 玄武 太陰 天后".split(), "土火火木土木土金土水金水"))
XUN_QI = {"子": "丑", "戌": "丑", "申": "子", "午": "子", "辰": "亥", "寅": "亥"}
HARMS = {frozenset(p) for p in ("子未", "丑午", "寅巳", "卯辰", "申亥", "酉戌")}
BREAKS = {frozenset(p) for p in ("子酉", "卯午", "辰丑", "未戌", "寅亥", "巳申")}
# 三刑 as the default school reads it (docs/rules.md §1): 寅巳申 and 丑戌未 in a ring, 子卯, 辰午酉亥 self
PUNISHES = {"寅": "巳", "巳": "申", "申": "寅", "丑": "戌", "戌": "未", "未": "丑", "子": "卯", "卯": "子",
            "辰": "辰", "午": "午", "酉": "酉", "亥": "亥"}
JIUCHOU = {"乙卯", "乙酉", "戊子", "戊午", "己卯", "己酉", "辛卯", "辛酉", "壬子", "壬午"}
# docs/rules.md §3: the methods and their names over the 720 charts (facts to test against)
# (涉害 is left out: its 課體 also names the 返吟 charts that wade)
METHODS = {"賊剋": 337, "比用": 81, "見機": 11, "察微": 9, "遙剋": 65, "蒿矢": 40, "彈射": 25,
           "伏吟": 60, "返吟": 60, "昴星": 16, "別責": 9}
DOC = Path(__file__).resolve().parents[1] / "docs" / "keti_counts.md"


def over(a, b):
    return OVERCOMES[ELEMENT[a]] == ELEMENT[b]


def rank(b):
    return "孟" if b in "寅申巳亥" else "仲" if b in "子午卯酉" else "季"


def gen(a, b):
    return "木火土金水"[("木火土金水".index(ELEMENT[a]) + 1) % 5] == ELEMENT[b]


def steps(t):
    i = [BRANCHES.index(b) for b in t]
    return ((i[1] - i[0]) % 12, (i[2] - i[1]) % 12)


class View:
    """What a definition may look at: the inputs, heaven over earth, the lessons, the 三傳."""

    def __init__(self, chart):
        self.stem, self.branch, self.hour = chart.inputs.stem, chart.inputs.branch, chart.hour
        self.heaven = chart.heaven
        self.palace = LODGING[self.stem]
        self.lessons = [(l.upper, l.lower) for l in chart.lessons]
        self.t = [t.branch for t in chart.transmissions]
        self.up = sum(over(u, l) for u, l in self.lessons)
        self.down = sum(over(l, u) for u, l in self.lessons)
        seats = [(u, self.palace if l in STEMS else l) for u, l in self.lessons]
        self.distinct = len(set(seats))
        self.generals = chart.generals
        self.noble_seat = next(e for e, u in self.heaven.items() if u == chart.noble)

    def gan(self):
        return self.heaven[self.palace]

    def zhi(self):
        return self.heaven[self.branch]


def prosper(symbol, branch):  # branch is the 帝旺 of symbol: four places on from its element's 長生
    return (BRANCHES.index(branch) - BRANCHES.index(BIRTH[ELEMENT[symbol]])) % 12 == 4


def trine(*branches):
    return len(set(branches)) == 3 and any(set(branches) == m for m in TRINES.values())


def clash(a, b):
    return (BRANCHES.index(a) - BRANCHES.index(b)) % 12 == 6


def void(v):
    head = decade(v)[0]
    return {BRANCHES[(BRANCHES.index(head) + k) % 12] for k in (10, 11)}


def decade(v):
    head = BRANCHES[(BRANCHES.index(v.branch) - STEMS.index(v.stem)) % 12]
    return head, BRANCHES[(BRANCHES.index(head) + 9) % 12]


DEFINITIONS = {
    "玄胎": lambda v: all(rank(b) == "孟" for b in v.t),
    "稼穡": lambda v: all(rank(b) == "季" for b in v.t),
    **{name: (lambda members: lambda v: set(v.t) == members)(m) for name, m in TRINES.items()},
    "全局": lambda v: any(set(v.t) == m for m in TRINES.values()) or all(rank(b) == "季" for b in v.t),
    "進茹": lambda v: steps(v.t) == (1, 1),
    "退茹": lambda v: steps(v.t) == (11, 11),
    "連珠": lambda v: steps(v.t) in ((1, 1), (11, 11)),
    "連茹": lambda v: steps(v.t) in ((1, 1), (11, 11)),
    "間傳": lambda v: steps(v.t) in ((2, 2), (10, 10)),
    "迎陽": lambda v: "".join(v.t) == "卯巳未",
    "顧祖": lambda v: "".join(v.t) == "午辰寅",
    "度厄": lambda v: v.up == 3 or v.down == 3,
    "無祿": lambda v: v.up == 4,
    "絕嗣": lambda v: v.down == 4,
    "不備": lambda v: v.distinct == 3,
    "八專": lambda v: v.palace == v.branch,
    "亂首": lambda v: (v.zhi() == v.palace and over(v.branch, v.palace) and v.t[0] == v.palace)
    or (v.gan() == v.branch and over(v.branch, v.stem)),
    "贅婿": lambda v: over(v.stem, v.branch) and ((v.gan() == v.branch and v.t[0] == v.branch)
                                                or (v.zhi() == v.palace and v.t[0] == v.palace)),
    "斬關": lambda v: v.gan() in "辰戌" or v.zhi() in "辰戌",
    "鑄印": lambda v: v.heaven["巳"] == "戌" and "戌" in v.t,
    "斫輪": lambda v: v.t[0] == "卯" and (v.heaven["申"] == "卯" or v.heaven["戌"] == "卯"),
    "三交": lambda v: all(rank(b) == "仲" for b in v.t),
    "九醜": lambda v: v.stem + v.branch in JIUCHOU and v.zhi() == "丑",
    "天網": lambda v: over(v.hour, v.stem) and over(v.t[0], v.stem),
    "天獄": lambda v: v.t[0] == TOMB[ELEMENT[v.stem]] and v.heaven[BIRTH[ELEMENT[v.stem]]] == "辰",
    "周遍": lambda v: (v.gan(), v.zhi()) in (decade(v)[::-1], decade(v)),
    "交車": lambda v: v.palace != v.branch and frozenset((v.gan(), v.branch)) in COMBINES
    and frozenset((v.zhi(), v.palace)) in COMBINES,
    "龍虎": lambda v: v.branch in "卯酉" and v.t[0] == v.branch,
    "三奇": lambda v: XUN_QI[decade(v)[0]] in v.t,
    "六儀": lambda v: v.t[0] == decade(v)[0],
    # 閉口: 旬尾加旬首, or the head (or the upper over it) carries 玄武 and is the initial
    "閉口": lambda v: v.heaven[decade(v)[0]] == decade(v)[1]
    or (v.t[0] in (decade(v)[0], v.heaven[decade(v)[0]]) and v.generals[v.t[0]] == "玄武"),
    "引從": lambda v: any(BRANCHES.index(v.t[0]) == (BRANCHES.index(p) + 1) % 12
                        and BRANCHES.index(v.t[2]) == (BRANCHES.index(p) - 1) % 12 for p in (v.palace, v.branch)),
    # 亨通: 三傳遞生日干, or 干支俱互生旺 (干上 支上 generate, or are the 帝旺 of, stem and branch)
    "亨通": lambda v: (gen(v.t[0], v.t[1]) and gen(v.t[1], v.t[2]) and gen(v.t[2], v.stem))
    or (gen(v.t[2], v.t[1]) and gen(v.t[1], v.t[0]) and gen(v.t[0], v.stem))
    or (gen(v.gan(), v.branch) and gen(v.zhi(), v.stem)) or (gen(v.gan(), v.stem) and gen(v.zhi(), v.branch))
    or (prosper(v.branch, v.gan()) and prosper(v.stem, v.zhi())) or (prosper(v.stem, v.gan()) and prosper(v.branch, v.zhi())),
    "淫泆": lambda v: v.t[0] in "卯酉" and v.generals[v.t[0]] in ("天后", "六合"),
    "蕪淫": lambda v: (v.distinct == 3 and v.up + v.down > 0) or (over(v.gan(), v.branch) and over(v.zhi(), v.stem)),
    "殃咎": lambda v: (over(v.t[0], v.t[1]) and over(v.t[1], v.t[2]) and over(v.t[2], v.stem))
    or (over(v.t[2], v.t[1]) and over(v.t[1], v.t[0]) and over(v.t[0], v.stem))
    or (v.gan() == TOMB[ELEMENT[v.stem]] and v.zhi() == TOMB[ELEMENT[v.branch]])
    or OVERCOMES[ELEMENT[v.t[0]]] == GENERAL_ELEMENT[v.generals[v.t[0]]],
    "勵德": lambda v: v.noble_seat in "卯酉",
    "遊子": lambda v: all(rank(b) == "季" for b in v.t)  # and the initial carries the decade's 丁
    and (BRANCHES.index(v.t[0]) - BRANCHES.index(decade(v)[0])) % 12 == STEMS.index("丁"),
    "六純": lambda v: len({BRANCHES.index(b) % 2 for b in [u for u, _ in v.lessons] + v.t}) == 1,
    # 和美: 干上 合 支 and 支上 合 干 (遞互); each 合 its own upper (上下); 干上 支上 and a transmission a trine
    "和美": lambda v: (frozenset((v.gan(), v.branch)) in COMBINES and frozenset((v.zhi(), v.palace)) in COMBINES)
    or (frozenset((v.gan(), v.palace)) in COMBINES and frozenset((v.zhi(), v.branch)) in COMBINES)
    or any(trine(v.gan(), v.zhi(), b) for b in v.t),
    # 侵害 (《粹言》): an upper harms the stem's palace or branch under it, and one of the two is the initial
    "侵害": lambda v: any(frozenset((u, d)) in HARMS and v.t[0] in (u, d)
                        for u, d in ((v.gan(), v.palace), (v.zhi(), v.branch))),
    # 刑傷 (《粹言》): the initial, over the stem or the branch, punishes the stem's palace or the branch
    "刑傷": lambda v: v.t[0] in (v.gan(), v.zhi()) and PUNISHES[v.t[0]] in (v.palace, v.branch),
    # 衝破: the initial clashes with the stem's palace or the branch and stands over the branch it breaks
    "衝破": lambda v: any(clash(v.t[0], d) for d in (v.palace, v.branch))
    and any(u == v.t[0] and frozenset((u, e)) in BREAKS for e, u in v.heaven.items()),
    # 鬼墓 (《大全》): the initial overcomes the stem and is the tomb of the stem's or the branch's element
    "鬼墓": lambda v: over(v.t[0], v.stem) and v.t[0] in (TOMB[ELEMENT[v.stem]], TOMB[ELEMENT[v.branch]]),
    "孤寡": lambda v: v.t[0] in void(v),
    "死奇": lambda v: v.t[0] == "辰" and "辰" in [u for u, _ in v.lessons],
    "重審*": lambda v: any(u == v.t[0] and over(l, u) for u, l in v.lessons),
    "元首*": lambda v: v.down == 0 and any(u == v.t[0] and over(u, l) for u, l in v.lessons),
}
# 重審 and 元首 are also method names: the * rows count the 課體 rule alone (the 賊剋 names are in METHODS)


@pytest.fixture(scope="module")
def counts(table):
    kb = Counter(k for chart in table for k in chart.keti)
    views = [View(chart) for chart in table]
    mine = {name: sum(bool(define(v)) for v in views) for name, define in DEFINITIONS.items()}
    return kb, mine


def doc_table():
    rows = re.findall(r"^\| (\S+) \| (\d+) \|", DOC.read_text("utf-8"), re.M)
    return {name: int(n) for name, n in rows}


def test_each_keti_count_agrees_with_an_independent_definition(counts):
    kb, mine = counts
    for name, n in mine.items():
        if name.endswith("*"):
            continue
        assert kb[name] == n, f"{name}: KB {kb[name]}, independent definition {n}"


def test_zhongshen_and_yuanshou_cover_the_zeike_names_and_more(counts, table):
    kb, mine = counts
    assert kb["重審"] == mine["重審*"] >= 218 and kb["元首"] == mine["元首*"] >= 119


def test_the_method_names_keep_the_counts_of_docs_rules(counts):
    kb, _ = counts
    for name, n in METHODS.items():
        assert kb[name] == n, name


def test_the_docs_table_gives_the_same_counts(counts):
    kb, _ = counts
    table = doc_table()
    assert table, "docs/keti_counts.md has no table"
    assert {name: n for name, n in table.items()} == {name: kb[name] for name in table}
    assert set(DEFINITIONS) - {n for n in DEFINITIONS if n.endswith("*")} <= set(table)
