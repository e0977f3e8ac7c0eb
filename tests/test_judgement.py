"""The 斷: the matter asked as a chart input, and what the KB's judgement rules say about it."""
from __future__ import annotations

import pytest

from liuren_logic.cli import main
from liuren_logic.errors import InputError


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("given", ["天時", "天时", "weather", "Weather"])
def test_a_matter_is_read_in_chinese_simplified_or_english(session, given):
    chart = session.cast("丁未", jiang="丑", hour="戌", matter=given)
    assert chart.rows("matter") == [("天時",)]
    assert chart.id.endswith(" 占天時")


def test_a_matter_reaches_dated_and_offset_charts(session):
    assert session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅").rows("matter") == [("家宅",)]
    assert session.cast_offset("辛巳", 8, matter="lawsuit").rows("matter") == [("詞訟",)]


def test_without_a_matter_the_chart_is_the_one_it_was(session):
    chart = session.cast("丁未", jiang="丑", hour="戌")
    assert chart.id == "丁未日丑將戌時" and chart.rows("matter") == []


def test_an_unknown_matter_is_one_line_naming_the_option(session, capsys):
    with pytest.raises(InputError, match="unknown matter 'rain' for --matter"):
        session.cast("丁未", jiang="丑", hour="戌", matter="rain")
    code, out, err = run(capsys, "cast", "--day", "丁未", "--jiang", "丑", "--hour", "戌", "--matter", "rain")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--matter" in err and "天時 (weather)" in err


# --- the KB's judgement rules -------------------------------------------------------------------

def test_without_a_matter_no_rule_of_the_judgement_fires(session):
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai")
    assert chart.rows("finding") == chart.rows("verdict") == chart.rows("timing") == []


def test_every_finding_is_of_a_kind_the_books_cite_and_every_row_has_its_rule(session):
    from liuren_logic.explain.judgement import KIND_ORDER, judgement_data

    for matter in ("天時", "疾病", "仕宦", "婚姻"):
        data = judgement_data(session.cast("丁未", jiang="丑", hour="戌", matter=matter), "明日如何")
        assert data["matter"] == matter and data["question"] == "明日如何"
        kinds = [f["kind"] for f in data["findings"]]
        assert kinds == sorted(kinds, key=KIND_ORDER.index) and set(kinds) <= set(KIND_ORDER)
        for row in data["findings"] + data["verdicts"] + data["timing"]:
            assert row["rule"].startswith(("judge.", "timing.")) and row["source"] and row["text"]["zh"] and row["text"]["en"]


def test_the_leishen_of_the_matter_decide_the_yongshen(session):
    """天后 stands for lasting snow (指南), so for 天時 the 戌 it rides in the transmissions is a 用神;
    for 婚姻 it is not, and 戌 is only the 用神's neighbour."""
    weather = session.cast("丁未", jiang="丑", hour="戌", matter="天時")
    marriage = session.cast("丁未", jiang="丑", hour="戌", matter="婚姻")
    assert set(weather.rows("yongshen")) == {("亥",), ("戌",)}
    assert set(marriage.rows("yongshen")) == {("亥",)}


def test_a_void_yongshen_is_filled_and_leaves_the_decade(session):
    """己巳日 (甲子旬, 戌亥 void), 亥 (天時's 雨師) a transmission: 填實 at 亥, 出旬 at 甲戌 (戌)."""
    chart = session.cast("己巳", jiang="戌", hour="丑", matter="天時")  # 《指南》 天時 case 1: 寅亥申
    assert chart.sanchuan == "寅亥申"
    assert {("亥", "填實"), ("戌", "出旬")} <= set(chart.rows("timing"))
