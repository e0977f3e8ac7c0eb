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
