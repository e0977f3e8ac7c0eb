"""The steps of the 斷 read from duan.md's lines after the first answer: the 事神 where no 類神 shows,
the 用神 against the querent's 行年 (肘後經), the 年命 as a rescuer, a lawsuit's 主 and 客, and a
rescue shown as a rescue. Each expectation is written here from the elements, not read from the KB."""
from __future__ import annotations

import pytest

from liuren_logic.explain.judgement import judgement_data

ELEMENT = dict(zip("子丑寅卯辰巳午未申酉戌亥甲乙丙丁戊己庚辛壬癸", "水土木木土火火土金金土水木木火火土土金金水水"))
KE = {("木", "土"), ("土", "水"), ("水", "火"), ("火", "金"), ("金", "木")}
SHENG = {("木", "火"), ("火", "土"), ("土", "金"), ("金", "水"), ("水", "木")}
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
PILLARS = [a + b for a, b in zip("甲乙丙丁戊己庚辛壬癸" * 6, BRANCHES * 5)]


def ke(a, b):
    return (ELEMENT[a], ELEMENT[b]) in KE


def sheng(a, b):
    return (ELEMENT[a], ELEMENT[b]) in SHENG


def cast_all(session, matter, **given):
    return session.cast_many([session.offset_input(p, o, matter=matter, **given) for p in PILLARS for o in range(12)])


def reasons(chart):
    return {r["name"]: r for r in judgement_data(chart)["answer"]["reasons"]}


def test_where_no_sign_of_the_question_shows_the_shishen_is_the_yongshen(session):
    """大全卷三 「三傳中先看克日者為事神。無克日，取日克者為事神」: 家宅 has no 類神 among the question's
    signs, so on each of the 720 charts the 用神 is the first transmission that overcomes the stem, else
    the first the stem overcomes, else (every transmission akin to the stem or generating it) the initial."""
    roles = {"事神": 0, "發用": 0}
    for chart in cast_all(session, "家宅"):
        stem, chuan = chart.day[0], chart.sanchuan
        struck = [b for b in chuan if ke(b, stem)] or [b for b in chuan if ke(stem, b)]
        want = (struck[0], "事神") if struck else (chuan[0], "發用")
        assert chart.rows("question_yong") == [want], chart.id
        roles[want[1]] += 1
    assert roles["事神"] and roles["發用"]  # both readings occur
    # a sign of the question among the transmissions still comes first: 仕宦's 用神 the ghost or the noble
    office = session.cast("己亥", jiang="亥", hour="未", month="寅", matter="仕宦")
    assert ("卯", "官鬼") in office.rows("question_yong") and not [r for r in office.rows("question_yong") if r[1] == "事神"]


def test_the_shishen_carries_its_derivation_and_line(session, capsys):
    from liuren_logic.faces.cli import main

    main(["why", "question_yong", "申", "--day", "乙丑", "--jiang", "申", "--hour", "午", "--matter", "家宅"])
    out = capsys.readouterr().out
    assert out.startswith("用神申（事神）") and "三傳不見類神：第一傳申剋日，為事神，作用神" in out
    assert "第一傳申剋日干乙：三傳中先看克日者為事神" in out and "《六壬大全》卷三：三傳中先看克日者為事神" in out


def test_the_yongshen_against_the_year_of_life(session):
    """肘後經 「事神年上兩相生，此主所為皆得成。事神年上兩相克，此主所為皆不得」, glossed 「若事神與占人
    行年及年上神相生並加者」: with the 行年 given, a reason for where the 用神 and the 行年 or the branch
    over it generate each other (either way), against where they overcome each other; none without it."""
    plain = {c.id: c for c in cast_all(session, "求財")}
    seen = {"weigh.nian_sheng": 0, "weigh.nian_ke": 0}
    for chart in cast_all(session, "求財", xingnian="寅"):
        (yong,) = {b for b, _ in chart.rows("question_yong")}
        upper = chart.heaven["寅"]
        signs = ["寅", upper]
        want = {"weigh.nian_sheng": any(sheng(yong, x) or sheng(x, yong) for x in signs),
                "weigh.nian_ke": any(ke(yong, x) or ke(x, yong) for x in signs)}
        got = reasons(chart)
        for name, expected in want.items():
            assert (name in got) == expected, (chart.id, name)
            seen[name] += expected
        if want["weigh.nian_ke"]:
            assert got["weigh.nian_ke"]["points"] == "不成" and "事神年上兩相克" in got["weigh.nian_ke"]["source"]
    assert all(seen.values())
    assert not any(r in {n for n in reasons(c)} for c in list(plain.values())[:120] for r in seen)


@pytest.mark.parametrize("month", ["巳", "亥"])  # 午 旺 in summer, 囚 in winter (救神無力: no rescue)
def test_the_year_of_life_rescues_as_the_line_says(session, month):
    """大全卷三 「若三傳年命日上卻克得白虎，為救神」: the 行年 that overcomes the harming 用神, with strength of
    its own, is a rescue (年命制之), shown as 救; where the 行年 does not overcome it, no such rescue."""
    found = 0
    for chart in cast_all(session, "疾病", xingnian="午", month=month):
        harm = {b for (b,) in chart.rows("harm")}
        strong = chart.strength.get("午") in ("旺", "相")
        want = any(ke("午", b) for b in harm) and strong
        got = [r for r in chart.rows("rescue") if r[0] == "年命制之"]
        assert bool(got) == want and all(x == "午" for _, x in got), chart.id
        if want:
            found += 1
            jiu = reasons(chart)["weigh.jiu"]
            assert jiu["points"] == "救"
    assert bool(found) == (month == "巳")


@pytest.mark.parametrize("words, side", [("原告問訟", "客"), ("被告吉凶", "主"), ("此訟如何", None)])
def test_a_lawsuits_side_and_the_initials_blow(session, words, side):
    """指南卷三 「日為客，辰為主，先動為客後應為主」 and 「發用克日客輸，克辰主輸」: the words say the querent's
    side; the initial overcoming the stem makes the 客 lose, the day branch the 主. The querent losing is a
    reason against (weigh.song_shu), the adversary losing one for (weigh.song_ying); no side, no reason."""
    counted = 0
    for chart in cast_all(session, "詞訟", question=words):
        stem, branch, first = chart.day[0], chart.day[1], chart.sanchuan[0]
        losers = {s for s, hit in (("客", ke(first, stem)), ("主", ke(first, branch))) if hit}
        got = reasons(chart)
        assert chart.rows("litigant") == ([(side,)] if side else []), chart.id
        assert ("weigh.song_shu" in got) == (side in losers), chart.id
        assert ("weigh.song_ying" in got) == bool(side and losers - {side}), chart.id
        counted += bool(side and losers)
    assert counted or side is None


def test_a_rescue_is_shown_as_a_rescue_on_the_board_and_in_why(capsys):
    """The rescues (weigh.jiu, weigh.wu_hai) rest on the KB's rescue relation: the board signs them 救,
    and why 斷 names the rescue at the rule that prevailed."""
    from liuren_logic.faces.cli import main

    args = ["--day", "乙丑", "--jiang", "申", "--hour", "午", "--matter", "家宅"]
    main(["cast", *args])
    board = capsys.readouterr().out
    assert "1 救  救神午（凶居剋地）：用神臨之，戀生解克而無害：主成" in board
    main(["why", "斷", "吉", *args])
    why = capsys.readouterr().out
    assert "救神午（凶居剋地）：用神臨之，戀生解克而無害：主成（勝）" in why and "救神凶居剋地（午）" in why
    main(["why-not", "斷", "凶", *args])
    assert "救 救神午（凶居剋地）" in capsys.readouterr().out


def test_a_yongshen_on_the_days_branch_is_timed_within_the_decade(session):
    """大全卷三 「傳辰旬內應期詳」 (its gloss: 「假令戊子日，用起神後，是今日辰也，吉凶應一旬之內也」): on the 720
    charts (no year or month given) the scale is 旬 exactly where the 用神 is the day branch, else 日; a
    旬 names the branch's one day within the next ten, if there is one."""
    from liuren_logic.domain.calendar import next_dates

    decades = 0
    for chart in cast_all(session, "家宅"):
        (yong,) = {b for b, _ in chart.rows("question_yong")}
        want = "旬" if yong == chart.day[1] else "日"
        assert chart.rows("answer_scale") == [(want,)], chart.id
        decades += want == "旬"
    assert 0 < decades < 720
    moment = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅").moment  # 辛巳日
    assert next_dates(moment, "未", "旬") == ["1998-12-02"] and next_dates(moment, "辰", "旬") == []
    assert next_dates(moment, "辰", "日")[0] == "1998-12-11"
