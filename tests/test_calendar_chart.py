"""Charts cast from a moment: the calendar's facts enter the KB, and why reaches the instant."""
from __future__ import annotations

import pytest

from liuren_logic import Session
from liuren_logic.domain.calendar import TERM_NAMES
from liuren_logic.domain.errors import CalendarError, InputError
from liuren_logic.explain.tree import render


def test_first_seed_chart_from_its_date(session):
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai")
    assert (chart.day, chart.jiang, chart.hour) == ("辛巳", "寅", "午")
    assert chart.sanchuan == "午寅戌" and chart.method == "賊剋"
    assert chart.rows("season") == [("冬",)]


def test_second_seed_case_written_date_is_a_different_day(session):
    written = session.cast_at("1998-01-05 20:00")
    assert written.day == "壬子"  # the text's date does not fit its own chart (see tests/data/cases/README.md)
    chart = session.cast_at("1997-12-31 20:00")
    assert (chart.day, chart.jiang, chart.hour) == ("丁未", "丑", "戌")
    assert chart.sanchuan == "亥戌戌" and chart.method == "八專"


def test_jiang_changes_at_the_exact_zhongqi_instant(session):
    assert session.cast_at("1998-11-22 20:33").jiang == "卯"
    assert session.cast_at("1998-11-22 20:35").jiang == "寅"


def test_why_jiang_ends_at_the_instant(session):
    from liuren_logic.datalog.labels import showing_ids

    chart = session.cast_at("1998-11-30 12:00")
    with showing_ids():  # the rule by its id
        text = render(session.why(chart, "offset"))
    assert "calendar.jiang" in text and "1998-11-22 20:34:12 UTC+8" in text


def test_consecutive_zhongqi_step_the_jiang_backward(session):
    general = dict(session.kb.query("qi_general", [None, None]))
    order = [row[0] for row in sorted(session.kb.query("branch_index", [None, None]), key=lambda r: r[1])]
    qis = [name for name in TERM_NAMES if name in general]
    assert len(qis) == 12 == len(set(general.values()))
    for earlier, later in zip(qis, qis[1:] + qis[:1]):
        assert (order.index(general[earlier]) - order.index(general[later])) % 12 == 1, (earlier, later)


def test_day_boundary_is_a_school_reading():
    late = Session().cast_at("1998-11-30 23:30")
    midnight = Session(readings={"day_boundary": "00:00"}).cast_at("1998-11-30 23:30")
    assert (late.day, midnight.day) == ("壬午", "辛巳")


def test_day_and_night_by_the_sun():
    sun = Session(readings={"daynight": "sun"})
    dawn = sun.cast_at("1998-11-30 06:50", longitude=116.4, latitude=39.9)  # before sunrise (≈07:17)
    assert dawn.daytime is False
    assert Session().cast_at("1998-11-30 06:50").daytime is True  # fixed hours: 卯 is day
    with pytest.raises(InputError, match="--latitude and --longitude"):
        sun.cast_at("1998-11-30 06:50")


@pytest.mark.parametrize("at, tz, words", [
    ("1998-13-01 12:00", "Asia/Shanghai", "1998-13-01"),
    ("1998-11-30 12:00", "Asia/Shangai", "Asia/Shangai"),
    ("12000-01-01 12:00", "Asia/Shanghai", "12000"),
])
def test_bad_moments_are_named(session, at, tz, words):
    with pytest.raises(CalendarError, match=words):
        session.cast_at(at, tz)
