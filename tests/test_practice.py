"""本命 and 行年, 旺相休囚死, 十二長生 and 祿, the generals' nature (docs/rules.md §7).

The tables here are written from the rules as the books state them, not from the KB.
"""
from __future__ import annotations

import pytest

from liuren_logic import Session
from liuren_logic.domain.errors import InputError

BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
ELEMENTS = "木火土金水"


@pytest.fixture(scope="module")
def yin_backward():
    return Session(readings={"changsheng": "yin_backward"})


@pytest.fixture(scope="module")
def eighteen_days():
    return Session(readings={"tuwang": "eighteen_days"})


# 本命 and 行年 ---------------------------------------------------------------------------

def life(chart) -> dict:
    return {"born": chart.rows("born"), "natal": chart.rows("natal"), "age": chart.rows("age"),
            "xingnian": chart.rows("xingnian"), "upper": dict(chart.rows("life_upper")),
            "general": dict(chart.rows("life_general"))}


def test_the_querent_of_1970_in_the_first_seed_chart(session):
    man = life(session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born="1970", sex="m"))
    # 1970 is 庚戌; 1998 − 1970 + 1 = 29; a man is 1 at 丙寅, so 29 at 甲午 (丙寅 + 28).
    assert man["born"] == [("庚", "戌")] and man["natal"] == [("戌",)] and man["age"] == [(29,)]
    assert man["xingnian"] == [("甲", "午")]
    # offset 8 (寅 over 午): 午 over 戌, 寅 over 午; the night noble of 辛 is 寅 … (the chart's generals)
    assert man["upper"] == {"本命": "午", "行年": "寅"}
    assert man["general"] == {"本命": "貴人", "行年": "勾陳"}
    woman = life(session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born="1970", sex="f"))
    # a woman is 1 at 壬申 and goes backward: 11 壬戌, 21 壬子, 29 甲辰.
    assert woman["xingnian"] == [("甲", "辰")]
    assert woman["upper"] == {"本命": "午", "行年": "子"}


MAN = {1: "丙寅", 2: "丁卯", 11: "丙子", 13: "戊寅", 60: "乙丑", 61: "丙寅", 75: "庚辰"}
WOMAN = {1: "壬申", 2: "辛未", 11: "壬戌", 13: "庚申", 60: "癸酉", 61: "壬申", 75: "戊午"}


@pytest.mark.parametrize("sex, table", [("m", MAN), ("f", WOMAN)])
def test_xingnian_by_age(session, sex, table):
    for age, pillar in table.items():
        chart = session.cast("辛巳", "寅", "午", born=2000 - age + 1, sex=sex, year=2000)
        assert chart.rows("age") == [(age,)]
        assert ["".join(r) for r in chart.rows("xingnian")] == [pillar], (sex, age)


def test_born_as_pillar_or_date(session):
    # a pillar gives the 行年 without the 虛歲 (which is then known only within 60 years)
    chart = session.cast("辛巳", "寅", "午", born="庚戌", sex="m", year="戊寅")
    assert chart.rows("xingnian") == [("甲", "午")] and chart.rows("age") == []
    # born 1970-02-03: before 立春 1970 (02-04), so the year 1969, 己酉
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born="1970-02-03 12:00", sex="m")
    assert chart.rows("born") == [("己", "酉")] and chart.rows("age") == [(30,)]
    origins = [o for p, _, o in chart.inputs.facts() if p == "birth_year"]
    assert "立春" in origins[0]
    with pytest.raises(InputError, match="立春 falls on that day"):
        session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born="1970-02-04", sex="m")


def test_a_chart_from_pillars_without_its_year_has_a_natal_branch_only(session):
    chart = session.cast("辛巳", "寅", "午", born=1970, sex="m")
    assert chart.rows("natal") == [("戌",)] and chart.rows("xingnian") == []


@pytest.mark.parametrize("given, message", [
    ({"born": "2030"}, "after the chart's year 1998"), ({"born": "1970", "sex": "x"}, "unknown sex"),
    ({"sex": "m"}, "needs --born"), ({"born": "甲丑"}, "impossible pillar"), ({"born": "soon"}, "cannot read the birth"),
])
def test_bad_querent_input(session, given, message):
    with pytest.raises(InputError, match=message):
        session.cast_at("1998-11-30 12:00", "Asia/Shanghai", **given)


def test_the_xingnian_is_explained_down_to_its_rule(session):
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born="1970", sex="m")
    graph = session.why(chart, "xingnian", "甲")
    labels = [d.get("zh", "") for _, d in graph.nodes(data=True)]
    assert any(label.startswith("男一歲起丙寅順行") for label in labels)
    assert any(d.get("where", "").startswith("given: born in 1970") for _, d in graph.nodes(data=True))


# 旺相休囚死 ---------------------------------------------------------------------------

# 寅卯月木旺火相水休金囚土死; 巳午 火旺; 申酉 金旺; 亥子 水旺; 辰戌丑未 土旺 (docs/rules.md §7)
SEASONS = {
    "寅卯": "木旺 火相 水休 金囚 土死", "巳午": "火旺 土相 木休 水囚 金死", "申酉": "金旺 水相 土休 火囚 木死",
    "亥子": "水旺 木相 金休 土囚 火死", "辰戌丑未": "土旺 金相 火休 木囚 水死",
}


@pytest.mark.parametrize("month", BRANCHES)
def test_strength_of_the_five_elements_in_each_month(session, month):
    expected = next(dict((w[0], w[1]) for w in row.split()) for months, row in SEASONS.items() if month in months)
    chart = session.cast("辛巳", "寅", "午", month=month)
    assert dict(chart.rows("element_strength")) == expected
    strength = dict(chart.rows("strength"))
    assert strength["甲"] == strength["寅"] == expected["木"] and strength["辛"] == expected["金"]


def test_strength_from_the_date(session):
    # 1998-11-30: the month pillar 癸亥, water rules: 水旺 木相 金休 土囚 火死
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai")
    assert dict(chart.rows("element_strength")) == {"水": "旺", "木": "相", "金": "休", "土": "囚", "火": "死"}


def test_tuwang_by_eighteen_days(session, eighteen_days):
    # 2024: 清明 04-04, 立夏 05-05. On 04-10 (辰 month, 25 days to 立夏) wood still rules under
    # 土王用事; on 04-25 (10 days to 立夏) earth rules. Under the default the whole 辰 month is 土.
    for when, ruling in (("2024-04-10 12:00", "木"), ("2024-04-25 12:00", "土"), ("2024-05-10 12:00", "火")):
        assert eighteen_days.cast_at(when).rows("ruling_element") == [(ruling,)], when
    assert session.cast_at("2024-04-10 12:00").rows("ruling_element") == [("土",)]
    # cast from pillars, a 季 month has no count of days: no ruling element under this reading
    assert eighteen_days.cast("辛巳", "寅", "午", month="辰").rows("ruling_element") == []
    assert eighteen_days.cast("辛巳", "寅", "午", month="巳").rows("ruling_element") == [("火",)]


# 十二長生 and 祿 ----------------------------------------------------------------------

STAGES = "長生 沐浴 冠帶 臨官 帝旺 衰 病 死 墓 絕 胎 養".split()
# By element, forward: 木 亥, 火 寅, 金 巳, 水 and 土 申 (docs/rules.md §7)
BY_ELEMENT = {"甲": "亥子丑寅卯辰巳午未申酉戌", "丙": "寅卯辰巳午未申酉戌亥子丑", "戊": "申酉戌亥子丑寅卯辰巳午未",
              "庚": "巳午未申酉戌亥子丑寅卯辰", "壬": "申酉戌亥子丑寅卯辰巳午未"}
BY_ELEMENT.update({"乙": BY_ELEMENT["甲"], "丁": BY_ELEMENT["丙"], "己": BY_ELEMENT["戊"],
                   "辛": BY_ELEMENT["庚"], "癸": BY_ELEMENT["壬"]})
# 陰干逆行, 戊己 with 丙丁 (seed 000: 陽干死地，即陰干生地; 戊己從丙丁分順逆)
TEN_STEMS = {"甲": "亥子丑寅卯辰巳午未申酉戌", "乙": "午巳辰卯寅丑子亥戌酉申未",
             "丙": "寅卯辰巳午未申酉戌亥子丑", "丁": "酉申未午巳辰卯寅丑子亥戌",
             "戊": "寅卯辰巳午未申酉戌亥子丑", "己": "酉申未午巳辰卯寅丑子亥戌",
             "庚": "巳午未申酉戌亥子丑寅卯辰", "辛": "子亥戌酉申未午巳辰卯寅丑",
             "壬": "申酉戌亥子丑寅卯辰巳午未", "癸": "卯寅丑子亥戌酉申未午巳辰"}
SALARY = {"甲": "寅", "乙": "卯", "丙": "巳", "戊": "巳", "丁": "午", "己": "午", "庚": "申", "辛": "酉", "壬": "亥", "癸": "子"}


def stages_of(session, stem) -> dict:
    return {g: b for _, b, g in session.base.query("growth", [stem, None, None])}


@pytest.mark.parametrize("reading, table", [("by_element", BY_ELEMENT), ("yin_backward", TEN_STEMS)])
def test_twelve_stages_of_every_stem(session, yin_backward, reading, table):
    s = session if reading == "by_element" else yin_backward
    for stem, row in table.items():
        assert stages_of(s, stem) == dict(zip(STAGES, row)), (reading, stem)


def test_the_ten_stem_reading_agrees_with_seed_000s_tombs_and_the_salaries(yin_backward):
    # 未為甲癸之墓，戌為丙戊乙之墓，丑為庚丁己之墓，辰為壬辛之墓; and each 祿 is the stem's 臨官
    tombs = {"甲": "未", "癸": "未", "丙": "戌", "戊": "戌", "乙": "戌", "庚": "丑", "丁": "丑", "己": "丑", "壬": "辰", "辛": "辰"}
    for stem in SALARY:
        assert stages_of(yin_backward, stem)["墓"] == tombs[stem]
        assert stages_of(yin_backward, stem)["臨官"] == SALARY[stem]


def test_salary_and_the_day_marks(session):
    assert dict(session.base.query("lu_branch", [None, None])) == SALARY
    chart = session.cast("辛巳", "寅", "午")
    # 辛祿酉; 巳's horse is 亥; 甲戌旬: 丁 falls on 丑; 辛 combines with 丙, which lodges in 巳
    assert dict((m, b) for m, b in chart.rows("day_mark")) == {"日祿": "酉", "日馬": "亥", "旬丁": "丑", "日德": "巳"}
    stage = dict(chart.rows("stage"))
    assert stage["巳"] == "長生" and stage["丑"] == "墓" and stage["午"] == "沐浴"


# the generals' nature --------------------------------------------------------------------

HOMES = {"貴人": "丑土", "螣蛇": "巳火", "朱雀": "午火", "六合": "卯木", "勾陳": "辰土", "青龍": "寅木",
         "天空": "戌土", "白虎": "申金", "太常": "未土", "玄武": "子水", "太陰": "酉金", "天后": "亥水"}
AUSPICIOUS = {"貴人", "六合", "青龍", "太常", "太陰", "天后"}


def test_homes_elements_and_omens_of_the_generals(session):
    homes = dict(session.base.query("general_home", [None, None]))
    elements = dict(session.base.query("general_element", [None, None]))
    assert {g: homes[g] + elements[g] for g in HOMES} == HOMES
    omens = dict(session.base.query("general_omen", [None, None]))
    assert {g for g, o in omens.items() if o == "吉"} == AUSPICIOUS and len(omens) == 12


def test_how_each_general_stands_to_the_branch_it_rides(session):
    chart = session.cast("辛巳", "寅", "午")  # 午 carries 貴人 (土): 午 fire generates earth
    rides = {b: (g, r) for b, g, r in chart.rows("general_ride")}
    assert len(rides) == 12
    assert rides["午"] == ("貴人", "神生將")
    expected = {"神生將": "生", "將生神": "生", "神剋將": "剋", "將剋神": "剋", "比和": "="}
    for branch, (general, relation) in rides.items():
        eb, eg = "木火土金水".index(session.base.query("element", [branch, None])[0][1]), "木火土金水".index(HOMES[general][1])
        kind = {0: "=", 1: "生", 4: "生", 2: "剋", 3: "剋"}[(eg - eb) % 5]
        assert expected[relation] == kind
        if relation in ("將生神", "將剋神"):
            assert (eb - eg) % 5 == (1 if relation == "將生神" else 2)


# the seed patterns that wait for 年命 and 旺相 ------------------------------------------------

def patterns(chart) -> set:
    return {name for (name,) in chart.rows("pattern")}


def test_ghosts_held_in_check_on_the_seeds_day(session):
    # 壬辰日遙剋，戌加未發用，三傳戌丑辰，上下六鬼，(干)上寅木制之 (offset 3)
    day = session.cast_offset("壬辰", 3)
    assert day.sanchuan == "戌丑辰" and day.rows("gan_upper") == [("寅",)]
    assert day.generals["戌"] != "白虎" and "鬼多有制" in patterns(day)
    # by night (壬's noble on 卯) 白虎 rides the initial 戌: 惟白虎發用，大有畏忌，要年命上有制虎之神
    night = session.cast_offset("壬辰", 3, daytime=False)
    assert night.generals["戌"] == "白虎" and "鬼多有制" not in patterns(night)
    # a querent born in a 卯 year (1987): 午 (fire) stands over 卯 and holds the tiger (metal)
    held = session.cast_offset("壬辰", 3, daytime=False, born=1987, sex="m", year=1998)
    assert ("本命", "午") in held.rows("life_upper") and "鬼多有制" in patterns(held)


def test_the_ghost_in_its_season(session):
    # 甲為戊鬼，若在仲春，木貪生發: every 戊 day chart with 寅 or 卯 among its transmissions, in a 卯
    # month; none in a 酉 month (木 is 囚)
    for day in ("戊子", "戊寅", "戊辰", "戊午", "戊申", "戊戌"):
        for offset in range(12):
            spring = session.cast_offset(day, offset, month="卯")
            autumn = session.cast_offset(day, offset, month="酉")
            wood = any(t.branch in "寅卯" for t in spring.transmissions)
            assert ("鬼當時" in patterns(spring)) == wood and "鬼當時" not in patterns(autumn)


def test_year_of_life_patterns_on_the_seeds_examples(session):
    # 年命在子，辰加子為乘墓 (offset 4)，天上子臨辰為坐墓 (offset 8): born 1984 (甲子)
    carries = session.cast_offset("甲子", 4, born=1984, sex="m", year=1998)
    sits = session.cast_offset("甲子", 8, born=1984, sex="m", year=1998)
    assert "年命乘墓" in patterns(carries) and "年命坐墓" not in patterns(carries)
    assert "年命坐墓" in patterns(sits) and "年命乘墓" not in patterns(sits)
    # 行年立寅午戌，化氣屬火，火墓戌加戌: a man of 9 (born 1990, chart 1998) is at 甲戌; 伏吟
    entombed = session.cast_offset("甲子", 0, born=1990, sex="m", year=1998)
    assert entombed.rows("xingnian") == [("甲", "戌")] and "行年化氣入墓" in patterns(entombed)
    assert "行年化氣入墓" not in patterns(session.cast_offset("甲子", 1, born=1990, sex="m", year=1998))
    # without a querent none of them can hold
    assert not patterns(session.cast_offset("甲子", 4)) & {"年命乘墓", "年命坐墓", "行年化氣入墓"}


@pytest.mark.parametrize("born, pattern", [(1984, "飛魂卦"), (1970, "伏殃卦"), (1980, "喪魄卦")])
def test_soul_patterns_of_the_year_of_life(session, born, pattern):
    # 1998-11-30 (癸亥 month): 飛魂 on 申, 天鬼 on 午, 喪魄 on 辰; heaven turns 8, so 申 stands over
    # 子 (born 1984), 午 over 戌 (1970), 辰 over 申 (1980): each 臨年命
    # (the chart is 伏殃卦 by 日辰發用 as well: 天鬼 午 over 辛 is the initial)
    def by_life(chart):
        if pattern not in patterns(chart):
            return False
        graph = session.why(chart, "pattern", pattern)
        return any(d.get("rule") == "pattern.soul_life" for _, d in graph.nodes(data=True))

    assert by_life(session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born=born, sex="m"))
    assert not by_life(session.cast_at("1998-11-30 12:00", "Asia/Shanghai"))
    assert not by_life(session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born=born + 1, sex="m"))


def test_the_soul_dissolves(session):
    # 魄化死囚帶白虎，干支年用: on 甲子 days, wherever 白虎 rides the branch over the stem and that
    # branch is 死 or 囚 in the month, the chart is 魄化
    shown = 0
    for month in BRANCHES:
        for offset in range(12):
            chart = session.cast_offset("甲子", offset, month=month)
            gan = chart.rows("gan_upper")[0][0]
            if chart.generals[gan] != "白虎":
                continue
            weak = dict(chart.rows("strength"))[gan] in ("死", "囚")
            assert ("魄化" in patterns(chart)) >= weak
            shown += weak
    assert shown


def test_a_month_branch_alone_gives_the_month_spirits_and_strengths(session):
    by_branch = session.cast("辛巳", "寅", "午", month="亥")
    by_pillar = session.cast("辛巳", "寅", "午", month="癸亥")
    assert set(by_branch.rows("spirit")) == set(by_pillar.rows("spirit"))
    assert by_branch.rows("element_strength") == by_pillar.rows("element_strength")


# on the board, in --json, and through why -------------------------------------------------

AT = ["--at", "1998-11-30 12:00", "--tz", "Asia/Shanghai"]


def test_the_board_shows_the_querent_strengths_stages_and_marks(capsys):
    from liuren_logic.faces.cli import main

    assert main(["cast", *AT, "--born", "1970", "--sex", "m"]) == 0
    out = capsys.readouterr().out
    assert "本命 戌 (生年庚戌), 上 午 貴人" in out and "行年 甲午 (虛歲二十九), 上 寅 勾陳" in out
    assert "旺相: 水旺 木相 金休 土囚 火死" in out
    assert "日祿 酉臨丑" in out and "日馬 亥臨卯" in out and "旬丁 丑臨巳 支上" in out and "日德 巳臨酉" in out
    # 午 is fire: 死 in a water month, and 沐浴 of 辛 (born in 巳, forward by element)
    lines = out.splitlines()
    labels = next(line.split() for line in lines if line.startswith("三傳 "))
    initial = next(line.split() for line in lines if line.strip().startswith("初傳"))
    assert labels[-2:] == ["旺相", "長生"] and initial[-2:] == ["死", "沐浴"]  # each under its label
    assert main(["cast", *AT, "--born", "1970", "--sex", "f"]) == 0
    assert "行年 甲辰 (虛歲二十九), 上 子 天空" in capsys.readouterr().out


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_board_says_the_querent_in_the_words_of_the_kb_as_the_lesson_does(session, lang):
    """The year of birth and the 虛歲 on the board are the labels of born and age (kb/chart/life.dl);
    in zh the lesson's rule labels end in the same words (生年庚戌, 虛歲二十九: numerals, not digits)."""
    from liuren_logic.explain.board import render_chart
    from liuren_logic.explain.lesson import lesson_steps

    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born=1970, sex="m")
    lines = render_chart(chart, lang).splitlines()
    end = next(i for i in range(1, len(lines)) if not lines[i].startswith(" "))  # the header, wrapped at 100 columns
    board = " ".join(" ".join(lines[:end]).split())
    told = next(s for s in lesson_steps(chart, lang) if s.key == "life").text
    said = {"zh": ("生年庚戌", "虛歲二十九"),
            "en": ("the year of birth is 庚戌", "the querent is 29 (虛歲, counting the year of birth as 1)")}[lang]
    assert all(words in board for words in said), board
    assert all(words in told for words in said) if lang == "zh" else "= 29 (虛歲)" in told, told


def test_json_carries_the_practitioners_fields(capsys):
    import json

    from liuren_logic.faces.cli import main

    assert main(["cast", *AT, "--born", "1970", "--sex", "m", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["life"] == {"born": "庚戌", "sex": "男", "age": 29, "xingnian": "甲午",
                            "points": {"本命": {"branch": "戌", "upper": "午", "general": "貴人"},
                                       "行年": {"branch": "午", "upper": "寅", "general": "勾陳"}}}
    assert data["element_strength"] == {"水": "旺", "木": "相", "金": "休", "土": "囚", "火": "死"}
    assert data["stages"]["巳"] == "長生" and data["strength"]["辛"] == "休"
    assert [(t["strength"], t["stage"]) for t in data["transmissions"]] == [("死", "沐浴"), ("相", "絕"), ("囚", "衰")]
    assert {m["mark"]: (m["branch"], m["over"]) for m in data["marks"]} == {
        "日祿": ("酉", "丑"), "日馬": ("亥", "卯"), "旬丁": ("丑", "巳"), "日德": ("巳", "酉")}
    nature = {n["branch"]: n for n in data["generals_nature"]}
    assert nature["午"] == {"branch": "午", "general": "貴人", "element": "土", "omen": "吉", "ride": "神生將"}
    assert main(["cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["life"] is None and plain["element_strength"] == {}


@pytest.mark.parametrize("question, expected", [
    (["xingnian"], "男一歲起丙寅順行"), (["stage", "午"], "沐浴"), (["strength", "午"], "火死"),
    (["life_upper", "行年"], "行年午上見天盤寅"), (["day_mark", "日祿"], "辛祿在酉"), (["general_ride", "午"], "神生將"),
])
def test_why_answers_each(capsys, question, expected):
    from liuren_logic.faces.cli import main

    assert main(["why", *question, *AT, "--born", "1970", "--sex", "m"]) == 0
    assert expected in capsys.readouterr().out


def test_why_help_names_the_new_questions(capsys):
    from liuren_logic.faces.cli import main

    with pytest.raises(SystemExit):
        main(["why", "--help"])
    text = capsys.readouterr().out
    assert "xingnian" in text and "stage" in text and "--born" in text and "--sex" in text
