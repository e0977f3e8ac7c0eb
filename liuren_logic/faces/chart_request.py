"""What names a chart, read alike by both faces: the command line's options and the app's query fields.

A :class:`ChartRequest` holds the chart's fields (``day``, ``jiang``, ``hour``, ``offset`` …, the
querent and the matter), made from parsed options (:meth:`ChartRequest.from_options`) or from a
query's fields (:meth:`ChartRequest.from_fields`: text as given, so a field that starts with ``-``
is a value, never an option). :meth:`ChartRequest.chart_input` checks the combination and reads it
with the session; :meth:`ChartRequest.notices` says what the user should know of it; :func:`cast`
casts it. Numbers are read here for both (the command line's parser leaves them text), so both
faces say the same of a bad one.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from ..domain.errors import InputError, Notice

DEFAULT_ZONE = "Asia/Shanghai"  # the zone of ``at`` when ``tz`` is not given
FLAG_ON = ("1", "true", "on")  # a query field that sets a flag


def whole(text: str, field: str = "") -> int:
    """``text`` as a whole number; else one InputError naming the field (``--offset``)."""
    try:
        return int(text.strip())
    except (ValueError, AttributeError):  # also a number past int()'s 4,300 digits
        raise InputError(f"--{field}: {text[:80]!r} is not a whole number", f"「{text[:80]}」不是數", field) from None


def number(text: str, field: str = "") -> float:
    """``text`` as a number (degrees); else one InputError naming the field (``--latitude``)."""
    try:
        return float(text.strip())
    except (ValueError, AttributeError):
        raise InputError(f"--{field}: {text[:80]!r} is not a number", f"「{text[:80]}」不是數", field) from None


_READ: dict[str, Callable[[str], object]] = {
    "offset": lambda text: whole(text, "offset"), "longitude": lambda text: number(text, "longitude"),
    "latitude": lambda text: number(text, "latitude")}


@dataclass(frozen=True)
class ChartRequest:
    """The fields that name a chart (each None, or False, when not given)."""

    day: Optional[str] = None
    jiang: Optional[str] = None
    hour: Optional[str] = None
    month: Optional[str] = None
    year: Optional[str] = None
    offset: Optional[int] = None
    night: bool = False
    at: Optional[str] = None
    tz: Optional[str] = None
    longitude: Optional[float] = None
    latitude: Optional[float] = None
    born: Optional[str] = None
    sex: Optional[str] = None
    natal: Optional[str] = None
    xingnian: Optional[str] = None
    matter: Optional[str] = None
    asked: Optional[str] = None  # the querent's question in their words (--question)

    @classmethod
    def from_options(cls, options) -> "ChartRequest":
        """From the command line's parsed options (an ``argparse.Namespace``, numbers as text)."""
        return cls.from_fields({f.name: getattr(options, f.name, None) for f in dataclasses.fields(cls)}, blank=True)

    @classmethod
    def from_fields(cls, fields: Mapping[str, object], blank: bool = False) -> "ChartRequest":
        """From a query's fields (text; an empty field is not given, unless ``blank``): ``night=1``
        (or True) sets the flag, ``offset``, ``longitude`` and ``latitude`` are read as numbers. No
        field is ever an option."""
        given = {}
        for f in dataclasses.fields(cls):
            value = fields.get(f.name)
            if f.name == "night":
                given[f.name] = value is True or value in FLAG_ON
            elif isinstance(value, str) and (value != "" or blank):
                given[f.name] = _READ.get(f.name, str)(value)
        return cls(**given)

    def chart_input(self, session, required: bool = True):
        """The session's input for this chart (a moment, pillars and an offset, or pillars, 月將 and
        hour); None when nothing names a chart and none is ``required``."""
        if self.asked is not None and self.matter is None:
            raise InputError("--question needs --matter (the matter the question asks about, e.g. --matter 天時)",
                             "有所問之言，須先擇占事（如天時）", "matter")
        querent = {"born": self.born, "sex": self.sex, "matter": self.matter, "natal": self.natal,
                   "xingnian": self.xingnian, "question": self.asked}
        if self.at is not None:
            if self.day or self.jiang or self.hour or self.month or self.year or self.offset is not None:
                raise InputError("give either --at or the pillars (--day with --jiang/--hour or --offset), not both",
                                 "時刻與干支只可擇一：或給時刻，或給日干支與月將、占時（或轉數）", "at")
            return session.dated_input(self.at, self.tz or DEFAULT_ZONE, self.longitude, self.latitude, **querent)
        if self.day is None:
            if required:
                raise InputError("missing --day (a day pillar such as 辛巳) or --at (a moment)",
                                 "未填：給日干支（如辛巳），或以時刻起課", "day")
            return None
        if self.offset is not None:
            if self.jiang or self.hour:
                raise InputError("give either --offset or --jiang and --hour, not both", "轉數與月將、占時只可擇一", "offset")
            if self.month or self.year:
                raise InputError("--month and --year go with --jiang and --hour, not --offset",
                                 "月建與年須配月將、占時，不配轉數", "month" if self.month else "year")
            return session.offset_input(self.day, self.offset, daytime=not self.night, **querent)
        jiang, hour = self.jiang, self.hour
        if jiang and hour is None and "加" in jiang:  # 「戌加寅」: the 月將 over the hour
            from ..domain.inputs import parse_over

            jiang, hour = parse_over(session.base, jiang)
        missing = [name for name, value in (("jiang", jiang), ("hour", hour)) if value is None]
        if missing:
            raise InputError(f"missing --{' and --'.join(missing)} (or give --offset)",
                             "未填" + ("（占時亦未填）" if len(missing) > 1 else "") + "；或給轉數 0–11", missing[0])
        return session.chart_input(self.day, jiang, hour, month=self.month, year=self.year, **querent)

    def notices(self, session) -> list[Notice]:
        """For a chart cast from a moment: each coordinate given that changes nothing under the
        school's calendar readings, and the zone the moment is read in when none was given."""
        from ..domain.school import reading_name

        if self.at is None:
            return []
        readings = session.kb.school.readings if session.kb.school is not None else {}
        sun = readings.get("daynight") == "sun"
        found = []
        if self.longitude is not None and not sun and readings.get("hours") != "true_solar":
            found.append(Notice("warning", "--longitude is ignored: this school reads civil hours and day and night by "
                                "the hour (try --reading hours=true_solar or daynight=sun)",
                                f"經度不起作用：此門派以鐘錶時定時辰，以時辰分晝夜（可改用異說「{reading_name('hours', 'true_solar')}」"
                                f"或「{reading_name('daynight', 'sun')}」）", "longitude"))
        if self.latitude is not None and not sun:
            found.append(Notice("warning", "--latitude is ignored: this school reads day and night by the hour "
                                "(try --reading daynight=sun)",
                                f"緯度不起作用：此門派以時辰分晝夜（可改用異說「{reading_name('daynight', 'sun')}」）",
                                "latitude"))
        if self.tz is None:
            found.append(Notice("note", f"no --tz given: the moment is read in {DEFAULT_ZONE} (UTC+08:00)",
                                f"未給時區：時刻按 {DEFAULT_ZONE}（UTC+08:00）讀", "tz"))
        return found


def cast(session, request: ChartRequest, required: bool = True, whole_chart: bool = True,
         notice: Optional[Callable[[Notice], None]] = None):
    """The chart ``request`` names, cast by ``session`` (None when none is named and none ``required``);
    ``whole_chart``: evaluated whole at the cast (a rule past an evaluation limit is reported whether
    or not the board reads it). Each of :meth:`ChartRequest.notices` goes to ``notice`` once the
    input is read (bad input gets its one line alone)."""
    chart_input = request.chart_input(session, required)
    if chart_input is None:
        return None
    for said in request.notices(session):
        if notice is not None:
            notice(said)
    return session.cast_many([chart_input], eager=whole_chart)[0]


__all__ = ["ChartRequest", "cast", "whole", "number", "DEFAULT_ZONE"]
