"""Tests of liuren_logic.domain.calendar: seed charts, term boundaries, variants, sun, errors, properties."""
from __future__ import annotations

import math
import random
import time
from datetime import date, datetime, timedelta, timezone

import pytest
from tyme4py.jd import JulianDay
from tyme4py.solar import SolarDay, SolarTerm, SolarTime

from liuren_logic.domain.calendar import (
    BRANCHES, STEMS, TERM_NAMES, UTC8, Moment, TermInstant, equation_of_time, moment,
)
from liuren_logic.domain.errors import CalendarError, InputError

CYCLE = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]
SIMPLIFIED = str.maketrans("谷满处惊蛰种", "穀滿處驚蟄種")


def term_instant(year: int, index: int) -> datetime:
    """tyme4py's instant of term ``index`` of term-year ``year``, as an aware UTC+8 datetime."""
    t = SolarTerm.from_index(year, index).get_julian_day().get_solar_time()
    return datetime(t.get_year(), t.get_month(), t.get_day(), t.get_hour(), t.get_minute(), t.get_second(), tzinfo=UTC8)


def smart_eot_minutes(instant: datetime) -> float:
    """Equation of time by Smart's series (Meeus eq. 28.3), independent of the module's formula."""
    jd = 2451545 + (instant - datetime(2000, 1, 1, 12, tzinfo=timezone.utc)).total_seconds() / 86400
    t = (jd - 2451545) / 36525
    l0 = math.radians(280.46646 + 36000.76983 * t)
    m = math.radians(357.52911 + 35999.05029 * t)
    e = 0.016708634 - 0.000042037 * t
    eps = math.radians(23.439291 - 0.0130042 * t)
    y = math.tan(eps / 2) ** 2
    eot = (y * math.sin(2 * l0) - 2 * e * math.sin(m) + 4 * e * y * math.sin(m) * math.cos(2 * l0)
           - 0.5 * y * y * math.sin(4 * l0) - 1.25 * e * e * math.sin(2 * m))
    return 4 * math.degrees(eot)


def branch_of_hour(hour: int) -> str:
    return BRANCHES[(hour + 1) // 2 % 12]


# ----------------------------------------------------------------------------- seed charts

def test_first_seed_chart_1998_11_30_noon():
    m = moment("1998-11-30 12:00", "Asia/Shanghai")
    assert (m.day_pillar, m.hour_pillar, m.hour_branch) == ("辛巳", "甲午", "午")
    assert (m.term.name, m.qi.name) == ("小雪", "小雪")
    assert m.term.is_qi and m.term == m.qi
    expected = datetime(1998, 11, 22, 20, 34, 12, tzinfo=UTC8)
    assert abs(m.term.instant - expected) <= timedelta(seconds=1)
    assert m.term.instant.utcoffset() == timedelta(hours=8)
    assert (m.year_pillar, m.month_pillar) == ("戊寅", "癸亥")
    assert (m.lunar_month, m.lunar_leap) == (10, False)
    assert m.daytime is None and m.sunrise is None and m.sunset is None


def test_second_seed_chart_written_date_is_renzi_day():
    m = moment("1998-01-05 20:00")
    assert m.day_pillar == "壬子"
    assert m.month_pillar == "壬子"                   # 小寒 only at 21:18 that evening
    assert moment("1998-01-05 21:19").month_pillar == "癸丑"


def test_second_seed_chart_real_date_1997_12_31():
    m = moment("1997-12-31 20:00")
    assert (m.day_pillar, m.hour_pillar, m.hour_branch, m.qi.name) == ("丁未", "庚戌", "戌", "冬至")
    assert m.qi.name == "冬至"


def test_naive_datetime_equals_string_and_iso_form():
    a = moment("1998-11-30 12:00")
    assert moment(datetime(1998, 11, 30, 12)) == a
    assert moment("1998-11-30T12:00:00") == a
    assert a.local.tzinfo is not None and a.local.utcoffset() == timedelta(hours=8)


def test_aware_datetime_is_read_in_tz():
    m = moment(datetime(1998, 11, 30, 4, tzinfo=timezone.utc), "Asia/Shanghai")
    assert m.local.hour == 12 and m.day_pillar == "辛巳" and m.hour_branch == "午"


# ----------------------------------------------------------------------------- term boundaries

def test_qi_changes_at_the_xiaoxue_instant():
    assert moment("1998-11-22 20:33").qi.name == "霜降"
    assert moment("1998-11-22 20:35").qi.name == "小雪"
    assert moment("1998-11-22 20:34:11").qi.name == "霜降"
    assert moment("1998-11-22 20:34:12").qi.name == "小雪"


def test_month_pillar_changes_at_the_daxue_instant():
    daxue = term_instant(1998, 23)                         # 大雪 1998-12-07 16:01:35 in tyme4py
    assert daxue.date() == date(1998, 12, 7)
    before = moment(daxue - timedelta(minutes=1))
    after = moment(daxue + timedelta(minutes=1))
    assert (before.month_pillar, after.month_pillar) == ("癸亥", "甲子")
    assert (before.term.name, after.term.name) == ("小雪", "大雪")
    assert not after.term.is_qi and after.qi.name == "小雪"
    assert before.qi == after.qi                           # a 節 does not move the 中氣 (nor the 月將)


def test_year_pillar_changes_at_the_lichun_instant():
    lichun = term_instant(1998, 3)                         # 1998-02-04 08:56:52
    before = moment(lichun - timedelta(minutes=1))
    after = moment(lichun + timedelta(minutes=1))
    assert (before.year_pillar, after.year_pillar) == ("丁丑", "戊寅")
    assert (before.month_pillar, after.month_pillar) == ("癸丑", "甲寅")
    assert after.reasons()["year_pillar"].endswith(f"立春 {lichun:%Y-%m-%d %H:%M:%S} UTC+8")


def test_term_names_are_traditional_and_match_tyme4py():
    assert len(TERM_NAMES) == 24 == len(set(TERM_NAMES))
    assert [n.translate(SIMPLIFIED) for n in SolarTerm.NAMES] == list(TERM_NAMES)
    for name in ("穀雨", "小滿", "處暑", "驚蟄"):
        assert name in TERM_NAMES


# ----------------------------------------------------------------------------- variants

def test_23_30_under_both_day_boundaries():
    late = moment("1998-11-30 23:30", day_boundary="23:00")
    midnight = moment("1998-11-30 23:30", day_boundary="00:00")
    assert late.day_pillar == "壬午" and midnight.day_pillar == "辛巳"
    assert CYCLE.index(late.day_pillar) == (CYCLE.index(midnight.day_pillar) + 1) % 60
    assert late.hour_branch == midnight.hour_branch == "子"
    assert late.hour_pillar == midnight.hour_pillar == "庚子"   # documented: 夜子時 runs on
    assert "next day" in late.reasons()["day_pillar"]
    after_midnight = [moment("1998-12-01 00:30", day_boundary=b) for b in ("23:00", "00:00")]
    assert {(m.day_pillar, m.hour_pillar) for m in after_midnight} == {("壬午", "庚子")}


def test_dst_zone_gives_the_same_terms_as_utc():
    shanghai = moment("1988-07-01 12:00", "Asia/Shanghai")
    assert shanghai.local.utcoffset() == timedelta(hours=9)            # daylight saving in force
    utc = moment("1988-07-01 03:00", "UTC")
    assert shanghai.local == utc.local                                 # same instant
    for attr in ("term", "qi", "year_pillar", "month_pillar"):
        assert getattr(shanghai, attr) == getattr(utc, attr)
    assert "daylight saving" in shanghai.reasons()["local"]


def test_dst_does_not_shift_the_term_instant():
    dashu = term_instant(1988, 14)                                     # 大暑 1988-07-22 22:51:05 UTC+8
    wall = (dashu + timedelta(hours=1)).replace(tzinfo=None)           # Shanghai clock read +09:00
    before = moment(wall - timedelta(seconds=30), "Asia/Shanghai")
    after = moment(wall + timedelta(seconds=30), "Asia/Shanghai")
    assert (before.qi.name, after.qi.name) == ("夏至", "大暑")
    assert after.term.instant == dashu


def test_nonexistent_local_time_is_refused():
    with pytest.raises(CalendarError, match="1988-04-17 02:30"):
        moment("1988-04-17 02:30", "Asia/Shanghai")


def test_true_solar_time_at_urumqi():
    beijing = moment("1998-11-30 12:00")
    m = moment("1998-11-30 12:00", longitude=87.6, hours="true_solar")
    shift = (m.clock.replace(tzinfo=None) - beijing.local.replace(tzinfo=None)).total_seconds() / 60
    expected = (87.6 - 120) * 4 + smart_eot_minutes(beijing.local)
    assert abs(shift - expected) < 1
    expected_clock = datetime(1998, 11, 30, 12) + timedelta(minutes=expected)
    assert m.hour_branch == branch_of_hour(expected_clock.hour) == "巳"
    assert m.clock == m.local                                          # same instant, other clock
    assert m.hour_pillar == "癸巳" and m.day_pillar == "辛巳"
    assert "真太陽時" in m.reasons()["clock"]


def test_true_solar_time_can_move_the_day():
    m = moment("1998-12-01 00:30", longitude=87.6, hours="true_solar")   # true solar 22:31 on 11-30
    assert m.clock.day == 30 and m.hour_branch == "亥"
    assert m.day_pillar == "辛巳" == moment("1998-11-30 22:00").day_pillar
    late = moment("1998-12-01 01:00", longitude=87.6, hours="true_solar")  # 23:01: 子 of 12-01
    assert late.clock.day == 30 and late.hour_branch == "子" and late.day_pillar == "壬午"


def test_true_solar_time_at_120e_is_the_equation_of_time():
    for month in range(1, 13):
        for day in (1, 11, 21):
            at = datetime(2024, month, day, 12)
            m = moment(at, longitude=120.0, hours="true_solar")
            shift = (m.clock.replace(tzinfo=None) - at).total_seconds() / 60
            assert -16 <= shift <= 17
            assert abs(shift - smart_eot_minutes(m.local)) < 0.1      # within 6 s of Smart's series


def test_equation_of_time_matches_meeus_example_28a():
    eot = equation_of_time(datetime(1992, 10, 13, tzinfo=timezone.utc))
    assert abs(eot.total_seconds() - (13 * 60 + 42.6)) < 2


def test_sunrise_and_sunset_in_beijing_at_midsummer():
    m = moment("2024-06-21 12:00", latitude=39.9, longitude=116.4, day_night="sun")
    assert abs(m.sunrise - datetime(2024, 6, 21, 4, 46, tzinfo=UTC8)) <= timedelta(minutes=3)
    assert abs(m.sunset - datetime(2024, 6, 21, 19, 46, tzinfo=UTC8)) <= timedelta(minutes=3)
    assert m.daytime is True
    assert moment("2024-06-21 19:40", latitude=39.9, longitude=116.4, day_night="sun").daytime is True
    assert moment("2024-06-21 19:52", latitude=39.9, longitude=116.4, day_night="sun").daytime is False
    assert moment("2024-06-21 04:40", latitude=39.9, longitude=116.4, day_night="sun").daytime is False


def test_polar_day_and_night_do_not_crash():
    summer = moment("2024-06-21 00:30", "Arctic/Longyearbyen", latitude=78, longitude=15.6, day_night="sun")
    assert (summer.daytime, summer.sunrise, summer.sunset) == (True, None, None)
    winter = moment("2024-12-21 12:00", "Arctic/Longyearbyen", latitude=78, longitude=15.6, day_night="sun")
    assert (winter.daytime, winter.sunrise, winter.sunset) == (False, None, None)
    for lat in (90, -90):
        m = moment("2024-06-21 12:00", "UTC", latitude=lat, longitude=0, day_night="sun")
        assert m.daytime is (lat > 0) and m.sunrise is None
    assert "polar" in summer.reasons()["daytime"]


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("args, kwargs, needle", [
    (("1998-13-01",), {}, "'1998-13-01'"),
    (("1998-13-01 12:00",), {}, "month"),
    (("yesterday",), {}, "'yesterday'"),
    ((19981130,), {}, "19981130"),
    (("1998-11-30 12:00", "Asia/Shangai"), {}, "'Asia/Shangai'"),
    (("12000-01-01 12:00",), {}, "12000"),
    (("0-01-01 12:00",), {}, "year 0"),
    (("1998-11-30 12:00",), {"longitude": 200}, "longitude 200"),
    (("1998-11-30 12:00",), {"latitude": -91}, "latitude -91"),
    (("1998-11-30 12:00",), {"longitude": float("nan")}, "longitude nan"),
    (("1998-11-30 12:00",), {"longitude": "east"}, "'east'"),
    (("1998-11-30 12:00",), {"hours": "true_solar"}, "longitude=None"),
    (("1998-11-30 12:00",), {"hours": "sundial"}, "'sundial'"),
    (("1998-11-30 12:00",), {"day_boundary": "24:00"}, "'24:00'"),
    (("1998-11-30 12:00",), {"day_night": "sun", "longitude": 116.4}, "latitude=None"),
    (("0001-01-01 00:00",), {}, "supported range"),
    (("9999-12-31 23:30",), {}, "9999-12-31 23:30"),
])
def test_bad_input_raises_calendar_error_naming_the_value(args, kwargs, needle):
    with pytest.raises(CalendarError) as caught:
        moment(*args, **kwargs)
    assert needle in str(caught.value)
    assert isinstance(caught.value, InputError)
    assert caught.value.__cause__ is None                  # no library traceback attached


def test_range_edges_that_are_inside():
    assert moment("9999-12-31 23:30", day_boundary="00:00").hour_branch == "子"
    assert moment("0001-03-01 12:00").year_pillar == "辛酉"   # (1 − 4) mod 60 → 辛酉


# ----------------------------------------------------------------------------- against tyme4py

def tyme_pillars(at: datetime) -> tuple[str, str, str, str]:
    """Year, month, day, hour pillars of a UTC+8 wall-clock time by tyme4py itself."""
    h = SolarTime.from_ymd_hms(at.year, at.month, at.day, at.hour, at.minute, at.second).get_sixty_cycle_hour()
    return (h.get_year().get_name(), h.get_month().get_name(), h.get_day().get_name(),
            h.get_sixty_cycle().get_name())


def test_pillars_terms_and_lunar_months_agree_with_tyme4py():
    rng = random.Random(20240621)
    start, span = datetime(1900, 1, 1), (datetime(2100, 1, 1) - datetime(1900, 1, 1)).total_seconds()
    for _ in range(300):
        at = start + timedelta(seconds=rng.randrange(int(span)))
        m = moment(at, "Etc/GMT-8")                                        # fixed UTC+8
        mine = (m.year_pillar, m.month_pillar, m.day_pillar, m.hour_pillar)
        assert mine == tyme_pillars(at), at
        t = SolarTime.from_ymd_hms(at.year, at.month, at.day, at.hour, at.minute, at.second)
        assert m.term.name == t.get_term().get_name().translate(SIMPLIFIED), at
        if at.hour != 23:                                                  # chart day = civil day
            lunar = SolarDay.from_ymd(at.year, at.month, at.day).get_lunar_day().get_lunar_month()
            assert (m.lunar_month, m.lunar_leap) == (lunar.get_month(), lunar.is_leap()), at


def test_month_pillar_agrees_with_tyme4py_a_second_either_side_of_every_jie_1990s():
    for year in range(1990, 2000):
        for index in range(1, 24, 2):
            instant = term_instant(year, index).replace(tzinfo=None)
            for at in (instant - timedelta(seconds=1), instant):
                m = moment(at, "Etc/GMT-8")
                assert (m.year_pillar, m.month_pillar) == tyme_pillars(at)[:2], at
            assert moment(instant, "Etc/GMT-8").term.name == TERM_NAMES[index]


def test_leap_month_is_flagged():
    m = moment("2023-03-30 12:00")                # 2023 had a leap 2nd month (閏二月, from 03-22)
    assert (m.lunar_month, m.lunar_leap) == (2, True)
    assert "閏" in m.reasons()["lunar_month"]


def test_before_1582_dates_are_proleptic_gregorian():
    at = date(1500, 3, 1)                                                 # proleptic Gregorian
    jdn = at.toordinal() + 1721425
    julian = JulianDay.from_julian_day(jdn).get_solar_day()                # tyme4py's Julian date
    assert (julian.get_month(), julian.get_day()) == (2, 20)
    m = moment(datetime(1500, 3, 1, 12), "Etc/GMT-8")
    assert m.day_pillar == julian.get_sixty_cycle_day().get_sixty_cycle().get_name()
    days = [moment(f"1582-10-{d:02d} 12:00").day_pillar for d in (14, 15)]  # across the reform
    assert CYCLE.index(days[1]) == (CYCLE.index(days[0]) + 1) % 60


# ----------------------------------------------------------------------------- reasons

def test_reasons_cover_every_field():
    m = moment("1998-11-30 12:00")
    why = m.reasons()
    public = [f for f in Moment.__dataclass_fields__ if not f.startswith("_")]
    assert set(why) == set(public)
    assert all(isinstance(v, str) and v for v in why.values())
    assert why["qi"].startswith("中氣 小雪: the latest 中氣 at or before the moment, since 1998-11-22 20:34:12 UTC+8")
    assert "1998-11-30" in why["day_pillar"] and "辛巳" in why["day_pillar"]
    assert isinstance(m.term, TermInstant)


# ----------------------------------------------------------------------------- properties

def test_property_10000_random_moments():
    rng = random.Random(1998)
    start, days = date(1900, 1, 1), (date(2100, 1, 1) - date(1900, 1, 1)).days
    began = time.perf_counter()
    for _ in range(10_000):
        day = start + timedelta(days=rng.randrange(days))
        at = datetime.combine(day, datetime.min.time()) + timedelta(seconds=rng.randrange(86400))
        m = moment(at)
        # consecutive civil days (noon) advance the day pillar by exactly one
        today, tomorrow = moment(datetime.combine(day, datetime.min.time()).replace(hour=12)), \
            moment(datetime.combine(day + timedelta(days=1), datetime.min.time()).replace(hour=12))
        assert CYCLE.index(tomorrow.day_pillar) == (CYCLE.index(today.day_pillar) + 1) % 60, day
        # as the moment advances (by less than the shortest 中氣 gap), the 中氣 in force stays
        # or moves on by one, exactly when a 中氣 instant is passed (the KB maps 中氣 to 月將:
        # tests/test_calendar_chart.py checks that consecutive 中氣 step the 月將 backward)
        later = moment(at + timedelta(seconds=rng.randrange(1, 28 * 86400)))
        step = (TERM_NAMES.index(later.qi.name) - TERM_NAMES.index(m.qi.name)) % 24
        assert step in (0, 2), at
        step //= 2
        assert (step == 1) == (m.local < later.qi.instant <= later.local), at
        # internal consistency
        assert m.qi.is_qi and m.qi.instant <= m.term.instant <= m.local
        assert m.hour_branch == branch_of_hour(m.local.hour) == m.hour_pillar[1]
        assert all(p in CYCLE for p in (m.year_pillar, m.month_pillar, m.day_pillar, m.hour_pillar))
    assert time.perf_counter() - began < 15
