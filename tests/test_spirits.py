"""神煞: every seed row, cell by cell, against spirit(C, 神煞, 支); one derivation; the seed case's 天目.

Month, year and season spirits need calendar facts: each test casts charts with a month branch
and / or a year pillar (cast(…, month=, year=)). Day spirits need no more than the cast.
"""
from __future__ import annotations

from collections import defaultdict

import pytest

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
MONTHS = "寅卯辰巳午未申酉戌亥子丑"          # 正月 … 臘月
SEASON_MONTH = {"春": "寅", "夏": "巳", "秋": "申", "冬": "亥"}
PILLARS = [("甲乙丙丁戊己庚辛壬癸"[i % 10] + BRANCHES[i % 12]) for i in range(60)]


def spirits_of(session, chart_id: str) -> dict[str, set[str]]:
    found = defaultdict(set)
    for _, name, branch in session.kb.query("spirit", [chart_id, None, None]):
        found[name].add(branch)
    return found


def calendar_chart(session, day: str, jiang: str, hour: str, month: str | None = None,
                   year: str | None = None) -> str:
    """A chart with a month branch and / or a year pillar, given as a cast takes them."""
    return session.cast(day, jiang, hour, month=month, year=year).id


@pytest.fixture(scope="module")
def by_month(session):
    """The spirits of twelve charts, one a month (year 甲子), keyed by the month branch."""
    return {m: spirits_of(session, calendar_chart(session, PILLARS[20 + i], "巳", "亥", month=m, year="甲子"))
            for i, m in enumerate(MONTHS)}


@pytest.fixture(scope="module")
def alt_by_month(session, by_month):
    found = {}
    for m in MONTHS:
        chart_id = calendar_chart(session, PILLARS[20 + MONTHS.index(m)], "巳", "亥", month=m)
        rows = defaultdict(set)
        for _, name, branch, seed in session.kb.query("spirit_alt", [chart_id, None, None, None]):
            rows[name].add((branch, seed))
        found[m] = rows
    return found


@pytest.fixture(scope="module")
def by_year(session):
    """Twelve charts, one for each year pillar 甲子 … 乙亥."""
    return {y: spirits_of(session, calendar_chart(session, PILLARS[40 + i], "申", "丑", year=y))
            for i, y in enumerate(PILLARS[:12])}


@pytest.fixture(scope="module")
def by_day(session):
    """Twelve charts, one for each day branch; no calendar facts needed."""
    return {PILLARS[i][1]: spirits_of(session, session.cast(PILLARS[i], "戌", "寅").id) for i in range(12)}


def assert_row(found: dict, name: str, cells: str, keys: str = MONTHS) -> None:
    missing = [(k, c) for k, c in zip(keys, cells) if c not in found[k][name]]
    assert not missing, f"{name}: {missing} (key, expected cell) not derived"


# ---------------------------------------------------------------- seed 003's month lists
FORWARD = {  # 寅順十二: the place in 正月
    "寅": "月建 小時 天虎 木煞 白浪", "卯": "天龍 遊煞 轉煞", "辰": "天醫 雌虎 瘟煞 天巫",
    "巳": "厄煞 孝杖 死神 電煞 火燭", "午": "死氣 官符 孝服 謾語 漫語", "未": "井煞 枯煞 小耗 天印 天羊 福神",
    "申": "月破 月衝 兵煞 大耗 路神 覆舟", "酉": "書信 天機 天錢 信煞", "戌": "天書 願神 地醫",
    "亥": "飛魂 伏殃 天詔 病煞 兒煞 遊魂 飛橫", "子": "生氣 雨煞", "丑": "血支 天坑 佛煞 天牛 墳墓 天師 牢怪",
}
BACKWARD = {  # 正起逆行
    "亥": "神煞 天豬 月合", "子": "天鼠 天視", "丑": "天怪", "寅": "風煞", "卯": "憂煞 焚煞 燭命",
    "辰": "厭對 血光", "巳": "月害 陰空", "午": "破器 化神 地咒", "未": "陰奸 邪神", "申": "天猴 風伯 天解",
    "酉": "軒轅 天雞", "戌": "天狗 四足 月厭 石煞 火光 火惡",
}
GROUPS = [  # cells for 正五九 二六十 三七冬 四八臘
    ("申巳寅亥", "驛馬"), ("酉午卯子", "天鬼 天吏 長繩 天咒"), ("戌未辰丑", "光影 黃幡 火怪 華蓋 黃旗"),
    ("亥申巳寅", "墓門 天網 女災 雷煞 劫煞"), ("子酉午卯", "坑坎煞 山魈 災煞 鏡煞 披麻煞"),
    ("丑戌未辰", "五盜 小煞 天煞 迷惑煞 月煞"), ("寅亥申巳", "天盜 雷公 陰煞"), ("卯子酉午", "桃花 咸池 懸索 大時"),
    ("辰丑戌未", "邪鬼 豹尾"), ("巳寅亥申", "月德 亡神 遊禍"), ("午卯子酉", "大煞 伏骨"),
    ("未辰丑戌", "下喪 月鬼 穢煞 喪魄 歲煞 喪魂"),
    ("巳申亥寅", "天旺 成神"), ("午酉子卯", "天破"), ("未戌丑辰", "香爐煞 喪門 獄煞"), ("申亥寅巳", "奸門"),
    ("酉子卯午", "天信"), ("戌丑辰未", "反激 鳳輦"), ("亥寅巳申", "陽煞"), ("子卯午酉", "邪督 天火 雨師"),
    ("丑辰未戌", "月奸"), ("寅巳申亥", "釜神 產煞 天廁 奸私"), ("卯午酉子", "盜神"), ("辰未戌丑", "天械 上喪 鑾輿"),
    ("午卯未酉", "繩索"),
]
TWELVE = {  # 正月 … 臘月, as printed (000's rows and 003's 正二三…臘 rows)
    "天德": "未申亥戌亥寅丑寅巳辰巳申",      # 丁申壬辛亥甲癸寅丙乙巳庚, stems at their lodgings
    "天德合": "亥巳未巳寅未巳亥戌申申辰",
    "月德合": "戌未未辰戌未未辰戌未未辰",    # 辛己丁乙
    "天馬": "午申戌子寅辰午申戌子寅辰", "皇恩": "戌丑辰未卯酉子午亥寅巳申",   # 皇恩 and 天獄 as seed 000 prints them
    "天獄": "子卯午酉" * 3, "天財": "辰午申戌子寅辰午申戌子寅",
    "天刑": "寅辰午申戌子寅辰午申戌子", "怪煞": "卯巳未酉亥丑卯巳未酉亥丑", "獸煞": "戌子寅辰午申戌子寅辰午申",
    "聖心": "亥巳子午丑未寅申卯酉辰戌", "玉字": "卯酉辰戌巳亥午子未丑申寅", "金堂": "辰戌巳亥午子未丑申寅酉卯",
    "受死": "戌辰亥巳子午丑未寅申卯酉", "罪至": "午子未丑申寅酉卯戌辰亥巳", "血忌": "丑未寅申卯酉辰戌巳亥午子",
    "會神": "未戌寅亥酉子丑午巳卯申辰", "信神": "申戌寅丑亥辰巳未巳未申戌", "皇恩大赦": "戌丑辰未卯酉子午亥寅巳申",
    "飛廉": "戌巳午未申酉辰亥子丑寅卯", "往亡": "寅巳申亥卯午酉子辰未戌丑", "市曹": "辰亥子丑申酉戌巳午未寅卯",
    "月刑": "巳子辰申午丑寅酉未亥卯戌", "進爵": "申亥巳申亥巳申亥巳申亥巳",
    "天解": "申未午巳辰卯寅丑子亥戌酉", "地解": "申申酉酉戌戌亥亥午午未未", "解神": "申申戌戌子子寅寅辰辰午午",
    "內解": "申申酉酉戌戌亥亥午午未未", "外解": "申申酉酉戌戌亥亥午午未未",
}


@pytest.mark.parametrize("start", sorted(FORWARD))
def test_monthly_forward_rows(by_month, start):
    cells = "".join(BRANCHES[(BRANCHES.index(start) + k) % 12] for k in range(12))
    for name in FORWARD[start].split():
        assert_row(by_month, name, cells)


@pytest.mark.parametrize("start", sorted(BACKWARD))
def test_monthly_backward_rows(by_month, start):
    cells = "".join(BRANCHES[(BRANCHES.index(start) - k) % 12] for k in range(12))
    for name in BACKWARD[start].split():
        assert_row(by_month, name, cells)


@pytest.mark.parametrize("cells, names", GROUPS, ids=[n.split()[0] for _, n in GROUPS])
def test_month_group_rows(by_month, cells, names):
    for name in names.split():
        assert_row(by_month, name, cells * 3)


@pytest.mark.parametrize("name", sorted(TWELVE))
def test_twelve_month_rows(by_month, name):
    assert_row(by_month, name, TWELVE[name])


def test_yuede_and_chanrao(by_month):
    assert_row(by_month, "月德", "巳寅亥申" * 3)               # 丙甲壬庚 at their lodgings
    assert_row(by_month, "纏繞", "申酉戌亥子丑寅卯辰巳午未")     # 甲子 is a yang year: forward from 申


# ---------------------------------------------------------------- seasons
SEASONAL = [  # 春 夏 秋 冬
    ("戌丑辰未", "天喜 天耳"), ("亥寅巳申", "返魂 刀砧"), ("子卯午酉", "返魂 刀砧"),
    ("丑辰未戌", "寡宿 三丘 關神 管神 天車 寡神"), ("寅巳申亥", "皇書 戰雄 吏神"), ("卯午酉子", "賊神 奸盜 絲麻 天盜"),
    ("辰未戌丑", "浴盆 天目 龍神 月符"), ("巳申亥寅", "喝散 孤辰 梁神 鑰神 喝神 籥神 孤神"), ("午酉子卯", "火鬼"),
    ("未戌丑辰", "哭神 五墓 地獄"), ("申亥寅巳", "煞神 絕氣 戰雌"), ("酉子卯午", "四廢 喪車"),
    ("丑子戌亥", "遊神 火神 憂神"), ("巳子酉辰", "戲神"), ("申寅巳亥", "飛禍"), ("巳卯酉子", "時盜 五盜"), ("寅亥申巳", "奸神"),
]


@pytest.mark.parametrize("cells, names", SEASONAL, ids=[n.split()[0] + c for c, n in SEASONAL])
def test_seasonal_rows(by_month, cells, names):
    for name in names.split():
        for season, cell in zip("春夏秋冬", cells):
            for month in MONTHS[(MONTHS.index(SEASON_MONTH[season])):][:3]:
                assert cell in by_month[month][name], (name, season, month)


@pytest.mark.parametrize("name, pillars", [("天赦", "戊寅 甲午 戊申 甲子"), ("天轉", "乙卯 丙午 辛酉 壬子"),
                                           ("地轉", "辛卯 戊午 癸酉 丙子")])
def test_seasonal_day_pillars(session, name, pillars):
    for season, pillar in zip("春夏秋冬", pillars.split()):
        chart_id = calendar_chart(session, pillar, "未", "酉", month=SEASON_MONTH[season])
        assert spirits_of(session, chart_id)[name] == {pillar[1]}
        off = calendar_chart(session, pillar, "未", "戌", month=MONTHS[(MONTHS.index(SEASON_MONTH[season]) + 3) % 12])
        assert name not in spirits_of(session, off)


# ---------------------------------------------------------------- years
def test_year_ring_and_rows(by_year):
    years = [p for p in PILLARS[:12]]
    column = "".join(y[1] for y in years)                 # 子 … 亥
    ahead = lambda k: "".join(BRANCHES[(BRANCHES.index(b) + k) % 12] for b in column)  # noqa: E731
    found = {y[1]: by_year[y] for y in years}
    for name, k in {"太歲": 0, "太陽": 1, "喪門": 2, "六合": 3, "官符": 4, "小耗": 5, "死符": 5, "歲破": 6,
                    "大耗": 6, "歲墓": 7, "白虎": 8, "福德": 9, "弔客": 10, "太陰": 10, "病符": 11}.items():
        assert_row(found, name, ahead(k), column)
    assert_row(found, "歲墓", "未申酉戌亥子丑寅卯辰巳午", column)      # 000: 歲後五位，如子年見未
    assert_row(found, "歲宅", "巳午未申酉戌亥子丑寅卯辰", column)      # 000: 歲前五位，如子年見巳
    assert_row(found, "五鬼", "辰卯寅丑子亥戌酉申未午巳", column)      # 五鬼逆行子加辰
    assert_row(found, "大將軍", "酉酉子子子卯卯卯午午午酉", column)    # 亥子丑年將軍酉，三年一移
    assert_row(found, "力士", "寅寅巳巳巳申申申亥亥亥寅", column)
    assert_row(found, "奏書", "亥亥寅寅寅巳巳巳申申申亥", column)
    assert_row(found, "蠶室", "申申亥亥亥寅寅寅巳巳巳申", column)
    assert_row(found, "博士", "巳巳申申申亥亥亥寅寅寅巳", column)
    assert_row(found, "黃幡", "辰丑戌未辰丑戌未辰丑戌未", column)      # 三合末
    assert_row(found, "豹尾", "戌未辰丑戌未辰丑戌未辰丑", column)
    assert_row(found, "歲刑", "卯戌巳子辰申午丑寅酉未亥", column)


def test_year_stem_spirits(by_year):
    jinshen = {"甲": "午未申酉", "乙": "辰巳", "丙": "子丑寅卯午未", "丁": "寅卯戌亥", "戊": "子丑申酉"}
    for year in PILLARS[:5]:
        assert by_year[year]["金神"] == set(jinshen[year[0]]), year
        assert by_year[year]["歲君"] == {"寅辰巳未巳"["甲乙丙丁戊".index(year[0])]}
    assert by_year["甲子"]["天庭"] == {"丑"}                             # 甲祿寅，祿後一位


# ---------------------------------------------------------------- days (003's table, header 子 … 亥)
DAY_ROWS = {
    "支德": "巳午未申酉戌亥子丑寅卯辰", "支儀": "午巳辰卯寅丑未申酉戌亥子", "支破": "酉辰亥午丑申卯戌巳子未寅",
    "破碎": "巳丑酉巳丑酉巳丑酉巳丑酉", "死神": "卯辰巳午未申酉戌亥子丑寅", "病符": "亥子丑寅卯辰巳午未申酉戌",
    "勾神": "卯戌巳子未寅酉辰亥午丑申", "絞神": "酉辰亥午丑申卯戌巳子未寅", "四煞": "未辰丑戌未辰丑戌未辰丑戌",
    "支亡": "亥申巳寅亥申巳寅亥申巳寅", "雷電": "辰辰未未戌戌丑丑寅寅卯卯", "雨師": "申酉戌亥子丑寅卯辰巳午未",
    "晴朗": "午未申酉戌亥子丑寅卯辰巳", "白衣翰林": "酉未巳卯丑亥酉未巳卯丑亥",
    "六合": "丑子亥戌酉申未午巳辰卯寅", "六害": "未午巳辰卯寅丑子亥戌酉申", "支沖": "午未申酉戌亥子丑寅卯辰巳",
    "驛馬": "寅亥申巳寅亥申巳寅亥申巳", "華蓋": "辰丑戌未辰丑戌未辰丑戌未", "劫煞": "巳寅亥申巳寅亥申巳寅亥申",
    "災煞": "午卯子酉午卯子酉午卯子酉", "咸池": "酉午卯子酉午卯子酉午卯子",
}


@pytest.mark.parametrize("name", sorted(DAY_ROWS))
def test_day_branch_rows(by_day, name):
    for day, cell in zip(BRANCHES, DAY_ROWS[name]):
        assert by_day[day][name] == {cell}, (name, day)


def test_day_branch_rules_without_cells(by_day):
    assert by_day["子"]["三合"] == {"申", "辰"} and by_day["卯"]["三合"] == {"亥", "未"}   # 原刻殘缺: completed
    assert by_day["子"]["支鬼"] == set("辰戌丑未") and by_day["寅"]["支鬼"] == set("申酉")
    assert by_day["子"]["支墓"] == {"辰"} and by_day["巳"]["支墓"] == {"戌"} and by_day["辰"]["支墓"] == {"辰"}   # 辰為水土墓
    assert by_day["寅"]["三刑"] == {"巳"} and by_day["辰"]["三刑"] == {"辰"}


def test_day_stem_virtue(session):
    # 000: 惟寅己、申乙、巳辛、亥丁四課: the 德 of 己 乙 辛 丁 days.
    for day, virtue in (("己巳", "寅"), ("乙卯", "申"), ("辛未", "巳"), ("丁丑", "亥"), ("甲辰", "寅"), ("戊申", "巳")):
        assert spirits_of(session, session.cast(day, "戌", "寅").id)["日德"] == {virtue}, day


# ---------------------------------------------------------------- seed 000's other readings
def test_seed_000_readings_are_kept_as_alternatives(by_month, alt_by_month):
    expected = {"天醫": "子卯午酉" * 3, "地醫": "子丑寅卯辰巳午未申酉戌亥", "雨煞": "子酉午卯" * 3,
                "風煞": "申未午巳辰卯寅丑子亥戌酉", "月破": "亥午丑申卯戌巳子未寅酉辰", "小煞": "卯巳未酉亥丑" * 2,
                "天煞": "戌巳午未申酉辰亥子丑寅卯", "解神": "申申酉酉戌戌亥亥午午未未"}
    for name, cells in expected.items():
        for month, cell in zip(MONTHS, cells):
            assert (cell, "000") in alt_by_month[month][name], (name, month)
    assert by_month["寅"]["天醫"] == {"辰"}                     # the default follows 003: 正月起辰
    assert ("子", "000") in alt_by_month["寅"]["天醫"]


def test_seed_003_readings_of_huangen_and_tianyu_are_kept_as_alternatives(by_month, alt_by_month):
    # 皇恩 and 天獄 follow seed 000's rows; 003's (午未天馬受皇恩 from 未, 獄門… 亥申巳寅) are kept
    for name, cells in (("皇恩", "未酉亥丑卯巳" * 2), ("天獄", "亥申巳寅" * 3)):
        for month, cell in zip(MONTHS, cells):
            assert alt_by_month[month][name] == {(cell, "003")}, (name, month)
    assert by_month["寅"]["皇恩"] == {"戌"} and by_month["寅"]["天獄"] == {"子"}


def test_single_key_spirits_fall_on_one_branch(session, by_month):
    keys = defaultdict(set)
    for name, key in session.kb.query("spirit_key", [None, None]):
        keys[name].add(key)
    two = {"三合", "刀砧", "返魂", "支鬼", "金神"}
    conditional = {"青龍煞", "草煞", "烏煞", "花煞", "白虎煞", "床煞", "梯煞", "天赦", "天轉", "地轉", "支墓"}
    for month, found in by_month.items():
        for name, key in keys.items():
            if len(key) == 1 and key <= {"月", "季"} and name not in two | conditional:
                assert len(found[name]) == 1, (name, month, found[name])


def test_every_spirit_has_a_key_and_a_gloss(session):
    names = set(session.kb.program.kinds["spirit"].members)
    assert len(names) >= 280
    assert {r[0] for r in session.kb.query("spirit_key", [None, None])} == names
    glossed = session.kb.query("spirit_gloss", [None, None, None])
    assert {r[0] for r in glossed} == names and all(en and note for _, en, note in glossed)


# ---------------------------------------------------------------- conditions on the chart
def test_spirits_that_need_a_general_or_heaven(session):
    # The seed case's plate (辛巳日, heaven turned 8 places, a day chart: 丑 carries 青龍), cast
    # as 辛巳日亥將卯時 and 辛巳日子將辰時 so that these charts are this test's own.
    own = calendar_chart(session, "辛巳", "亥", "卯", month="丑")
    assert ("丑", "青龍") in {(b, g) for _, b, g in session.kb.query("general", [own, None, None])}
    assert spirits_of(session, own)["青龍煞"] == {"丑"}            # 小時 (the month branch 丑) 乘青龍
    # 正月: 陰奸 is on 未, and heaven's 卯 stands over 未: 床煞 is that 卯.
    first = calendar_chart(session, "辛巳", "子", "辰", month="寅")
    assert ("未", "卯") in {(e, u) for _, e, u in session.kb.query("tianpan", [first, None, None])}
    found = spirits_of(session, first)
    assert "未" in found["陰奸"] and found["床煞"] == {"卯"}
    assert found["青龍煞"] == set()                                 # 寅 carries no 青龍 here


def test_spirit_present_in_the_first_seed_case(session):
    # 003: 支上天目墓神 … winter 天目 is 丑, and 丑 rides the day branch 巳.
    chart = session.cast_at("1998-11-30 12:00")
    present = set(chart.rows("spirit_present"))
    assert ("天目", "丑", "支上") in present
    assert {w for s, b, w in present if s == "天目"} == {"支上"}
    assert ("太歲", "寅", "中傳") in present                    # 戊寅 year; 三傳 午寅戌


def test_derivation_names_the_rule_and_its_source(session):
    chart = session.cast("丙午", "戌", "寅")
    graph = session.why(None, f"spirit({chart.id}, 支德, 亥)")
    rules = {(d["rule"], d["source"]) for _, d in graph.nodes(data=True) if d["kind"] == "rule"}
    assert ("spirit.day.zhide", "003: 「支德」自子日起巳，順著地支數一周") in rules


@pytest.mark.parametrize("branch, stem", [("寅", "丙"), ("午", "庚"), ("酉", "己"), ("子", "甲")])
def test_a_bare_month_branch_gives_the_pillars_season(session, branch, stem):
    """--month 寅 and --month 丙寅 name one month: one season, one set of spirits (not the 月將's season)."""
    bare = session.cast("辛巳", "子", "辰", month=branch)
    pillar = session.cast("辛巳", "子", "辰", month=stem + branch)
    def facts(chart, pred):
        return {row[1:] for row in session.rows(pred, chart.id)}

    assert facts(bare, "season") == facts(pillar, "season")
    assert facts(bare, "spirit") == facts(pillar, "spirit") != set()


def test_session_kb_takes_no_facts_beside_a_cast(session):
    """A fact added to session.kb would reach pyDatalog and not the chart's batch: it is refused."""
    from liuren_logic.domain.errors import InputError

    chart = session.cast("辛巳", "子", "辰")
    with pytest.raises(InputError, match="read-only"):
        session.kb.add_fact("month", [chart.id, "甲", "寅"], "test")
    assert session.kb.query("month", [chart.id, None, None]) == []
