"""Calendar inputs of a 大六壬 chart: from a civil moment and place to pillars and solar terms.

tyme4py supplies the astronomy (solar-term instants, lunar months); this module turns those
into the chart inputs with plain sixty-cycle arithmetic (the tests check every pillar against
tyme4py's own ``SolarTime.get_sixty_cycle_hour()``, which costs ~2 ms a call).

Conventions
  * Solar terms are instants in fixed UTC+8. A moment is compared with them as an instant,
    so the zone it was given in (and any daylight saving) does not matter for the term,
    中氣 (and so the 月將, which the KB derives from it), year pillar or month pillar.
  * Day and hour pillars come from the clock: the civil clock in ``tz``, or true solar time
    (``hours="true_solar"``).
  * ``day_boundary="23:00"`` (子初換日): 23:00–23:59 belongs to the next day.
    ``day_boundary="00:00"`` (子正換日): the day changes at midnight and 23:xx stays on the
    same day pillar, but the hour pillar keeps running in the sixty cycle (夜子時): the hour
    pillar at 23:xx is the next day's 子 hour (甲 day 23:30 → 丙子). The hour pillar is thus
    the same under both readings; only the day pillar differs.
  * The lunar month is that of the chart's day (the day whose pillar is ``day_pillar``).
  * tyme4py counts dates before 1582-10-15 in the Julian calendar; Python's ``datetime`` is
    proleptic Gregorian. Everything here goes through Julian Day numbers, so both agree.
"""
from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from functools import lru_cache

from tyme4py.lunar import LunarYear
from tyme4py.solar import SolarTerm

from .errors import CalendarError

__all__ = ["TermInstant", "Moment", "moment", "equation_of_time", "TERM_NAMES", "STEMS", "BRANCHES", "UTC8"]

STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"

# The 24 terms in traditional characters, in tyme4py's index order (0 = 冬至; odd = 節, even = 中氣).
TERM_NAMES = (
    "冬至", "小寒", "大寒", "立春", "雨水", "驚蟄", "春分", "清明", "穀雨", "立夏", "小滿", "芒種",
    "夏至", "小暑", "大暑", "立秋", "處暑", "白露", "秋分", "寒露", "霜降", "立冬", "小雪", "大雪",
)

LUNAR_MONTH_NAMES = ("正", "二", "三", "四", "五", "六", "七", "八", "九", "十", "冬", "臘")

UTC8 = timezone(timedelta(hours=8), "UTC+8")
_EPOCH8 = datetime(2000, 1, 1, 12, tzinfo=UTC8)     # JD 2451545 on the UTC+8 clock
_J2000_UTC = datetime(2000, 1, 1, 12, tzinfo=timezone.utc)
_J2000 = 2451545.0
_ORDINAL_TO_JDN = 1721425                            # date.toordinal() + this = Julian Day Number
_JIAZI_JDN = 2451551                                 # 2000-01-07, a 甲子 day (tyme4py's epoch too)
_TERM_YEAR_SECONDS = 365.2422 * 86400

_BOUNDARIES = ("23:00", "00:00")
_HOURS = ("civil", "true_solar")
_DAY_NIGHT = ("fixed", "sun")
NOW = ("now", "現在", "现在")  # --at now: the moment the command runs, in the zone given
_SUN_ALTITUDE = -0.833                               # refraction + solar semi-diameter, degrees


@dataclass(frozen=True, slots=True)
class TermInstant:
    """A solar term and the instant it begins."""

    name: str            # traditional, e.g. "小雪"
    instant: datetime    # aware, fixed UTC+8
    is_qi: bool          # 中氣 (True) or 節 (False)

    def __str__(self) -> str:
        return f"{self.name} {_fmt(self.instant)} UTC+8"


@dataclass(frozen=True, slots=True)
class _Basis:
    """What the reasons are written from (not part of the public value)."""

    tz: str
    day_boundary: str
    hours: str
    day_night: str
    longitude: float | None
    latitude: float | None
    solar_offset: timedelta | None
    jie: TermInstant
    lichun: TermInstant
    chart_day: date


@dataclass(frozen=True, slots=True)
class Moment:
    """Everything a chart needs from the calendar; ``reasons()`` says why."""

    local: datetime
    clock: datetime
    year: int            # the number of the pillar year (from 立春 of that year)
    year_pillar: str
    month_pillar: str
    day_pillar: str
    hour_pillar: str
    hour_branch: str
    term: TermInstant
    qi: TermInstant
    next_li: TermInstant | None  # the next 立春 立夏 立秋 or 立冬 (None past the year 9999)
    lunar_month: int
    lunar_leap: bool
    daytime: bool | None
    sunrise: datetime | None
    sunset: datetime | None
    _basis: _Basis = field(repr=False, compare=False)

    @property
    def days_to_li(self) -> int | None:
        """Whole days from the moment to the next 立 (for the 土王用事 reading of 土旺)."""
        return None if self.next_li is None else (self.next_li.instant - self.local).days

    def reasons(self, lang: str = "en") -> dict[str, str]:
        """One readable line per field, in English (the terms in Chinese) or in Chinese (``zh``)."""
        return _reasons(self, self._basis, lang)

    @property
    def jie(self) -> TermInstant:
        """The 節 that began the month (the month pillar changes there)."""
        return self._basis.jie


# ----------------------------------------------------------------------------- public entry

def moment(at: str | datetime, tz: str = "Asia/Shanghai", *, longitude: float | None = None,
           latitude: float | None = None, day_boundary: str = "23:00", hours: str = "civil",
           day_night: str = "fixed") -> Moment:
    """Calendar inputs of a chart for ``at``: "YYYY-MM-DD HH:MM[:SS]", the ISO "T" form or a datetime.

    Naive input is wall-clock time in ``tz`` (a time the clocks skipped is refused; a repeated
    one means its first occurrence); aware input is re-read in ``tz``.
    ``day_boundary``: "23:00" (23:xx is the next day) or "00:00" (23:xx keeps the day pillar; the
    hour pillar is the next day's 子 either way, 夜子時). ``hours="true_solar"`` (needs
    ``longitude``) reads day and hour pillars from UTC + longitude/15 h + equation of time
    (Meeus ch. 25/28, within a few seconds near the present; ~1 s against Meeus's example 28.a).
    ``day_night="sun"`` (needs both coordinates) sets ``daytime`` from NOAA/Meeus sunrise and
    sunset (altitude −0.833°, ~1 min) on the civil date; polar day/night give no sunrise/sunset.
    Supported: from 立春 of year 1 to 9999-12-31. Raises ``CalendarError`` on bad input.
    """
    zone = _zone(tz)
    _check_choice("day_boundary", day_boundary, _BOUNDARIES)
    _check_choice("hours", hours, _HOURS)
    _check_choice("day_night", day_night, _DAY_NIGHT)
    lon = _coordinate("longitude", longitude, 180)
    lat = _coordinate("latitude", latitude, 90)
    if hours == "true_solar" and lon is None:
        raise CalendarError("hours='true_solar' needs a longitude; got longitude=None",
                            "以真太陽時定時辰，須給經度", "longitude")
    if day_night == "sun" and (lon is None or lat is None):
        raise CalendarError(f"day_night='sun' needs latitude and longitude; got latitude={lat}, longitude={lon}",
                            "以日出日落分晝夜，須給緯度與經度", "latitude" if lat is None else "longitude")
    local = _localize(at, zone, tz)
    try:
        return _build(local, tz, zone, lon, lat, day_boundary, hours, day_night)
    except CalendarError:
        raise
    except (OverflowError, ValueError):
        raise CalendarError(f"{_fmt(local)} in {tz} is outside the supported range {_limits()}",
                            f"{_fmt(local)}（{tz}）超出可推之範圍 {_limits()}", "at") from None


def _build(local: datetime, tz: str, zone: tzinfo, lon: float | None, lat: float | None,
           day_boundary: str, hours: str, day_night: str) -> Moment:
    """Assemble a Moment from validated inputs."""
    sec = (local - _EPOCH8).total_seconds()
    year, i = _term_position(sec)
    term, qi, jie = _term(year, i), _term(year, i - i % 2), _term(year, i - 1 + i % 2)
    next_li = _next_li(year, i)
    pillar_year = year if i >= 3 else year - 1
    lichun = _term(pillar_year, 3)
    month_branch = ((i - 1 + i % 2) % 24 + 1) // 2 % 12
    offset = _solar_offset(local, lon) if hours == "true_solar" else None
    clock = _true_solar_clock(local, offset, lon) if offset is not None else local
    wall = clock.replace(tzinfo=None)
    ordinal23 = wall.toordinal() + (wall.hour == 23)
    chart_day = _chart_day(ordinal23 if day_boundary == "23:00" else wall.toordinal(), wall, day_boundary)
    branch = (wall.hour + 1) // 2 % 12
    hour_stem = (_day_index(ordinal23) % 5 * 2 + branch) % 10
    lunar = _lunar_month(chart_day)
    sunrise = sunset = daytime = None
    if day_night == "sun":
        sunrise, sunset, daytime = _daylight(local, zone, lat, lon)
    return Moment(
        local=local, clock=clock, year=pillar_year,
        year_pillar=_cycle_name((pillar_year - 4) % 60),
        month_pillar=_month_pillar(pillar_year, month_branch),
        day_pillar=_cycle_name(_day_index(chart_day.toordinal())),
        hour_pillar=_pillar(hour_stem, branch), hour_branch=_BRANCHES[branch],
        term=term, qi=qi, next_li=next_li,
        lunar_month=abs(lunar), lunar_leap=lunar < 0,
        daytime=daytime, sunrise=sunrise, sunset=sunset,
        _basis=_Basis(tz, day_boundary, hours, day_night, lon, lat, offset, jie, lichun, chart_day),
    )


# ----------------------------------------------------------------------------- input checking

_FIXED = re.compile(r"(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?")


def _zone(tz: object) -> tzinfo:
    """The IANA zone named ``tz``, or a fixed offset from UTC (``+08:00``, ``UTC-5``)."""
    from zoneinfo import ZoneInfo, available_timezones
    unknown = f"「{tz}」不識：應為 IANA 時區名（如 Asia/Shanghai）或與 UTC 之差（如 +08:00）"
    if not isinstance(tz, str) or not tz.strip():
        raise CalendarError(f"unknown time zone {tz!r}: expected an IANA name such as 'Asia/Shanghai'", unknown, "tz")
    fixed = _FIXED.fullmatch(tz.strip().upper())
    if fixed:
        sign, hours, minutes = fixed.group(1), int(fixed.group(2)), int(fixed.group(3) or 0)
        if hours > 14 or minutes > 59:
            raise CalendarError(f"time zone {tz!r} is not an offset from UTC between -12:00 and +14:00",
                                f"「{tz}」須在 UTC -12:00 至 +14:00 之間", "tz")
        offset = timedelta(hours=hours, minutes=minutes) * (-1 if sign == "-" else 1)
        return timezone(offset, f"UTC{sign}{hours:02d}:{minutes:02d}")
    try:
        return ZoneInfo(tz)
    except Exception:
        if not available_timezones():
            raise CalendarError(f"cannot look up time zone {tz!r}: no time-zone database found "
                                "(install the 'tzdata' package)", "查不到時區資料（請安裝 tzdata）", "tz") from None
        raise CalendarError(f"unknown time zone {tz!r}: expected an IANA name such as 'Asia/Shanghai'", unknown,
                            "tz") from None


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    """Reject an option value that is not one of ``choices``."""
    if value not in choices:
        raise CalendarError(f"{name} {value!r} is not one of {', '.join(map(repr, choices))}",
                            f"{name} 不可取「{value}」；可取：{'、'.join(choices)}")


def _coordinate(name: str, value: object, limit: int) -> float | None:
    """A finite latitude/longitude within ±limit, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise CalendarError(f"{name} {value!r} is not a number: expected degrees −{limit}…{limit}",
                            f"「{value}」不是數：應為 −{limit}…{limit} 度", name)
    if not math.isfinite(value) or not -limit <= value <= limit:
        raise CalendarError(f"{name} {value:g} is outside −{limit}…{limit}", f"{value:g} 度超出 −{limit}…{limit}", name)
    return float(value)


_AT = re.compile(r"\s*(\d+)-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?"
                 r"(Z|[+-]\d{2}:?\d{2})?\s*")
_AT_FORM = "expected YYYY-MM-DD HH:MM[:SS] (or ISO 8601: YYYY-MM-DDTHH:MM[:SS][+08:00|Z])"


def _parse(text: str) -> datetime:
    """A datetime from 'YYYY-MM-DD HH:MM[:SS]' or ISO 8601; aware when the text gives an offset."""
    found, unread = _AT.fullmatch(text), f"「{text}」讀不出：應如 1998-11-30 12:00"
    if not found:
        raise CalendarError(f"cannot read date {text!r}: {_AT_FORM}", unread, "at")
    year, month, day, hour, minute, second, fraction, offset = found.groups()
    year = year.lstrip("0") or "0"  # leading zeros say nothing (5,000 of them are past int()'s limit)
    if len(year) > 12:  # not converted, and not echoed
        raise CalendarError(f"a year of {len(year):,} digits is outside 1–9999", "年份超出 1–9999", "at")
    if len(year) > 4:
        raise CalendarError(f"year {year} is outside 1–9999", f"{year} 年超出 1–9999", "at")
    _check_year(int(year))
    micro = int((fraction or "0").ljust(6, "0"))
    zone = None
    if offset:
        digits = offset.replace(":", "")
        minutes = 0 if offset == "Z" else (int(digits[1:3]) * 60 + int(digits[3:5])) * (-1 if digits[0] == "-" else 1)
        if abs(minutes) >= 24 * 60:
            raise CalendarError(f"cannot read date {text!r}: the offset {offset} is not under 24 hours", unread, "at")
        zone = timezone(timedelta(minutes=minutes))
    try:
        return datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro, zone)
    except ValueError as err:
        raise CalendarError(f"cannot read date {text!r}: {err}; {_AT_FORM}", unread, "at") from None


def _check_year(year: int) -> None:
    if not 1 <= year <= 9999:
        raise CalendarError(f"year {year} is outside 1–9999", f"{year} 年超出 1–9999", "at")


def _localize(at: object, zone: tzinfo, tz: str) -> datetime:
    """``at`` as an aware datetime in ``zone``; naive input is read as wall-clock time there."""
    if isinstance(at, str) and at.strip().lower() in NOW:
        at = datetime.now(zone)
    elif isinstance(at, str):
        at = _parse(at)
    elif not isinstance(at, datetime):
        raise CalendarError(f"cannot read date {at!r}: expected a 'YYYY-MM-DD HH:MM' string or a datetime",
                            f"讀不懂日期「{at}」：應為「YYYY-MM-DD HH:MM」", "at")
    try:
        if at.tzinfo is not None and at.utcoffset() is not None:
            return at.astimezone(zone)
        local = at.replace(tzinfo=zone, fold=0)
        if local.utcoffset() < local.replace(fold=1).utcoffset():     # PEP 495: a gap
            raise CalendarError(f"{_fmt(at)} does not exist in {tz}: the clocks jumped forward over it",
                                f"{_fmt(at)} 於 {tz} 不存在：時鐘撥快，跳過此刻", "at")
        return local
    except OverflowError:
        raise CalendarError(f"{_fmt(at)} in {tz} is outside the supported range {_limits()}",
                            f"{_fmt(at)}（{tz}）超出可推之範圍 {_limits()}", "at") from None


# ----------------------------------------------------------------------------- solar terms

@lru_cache(maxsize=None)
def _term_seconds(year: int) -> tuple[int, ...]:
    """Instants of tyme4py's terms (year, 0..23) and (year + 1, 0), in s from 2000-01-01 12:00 UTC+8.

    Term-year ``year`` runs from 冬至 in December of ``year − 1`` to the next 冬至.
    """
    def seconds(y: int, i: int) -> int:
        return round((SolarTerm.from_index(y, i).get_julian_day().get_day() - _J2000) * 86400)
    return tuple(seconds(year, i) for i in range(24)) + (seconds(year + 1, 0),)


def _term_position(sec: float) -> tuple[int, int]:
    """(term-year, index 0..23) of the term in force at ``sec``."""
    year = 2000 + math.floor(sec / _TERM_YEAR_SECONDS)
    while True:
        secs = _term_seconds(year)
        if sec < secs[0]:
            year -= 1
        elif sec >= secs[24]:
            year += 1
        else:
            return year, bisect_right(secs, sec) - 1


@lru_cache(maxsize=None)
def _term(year: int, index: int) -> TermInstant:
    """Term ``index`` of term-year ``year`` (index may run past 0..23): one object for every moment
    that names it (a long dated audit holds hundreds of thousands of moments)."""
    year, index = year + index // 24, index % 24
    instant = _EPOCH8 + timedelta(seconds=_term_seconds(year)[index])
    return TermInstant(TERM_NAMES[index], instant, index % 2 == 0)


# ----------------------------------------------------------------------------- pillars

def _next_li(year: int, index: int) -> TermInstant | None:
    """The first 立 (terms 3, 9, 15, 21: 立春 立夏 立秋 立冬) after term ``index``; None past 9999."""
    try:
        return _term(year, index + ((3 - index) % 6 or 6))
    except (OverflowError, ValueError):
        return None


_PILLARS = tuple(tuple(stem + branch for branch in BRANCHES) for stem in STEMS)  # one string per pillar, shared
_BRANCHES = tuple(BRANCHES)  # and per branch (indexing a str makes a new one)


def _pillar(stem: int, branch: int) -> str:
    return _PILLARS[stem][branch]


def _cycle_name(index: int) -> str:
    return _pillar(index % 10, index % 12)


def _day_index(ordinal: int) -> int:
    """Sixty-cycle index of the civil (proleptic Gregorian) day with this ``date.toordinal()``."""
    return (ordinal + _ORDINAL_TO_JDN - _JIAZI_JDN) % 60


def _chart_day(ordinal: int, wall: datetime, day_boundary: str) -> date:
    """The chart's day; past 9999-12-31 is out of range."""
    if ordinal > date.max.toordinal():
        raise CalendarError(f"{_fmt(wall)} falls on the day after 9999-12-31 under day_boundary "
                            f"{day_boundary!r}, outside the supported range {_limits()}",
                            f"{_fmt(wall)} 依換日之界 {day_boundary} 落在 9999-12-31 之後，出於可算之範圍 {_limits()}",
                            "at")
    return date.fromordinal(ordinal)


def _month_pillar(pillar_year: int, branch: int) -> str:
    """Month pillar by 五虎遁: the 寅 month of a 甲/己 year is 丙寅, and so on."""
    yin_stem = ((pillar_year - 4) % 10 % 5 * 2 + 2) % 10
    return _pillar((yin_stem + (branch - 2) % 12) % 10, branch)


@lru_cache(maxsize=None)
def _lunar_months(year: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(first JDN, month number, negative when leap) of lunar years ``year − 1`` and ``year``."""
    starts: list[int] = []
    numbers: list[int] = []
    for y in (year - 1, year):
        try:
            months = LunarYear.from_year(y).get_months()
        except ValueError:      # tyme4py knows lunar years −1 … 9999
            continue
        for m in months:
            starts.append(round(m.get_first_julian_day().get_day()))
            numbers.append(m.get_month_with_leap())
    return tuple(starts), tuple(numbers)


def _lunar_month(day: date) -> int:
    """Lunar month number of ``day``; negative for a leap month."""
    starts, numbers = _lunar_months(day.year)
    return numbers[bisect_right(starts, day.toordinal() + _ORDINAL_TO_JDN) - 1]


def _limits() -> str:
    """The supported span: from 立春 of year 1 (earlier moments need year-0 terms) to 9999's end."""
    return f"{_fmt(_term(1, 3).instant)} UTC+8 … 9999-12-31 23:59:59"


# ----------------------------------------------------------------------------- the sun

def _julian_day(instant: datetime) -> float:
    return _J2000 + (instant - _J2000_UTC).total_seconds() / 86400


def _sun(jd: float) -> tuple[float, float]:
    """Apparent declination (degrees) and equation of time (minutes) at Julian Day ``jd``.

    Meeus, Astronomical Algorithms, ch. 25 (low-accuracy solar coordinates, ~0.01°) and
    eq. 28.1/28.2. UT stands in for TT (ΔT ≈ 1 min today changes E by < 0.1 s). The equation
    of time is good to a few seconds for centuries around 2000.
    """
    t = (jd - _J2000) / 36525
    tau = t / 10
    l0 = (280.4664567 + tau * (360007.6982779 + tau * (0.03032028 + tau * (1 / 49931
          - tau * (1 / 15300 + tau / 2000000))))) % 360
    m = math.radians(357.52911 + t * (35999.05029 - 0.0001537 * t))
    c = ((1.914602 - t * (0.004817 + 0.000014 * t)) * math.sin(m)
         + (0.019993 - 0.000101 * t) * math.sin(2 * m) + 0.000289 * math.sin(3 * m))
    omega = math.radians(125.04452 - 1934.136261 * t)
    lam = math.radians(l0 + c - 0.00569 - 0.00478 * math.sin(omega))
    eps0 = 23 + (26 + (21.448 - t * (46.815 + t * (0.00059 - 0.001813 * t))) / 60) / 60
    eps = math.radians(eps0 + 0.00256 * math.cos(omega))
    alpha = math.degrees(math.atan2(math.cos(eps) * math.sin(lam), math.cos(lam)))
    sun_l, moon_l = math.radians(280.4665 + 36000.7698 * t), math.radians(218.3165 + 481267.8813 * t)
    dpsi = (-17.20 * math.sin(omega) - 1.32 * math.sin(2 * sun_l) - 0.23 * math.sin(2 * moon_l)
            + 0.21 * math.sin(2 * omega)) / 3600
    e = (l0 - 0.0057183 - alpha + dpsi * math.cos(eps) + 180) % 360 - 180
    return math.degrees(math.asin(math.sin(eps) * math.sin(lam))), 4 * e


def equation_of_time(instant: datetime) -> timedelta:
    """Apparent minus mean solar time at an aware ``instant`` (Meeus ch. 28)."""
    return timedelta(minutes=_sun(_julian_day(instant))[1])


def _solar_offset(local: datetime, lon: float) -> timedelta:
    """True solar time minus UTC at ``local``: longitude/15 h + equation of time, whole seconds."""
    return timedelta(seconds=round(240 * lon + 60 * _sun(_julian_day(local))[1]))


def _true_solar_clock(local: datetime, offset: timedelta, lon: float) -> datetime:
    """``local`` re-read at UTC + ``offset`` (naive arithmetic: no detour through UTC's year range)."""
    wall = local.replace(tzinfo=None) + (offset - local.utcoffset())
    return wall.replace(tzinfo=timezone(offset, f"true solar time {lon:g}°"))


def _cos_hour_angle(lat: float, decl: float) -> float:
    """Cosine of the sun's hour angle at rising; beyond ±1 when it never rises or never sets."""
    phi, delta = math.radians(lat), math.radians(decl)
    top = math.sin(math.radians(_SUN_ALTITUDE)) - math.sin(phi) * math.sin(delta)
    bottom = math.cos(phi) * math.cos(delta)
    if bottom < 1e-12:
        return math.copysign(math.inf, top)
    return top / bottom


def _utc_minutes(base: datetime, minutes: float) -> datetime:
    return base + timedelta(seconds=round(minutes * 60))


def _transit(base: datetime, lon: float) -> datetime:
    """Solar noon near UTC day ``base`` at longitude ``lon`` (NOAA iteration)."""
    noon = _utc_minutes(base, 720 - 4 * lon)
    for _ in range(2):
        noon = _utc_minutes(base, 720 - 4 * lon - _sun(_julian_day(noon))[1])
    return noon


def _event(base: datetime, noon: datetime, lat: float, lon: float, sign: int) -> datetime:
    """Sunrise (sign −1) or sunset (+1) around ``noon``, refined three times."""
    when = noon
    for _ in range(3):
        decl, eot = _sun(_julian_day(when))
        hour_angle = math.degrees(math.acos(max(-1.0, min(1.0, _cos_hour_angle(lat, decl)))))
        when = _utc_minutes(base, 720 - 4 * lon - eot + sign * 4 * hour_angle)
    return when


def _daylight(local: datetime, zone: tzinfo, lat: float, lon: float
              ) -> tuple[datetime | None, datetime | None, bool]:
    """(sunrise, sunset, daytime) on the civil date of ``local``; polar day/night give None, None."""
    day = local.date()
    base = datetime.combine(day, time(), timezone.utc)
    noon = _transit(base, lon)
    for _ in range(2):                       # the transit that falls on the local civil date
        shift = (day - noon.astimezone(zone).date()).days
        if not shift:
            break
        base += timedelta(days=shift)
        noon = _transit(base, lon)
    cos_h = _cos_hour_angle(lat, _sun(_julian_day(noon))[0])
    if cos_h <= -1:
        return None, None, True
    if cos_h >= 1:
        return None, None, False
    rise = _event(base, noon, lat, lon, -1).astimezone(zone)
    fall = _event(base, noon, lat, lon, +1).astimezone(zone)
    return rise, fall, rise <= local < fall


# ----------------------------------------------------------------------------- reasons

def _fmt(instant: datetime) -> str:
    """'YYYY-MM-DD HH:MM:SS' for any year (strftime does not pad years below 1000)."""
    return (f"{instant.year:04d}-{instant.month:02d}-{instant.day:02d} "
            f"{instant.hour:02d}:{instant.minute:02d}:{instant.second:02d}")


def _offset_text(delta: timedelta) -> str:
    """'+08:00', or '−00:01:51' when there are seconds."""
    sign, seconds = ("+" if delta >= timedelta(0) else "−"), abs(round(delta.total_seconds()))
    text = f"{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}"
    return text + f":{seconds % 60:02d}" if seconds % 60 else text


def _place(lat: float, lon: float) -> str:
    return f"{abs(lat):g}°{'N' if lat >= 0 else 'S'} {abs(lon):g}°{'E' if lon >= 0 else 'W'}"


def _reasons(m: Moment, b: _Basis, lang: str = "en") -> dict[str, str]:
    """The lines behind ``Moment.reasons``, in English (the terms in Chinese) or in Chinese."""
    branch = BRANCHES.index(m.hour_branch)
    start = (2 * branch - 1) % 24
    next_day = b.chart_day != m.clock.date()
    late = f"{m.clock.hour:02d}:{m.clock.minute:02d}"
    lunar = ("閏" if m.lunar_leap else "") + LUNAR_MONTH_NAMES[m.lunar_month - 1] + "月"
    offset, zh = _offset_text(m.local.utcoffset()), lang == "zh"
    if zh:
        boundary = "子初換日：二十三時換日" if b.day_boundary == "23:00" else "子正換日：零時換日"
        return {
            "local": f"民用時 {_fmt(m.local)} {b.tz}（UTC{offset}" + ("，行夏令時）" if m.local.dst() else "）"),
            "clock": _clock_reason(m, b, lang),
            "year": f"{m.year}年（年柱{m.year_pillar}，自立春 {_fmt(b.lichun.instant)} UTC+8 起）",
            "year_pillar": f"年柱 {m.year_pillar}：立春換年；時在{b.lichun}之後",
            "month_pillar": f"月柱 {m.month_pillar}：逢節換月；時在節{b.jie}之後",
            "day_pillar": f"日柱 {m.day_pillar}：{b.chart_day.isoformat()}（{boundary}"
                          + (f"；{late}已屬次日）" if next_day else "）"),
            "hour_pillar": f"時柱 {m.hour_pillar}：{m.hour_branch}時，時干以五鼠遁由其子時所屬之日起"
                           f"（時柱相續不斷；夜子時取次日之子）",
            "hour_branch": f"時支 {m.hour_branch}：鐘點 {late} 在 {start:02d}:00–{(start + 2) % 24:02d}:00 之間",
            "term": f"節氣 {m.term.name}（{'中氣' if m.term.is_qi else '節'}），自 {_fmt(m.term.instant)} UTC+8 起",
            "qi": f"中氣 {m.qi.name}：此刻或此前最近之中氣，自 {_fmt(m.qi.instant)} UTC+8 起",
            "next_li": (f"下一立節 {m.next_li.name} 在 {_fmt(m.next_li.instant)} UTC+8，距此刻 {m.days_to_li} 整日"
                        if m.next_li else "下一立節：超出可推算之年限"),
            "lunar_month": f"農曆 {lunar}（{m.lunar_month}）：占日 {b.chart_day.isoformat()} 所在之農曆月",
            "lunar_leap": "閏月" if m.lunar_leap else "非閏月",
            **_sun_reasons(m, b, lang),
        }
    boundary = "子初換日: day changes at 23:00" if b.day_boundary == "23:00" else "子正換日: day changes at 00:00"
    return {
        "local": f"civil moment 民用時 {_fmt(m.local)} {b.tz} (UTC{offset}"
                 + (", daylight saving 夏令時 in force)" if m.local.dst() else ")"),
        "clock": _clock_reason(m, b, lang),
        "year": f"{m.year}年 (the year of the pillar {m.year_pillar}, from 立春 {_fmt(b.lichun.instant)} UTC+8)",
        "year_pillar": f"年柱 {m.year_pillar}: year changes at 立春; after {b.lichun}",
        "month_pillar": f"月柱 {m.month_pillar}: month changes at each 節; after 節 {b.jie}",
        "day_pillar": f"日柱 {m.day_pillar}: day {b.chart_day.isoformat()} ({boundary}"
                      + (f"; {late} counts as the next day)" if next_day else ")"),
        "hour_pillar": f"時柱 {m.hour_pillar}: {m.hour_branch} hour, stem by 五鼠遁 from the day whose 子 hour "
                       f"this is (hour pillars run on continuously; 夜子時 takes the next day's 子)",
        "hour_branch": f"時支 {m.hour_branch}: clock {late} lies in "
                       f"{start:02d}:00–{(start + 2) % 24:02d}:00",
        "term": f"節氣 {m.term.name} ({'中氣' if m.term.is_qi else '節'}) in force since {_fmt(m.term.instant)} UTC+8",
        "qi": f"中氣 {m.qi.name}: the latest 中氣 at or before the moment, since {_fmt(m.qi.instant)} UTC+8",
        "next_li": (f"下一立節 {m.next_li.name} at {_fmt(m.next_li.instant)} UTC+8, in {m.days_to_li} whole days"
                    if m.next_li else "下一立節: beyond the supported range"),
        "lunar_month": f"農曆 {lunar} ({m.lunar_month}): lunar month of the chart day {b.chart_day.isoformat()}",
        "lunar_leap": f"{'閏月: a leap month' if m.lunar_leap else '非閏月: not a leap month'}",
        **_sun_reasons(m, b, lang),
    }


def _clock_reason(m: Moment, b: _Basis, lang: str = "en") -> str:
    if b.solar_offset is None:
        return (f"以民用時 {_fmt(m.clock)}（{b.tz}）定時辰" if lang == "zh"
                else f"hours from the civil clock 民用時 {_fmt(m.clock)} in {b.tz}")
    eot = b.solar_offset - timedelta(seconds=round(240 * b.longitude))
    if lang == "zh":
        return (f"真太陽時 {_fmt(m.clock)} = UTC + 經度 {b.longitude:g}° ÷ 15 時 + 均時差 {_offset_text(eot)}"
                f"（UTC{_offset_text(b.solar_offset)}）")
    return (f"true solar time 真太陽時 {_fmt(m.clock)} = UTC + {b.longitude:g}°/15 h "
            f"+ equation of time {_offset_text(eot)} (UTC{_offset_text(b.solar_offset)})")


def _sun_reasons(m: Moment, b: _Basis, lang: str = "en") -> dict[str, str]:
    zh = lang == "zh"
    if b.day_night == "fixed":
        fixed = "晝夜依時支而定（讀法 daynight=fixed）" if zh else "晝夜 left to the hour branch (day_night='fixed')"
        unset = "未推算（晝夜依時支而定）" if zh else "not computed (day_night='fixed')"
        return {"daytime": fixed, "sunrise": unset, "sunset": unset}
    place = _place(b.latitude, b.longitude)
    day = m.local.date().isoformat()
    if m.sunrise is None:
        if zh:
            text = "永晝：日不落" if m.daytime else "永夜：日不出"
            return {"daytime": f"{'晝' if m.daytime else '夜'}：{text}，{place}，{day}", "sunrise": text, "sunset": text}
        text = "polar day 永晝: the sun does not set" if m.daytime else "polar night 永夜: the sun does not rise"
        return {"daytime": f"{'晝' if m.daytime else '夜'}: {text} at {place} on {day}",
                "sunrise": text, "sunset": text}
    if zh:
        rule = "日出 ≤ 此刻 < 日入" if m.daytime else "此刻不在日出與日入之間"
        return {"daytime": f"{'晝' if m.daytime else '夜'}：{rule}，{place}",
                "sunrise": f"日出 {_fmt(m.sunrise)} 當地時（NOAA/Meeus 算法，地平高度 −0.833°）",
                "sunset": f"日入 {_fmt(m.sunset)} 當地時（NOAA/Meeus 算法，地平高度 −0.833°）"}
    rule = "sunrise ≤ moment < sunset" if m.daytime else "not between sunrise and sunset"
    return {"daytime": f"{'晝' if m.daytime else '夜'}: {rule} at {place}",
            "sunrise": f"日出 {_fmt(m.sunrise)} local (NOAA/Meeus, altitude −0.833°)",
            "sunset": f"日入 {_fmt(m.sunset)} local (NOAA/Meeus, altitude −0.833°)"}


def next_dates(m: Moment, branch: str, scale: str, count: int = 3) -> list[str]:
    """The next ``count`` dates after the moment ``m`` that a branch names at a scale (日 a day
    whose day branch it is, 旬 the one such day within the next ten, if any, 月 the 節 that begins a
    month of that branch, 年 the 立春 that begins a year of it), as ISO dates; a date past 9999 ends
    the list."""
    target = BRANCHES.index(branch)
    if scale in ("日", "旬"):
        day = m._basis.chart_day
        ahead = (target - BRANCHES.index(m.day_pillar[1])) % 12 or 12
        if scale == "旬":
            return [(day + timedelta(days=ahead)).isoformat()] if ahead <= 10 else []
        return [(day + timedelta(days=ahead + 12 * k)).isoformat() for k in range(count)]
    if scale == "月":
        index = (2 * (target - 2) + 3) % 24  # 寅 begins at 立春 (term 3), 卯 at 驚蟄 (5), … 子 at 大雪 (23)
        starts = []
        for year in range(m.year - 1, m.year + count + 2):
            try:
                starts.append(_term(year, index).instant)
            except (OverflowError, ValueError):
                break
        return [s.date().isoformat() for s in sorted(s for s in starts if s > m.local)][:count]
    if scale == "年":
        first = m.year + ((target - (m.year - 4) % 12) % 12 or 12)  # the year 4 was 甲子
        dates = []
        for year in range(first, first + 12 * count, 12):
            try:
                dates.append(_term(year, 3).instant.date().isoformat())
            except (OverflowError, ValueError):
                break
        return dates
    return []
