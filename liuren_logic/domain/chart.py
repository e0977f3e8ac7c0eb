"""A cast chart: its inputs, and every conclusion read from the knowledge base.

A :class:`Chart` holds no answers of its own: each property asks the session's
knowledge base (``lesson``, ``transmission``, ``chosen`` …) for the chart's id.
Its ``repr`` is the chart as practitioners write it.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter, itemgetter
from typing import NamedTuple, Optional, Sequence

# The places a branch shows (the KB's ``shows``) in the order a board lists them.
PLACE_ORDER = {w: i for i, w in enumerate(("干上", "干陰", "支上", "支陰", "初傳", "中傳", "末傳"))}
MARK_ORDER = {m: i for i, m in enumerate(("日祿", "日馬", "旬丁", "日德"))}
KETI_RANK = {"九宗門": 0, "課經": 1, "指南": 2}  # whose 課體 names come first


_FIRST = itemgetter(0)  # a chart's row (as the session holds it, without the chart id): its first value
_REVERSED = itemgetter(slice(None, None, -1))
_BRANCH = attrgetter("branch")


def _place(row: tuple) -> int:
    """The board's rank of the place a row's last value names (one it does not list, after all)."""
    return PLACE_ORDER.get(row[-1], 9)


def _mark_rank(row: tuple) -> int:
    return MARK_ORDER.get(row[0], 9)


class cached(cached_property):
    """``functools.cached_property`` without the lock Python 3.11 takes at every first read (3.12
    dropped it): two threads reading at once both compute the same value, and one is kept."""

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.attrname] = self.func(instance)
        return value


@dataclass(frozen=True)
class ChartInput:
    """What a chart is cast from: the day pillar, the 月將 and the hour branch.

    ``extra`` holds further given facts (the querent's birth and sex, the month or year of a
    chart cast from pillars) as (relation, arguments after the chart id, origin); ``tag``
    names them in the chart id, so that the same day with another querent is another chart.
    """

    stem: str
    branch: str
    jiang: str
    hour: str
    extra: tuple = ()
    tag: str = ""

    @cached  # asked for at every fact and every read
    def id(self) -> str:
        return f"{self.stem}{self.branch}日{self.jiang}將{self.hour}時" + (f" {self.tag}" if self.tag else "")

    def facts(self) -> list[tuple[str, tuple, str]]:
        """(relation, arguments, why it holds) for each input fact; the arguments a tuple of
        strings and numbers, which the collector stops tracking at its first pass."""
        return [("day", (self.id, self.stem, self.branch), f"given: day {self.stem}{self.branch}"),
                ("jiang", (self.id, self.jiang), f"given: 月將 {self.jiang}"),
                ("hour", (self.id, self.hour), f"given: hour {self.hour}"),
                *((pred, (self.id, *args), origin) for pred, args, origin in self.extra)]

    def signature(self) -> tuple:
        """What the chart is cast from, without its id: (relation, arguments after the chart id) of
        each input fact. Two inputs with the same signature are one chart (an audit casts it once)."""
        return tuple((pred, args[1:]) for pred, args, _ in self.facts())


@dataclass(frozen=True)
class DatedInput:
    """A chart cast from a moment: the calendar's facts, each with the reason it holds."""

    moment: object  # liuren_logic.domain.calendar.Moment
    extra: tuple = ()  # (relation, arguments, origin): what the readings ask for, the querent
    tag: str = ""      # names the querent's facts in the id

    @cached
    def id(self) -> str:
        local = self.moment.local
        return f"{local:%Y-%m-%d %H:%M:%S}{local:%z}" + (f" {self.tag}" if self.tag else "")

    @property
    def stem(self) -> str:
        return self.moment.day_pillar[0]

    @property
    def branch(self) -> str:
        return self.moment.day_pillar[1]

    @property
    def hour(self) -> str:
        return self.moment.hour_branch

    def facts(self) -> list[tuple[str, tuple, str]]:
        """As :meth:`ChartInput.facts`: the calendar's facts, then the querent's."""
        why = self.moment.reasons()
        return [*((pred, (self.id, *args), why[reason]) for pred, args, reason in self._calendar()),
                *((pred, (self.id, *args), origin) for pred, args, origin in self.extra)]

    def signature(self) -> tuple:
        """As :meth:`ChartInput.signature`, without writing the calendar's reasons."""
        return (*((pred, args) for pred, args, _ in self._calendar()),
                *((pred, tuple(args)) for pred, args, _ in self.extra))

    def _calendar(self) -> list[tuple[str, tuple, str]]:
        """(relation, arguments after the chart id, the name of its reason) of each calendar fact."""
        m = self.moment
        return [("day", tuple(m.day_pillar), "day_pillar"), ("hour", (m.hour_branch,), "hour_branch"),
                ("year", tuple(m.year_pillar), "year_pillar"), ("month", tuple(m.month_pillar), "month_pillar"),
                ("qi", (m.qi.name,), "qi"), ("chart_year", (m.year,), "year"),
                *((("days_to_li", (m.days_to_li,), "next_li"),) if m.next_li else ()),
                ("lunar_month", (m.lunar_month,), "lunar_month")]


def _own_kind(cls):
    """A NamedTuple equal only to one of its own class (as a dataclass is), not to a plain tuple of
    its values; made in a third of the time a frozen dataclass takes (it sets each field in turn)."""
    cls.__eq__ = lambda self, other: other.__class__ is self.__class__ and tuple.__eq__(self, other)
    cls.__ne__ = lambda self, other: not self == other
    cls.__hash__ = tuple.__hash__
    return cls


@_own_kind
class Transmission(NamedTuple):
    position: int  # 1 initial, 2 middle, 3 final
    branch: str
    general: Optional[str]
    hidden_stem: Optional[str]
    kin: Optional[str]
    void: bool
    strength: Optional[str] = None  # 旺相休囚死 in the month
    stage: Optional[str] = None     # the day stem's 十二長生 stage on it


@_own_kind
class Lesson(NamedTuple):
    number: int
    upper: str
    lower: str
    general: Optional[str]


class Chart:
    """One chart of one session; every property is a query of the KB's rules."""

    def __init__(self, session, inputs):
        self.session = session
        self.inputs = inputs
        self.moment = getattr(inputs, "moment", None)
        self._id = inputs.id
        self._preds = session.program.preds
        self._source = session.source(self._id)  # its batch, kept while the chart is (its groups hold it weakly)
        self._by_chart = session.by_chart(self._id)

    @property
    def id(self) -> str:
        return self.inputs.id

    def rows(self, pred: str) -> list[tuple]:
        """The KB's tuples of ``pred`` for this chart, sorted, without the chart id."""
        return list(self._rows(pred))

    def _rows(self, pred: str) -> "Sequence[tuple]":
        """As :meth:`rows`, as the session holds them (not a copy; the charts share the tuples)."""
        return self._by_chart(pred).get(self._id, ())

    def _one(self, pred: str):
        rows = self._rows(pred)
        return rows[0][0] if rows else None

    def _view(self, name: str, pred: str, order=None, make=None) -> "Sequence":
        """The rows of ``pred`` in the order of ``order(row)`` (stable), each ``make(row)``
        (:meth:`Session.view`, kept under ``name``); none when the school leaves ``pred`` out."""
        return self.session.view(self._id, name, pred, order, make, self._source) if pred in self._preds else ()

    @property
    def day(self) -> str:
        return self.inputs.stem + self.inputs.branch

    @property
    def jiang(self) -> Optional[str]:
        """The 月將: given, or derived from the 中氣 of a dated chart."""
        return self._one("jiang")

    @property
    def hour(self) -> str:
        return self.inputs.hour

    @property
    def offset(self) -> int:
        return self._one("offset")

    @property
    def method(self) -> Optional[str]:
        return self._one("chosen")

    @property
    def subnames(self) -> list[str]:
        return list(map(_FIRST, self._rows("subname")))

    @property
    def daytime(self) -> Optional[bool]:
        value = self._one("time_of_day")
        return None if value is None else value == "晝"

    @property
    def direction(self) -> Optional[str]:
        return self._one("direction")

    @property
    def noble(self) -> Optional[str]:
        return self._one("noble")

    @cached
    def generals(self) -> dict[str, str]:
        return dict(self._rows("general"))

    @cached
    def heaven(self) -> dict[str, str]:
        """地盤 branch → the 天盤 branch over it."""
        return dict(self._rows("tianpan"))

    @cached
    def void(self) -> list[str]:
        """The two void branches (旬空), in branch order."""
        return list(self._by_branch("void", _FIRST))

    @cached
    def hidden_stems(self) -> dict[str, str]:
        return dict(self._rows("hidden_stem"))

    @cached
    def lessons(self) -> list[Lesson]:
        general = self.generals.get
        return [Lesson(n, upper, lower, general(upper)) for n, upper, lower in self._rows("lesson")]

    @cached
    def transmissions(self) -> list[Transmission]:
        """The three transmissions, each with what it carries (KB relations ``transmission_kin`` …)."""
        general, stem = dict(self._rows("transmission_general")), dict(self._rows("transmission_stem"))
        kin, void = dict(self._rows("transmission_kin")), set(map(_FIRST, self._rows("transmission_void")))
        strength, stage = self.strength.get, self.stages.get
        return [Transmission(n, b, general.get(n), stem.get(n), kin.get(n), n in void, strength(b), stage(b))
                for n, b in self._rows("transmission")]

    @cached
    def spirits(self) -> list[tuple[str, str, str]]:
        """(where, branch, spirit) for each spirit that shows in the chart: on 干上, 干陰, 支上, 支陰 or a transmission."""
        return list(self._view("spirits", "spirit_present", _place, _REVERSED))  # held by spirit: so within a place

    @cached
    def patterns(self) -> list[tuple[str, str]]:
        """(group, pattern) for each 課格 the chart shows."""
        if "pattern" not in self._preds:
            return []
        group = self.session.lookup("pattern_group", self._id).get
        return list(self._view("patterns", "pattern", lambda row: group(row[0], "？"),  # held by name: so within a group
                               lambda row: (group(row[0], "？"), row[0])))

    @cached
    def reliefs(self) -> list[tuple[str, str]]:
        """(pattern, relief) for each spoiled combination a good spirit or general relieves."""
        if "pattern_relief" not in self._preds:
            return []
        return self.rows("pattern_relief")

    @cached
    def keti(self) -> list[str]:
        """The chart's 課體: the method's own names first, then the 課經's, then 《指南》's, each by name."""
        if "keti" not in self._preds:
            return []
        groups, method = self.session.lookup("keti_group", self._id), self.method
        names = list(self._view("keti", "keti", lambda row: (KETI_RANK.get(groups.get(row[0]), 3), str(row[0])),
                                _FIRST))
        if method in names:  # once at most: each name is one row
            names.remove(method)
            names.insert(0, method)
        return names

    @cached
    def bifa(self) -> list[tuple[int, str]]:
        """(number, line) for each rule of the 畢法賦 the chart meets, in the 賦's order."""
        if "bifa" not in self._preds:
            return []
        numbers = self.session.lookup("bifa_line", self._id)

        def line(row: tuple) -> tuple[int, str]:
            return numbers[row[0]], row[0]
        return list(self._view("bifa", "bifa", line, line))

    # the practitioner's core (kb/chart/life.dl, strength.dl, stages.dl, nature.dl; kb/patterns/marks.dl)
    def _known(self, pred: str) -> "Sequence[tuple]":
        """Rows of ``pred`` (as held), or none when the school leaves the relation out."""
        return self._rows(pred) if pred in self._preds else ()

    @cached
    def life(self) -> dict:
        """The querent: born, 虛歲, 行年, and over 本命 and 行年 the branch and its general ({} if none given;
        a 本命 or 行年 given alone, ``life_given``, has no birth year, age or 行年 pillar: None)."""
        born, points = self._known("born"), sorted(self._known("life_point"), key=lambda r: r[0] != "本命")
        if not born and not points:
            return {}
        uppers, generals = dict(self._known("life_upper")), dict(self._known("life_general"))
        xingnian, age, sex = self._known("xingnian"), self._known("age"), self._known("sex")
        return {"born": "".join(born[0]) if born else None, "sex": sex[0][0] if sex else None,
                "age": age[0][0] if age else None,
                "xingnian": "".join(xingnian[0]) if xingnian else None,
                "points": {r: {"branch": b, "upper": uppers.get(r), "general": generals.get(r)} for r, b in points}}

    @cached
    def element_strength(self) -> dict[str, str]:
        """旺相休囚死 of the five elements in the month, 旺 first ({} when the month is unknown)."""
        order = self.session.lookup("strength_order", self._id)
        return dict(self._view("element_strength", "element_strength", lambda r: order.get(r[1], 9)))

    @cached
    def strength(self) -> dict[str, str]:
        """旺相休囚死 of every stem and branch."""
        return dict(self._known("strength"))  # sorted as held

    @cached
    def stages(self) -> dict[str, str]:
        """The day stem's 十二長生 stage on each branch, in branch order."""
        return dict(self._by_branch("stage"))

    def _by_branch(self, pred: str, make=None) -> "Sequence":
        """The rows of ``pred`` in the order of the branch each begins with (each ``make(row)``)."""
        order = self.session.lookup("branch_index", self._id)
        return self._view(f"{pred} by branch", pred, lambda r: order.get(r[0]), make)

    @cached
    def marks(self) -> list[dict]:
        """日祿 日馬 旬丁 日德: the branch, the palace it stands over, and where it shows in the chart
        (``mark_present``: 干上, 干陰, 支上, 支陰 or a transmission)."""
        under = dict(zip(self.heaven.values(), self.heaven))
        shows = defaultdict(list)
        for m, _, where in self._view("marks shown", "mark_present", _place):
            shows[m].append(where)
        return [{"mark": m, "branch": b, "over": under.get(b), "shows": list(shows.get(m, ()))}
                for m, b in self._view("marks", "day_mark", _mark_rank)]

    @cached
    def generals_nature(self) -> dict[str, dict]:
        """Each branch of heaven: the general it carries, the general's element and 吉/凶, and how they stand."""
        element = self.session.lookup("general_element", self._id).get
        omen = self.session.lookup("general_omen", self._id).get
        return {b: {"general": g, "element": e, "omen": o, "ride": r}
                for b, g, r, e, o in self._by_branch("general_ride", lambda row: (*row, element(row[1]), omen(row[1])))}

    @property
    def sanchuan(self) -> str:
        return "".join(map(_BRANCH, self.transmissions))

    def __repr__(self) -> str:
        names = "·".join(self.subnames)
        return f"<Chart {self.id} 三傳 {self.sanchuan or '—'} {self.method or '—'} {names}>"
