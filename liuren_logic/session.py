"""The Python interface: load a school, cast charts, ask why and why not.

    >>> from liuren_logic import Session
    >>> s = Session()
    >>> chart = s.cast("辛巳", jiang="寅", hour="午")
    >>> chart.sanchuan, chart.method, chart.subnames
    ('午寅戌', '賊剋', ['元首'])
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

import networkx as nx

from .calendar import moment
from .chart import POSITIONS, Chart, ChartInput, DatedInput
from .errors import InputError
from .inputs import parse_atom, parse_pillar, parse_symbol
from .provenance import Explainer
from .school import load_school

# Questions about a chart, by name: the predicate and where the answer goes.
QUESTIONS = {
    "initial": ("initial", 1), "middle": ("middle", 1), "final": ("final", 1),
    "method": ("chosen", 1), "name": ("subname", 1), "noble": ("noble", 1),
    "offset": ("offset", 1), "direction": ("direction", 1),
}


class Session:
    """One loaded knowledge base (a school) and the charts cast with it."""

    def __init__(self, school: str = "default", readings: Optional[Mapping[str, str]] = None,
                 extra: Iterable[Path] = (), kb=None):
        self.kb = kb if kb is not None else load_school(school, readings, extra)
        self.explainer = Explainer(self.kb)
        self._charts: dict[str, Chart] = {}
        self._cache: dict[str, tuple[set, dict]] = {}  # pred → (charts covered, chart id → rows)

    @property
    def name(self) -> str:
        return self.kb.name

    # casting -----------------------------------------------------------------
    def cast(self, day: str, jiang: str, hour: str) -> Chart:
        """Cast from a day pillar (辛巳), the 月將 branch and the hour branch."""
        stem, branch = parse_pillar(self.kb, day)
        inputs = ChartInput(stem, branch, parse_symbol(self.kb, jiang, "branch", "the 月將"),
                            parse_symbol(self.kb, hour, "branch", "the hour"))
        return self._add(inputs)

    def cast_offset(self, day: str, offset: int, daytime: bool = True) -> Chart:
        """Cast one of the 720 charts: the hour is 午 by day and 子 by night."""
        if not isinstance(offset, int) or not 0 <= offset < 12:
            raise InputError(f"offset {offset!r} is not a whole number from 0 to 11")
        hour = "午" if daytime else "子"
        branches = [row[0] for row in sorted(self.kb.query("branch_index", [None, None]), key=lambda r: r[1])]
        return self.cast(day, branches[(branches.index(hour) + offset) % 12], hour)

    def cast_at(self, at, tz: str = "Asia/Shanghai", longitude: Optional[float] = None,
                latitude: Optional[float] = None) -> Chart:
        """Cast from a civil moment (``'1998-11-30 12:00'``) in a zone, by the school's calendar readings."""
        readings = self.kb.school.readings if self.kb.school else {}
        day_night = "sun" if readings.get("daynight") == "sun" else "fixed"
        if day_night == "sun" and (latitude is None or longitude is None):
            raise InputError("this school judges day and night by the sun: give --latitude and --longitude")
        m = moment(at, tz, longitude=longitude, latitude=latitude,
                   day_boundary=readings.get("day_boundary", "23:00"), hours=readings.get("hours", "civil"),
                   day_night=day_night)
        extra = ()
        if day_night == "sun":
            extra = (("sun_up" if m.daytime else "sun_down", [], m.reasons()["daytime"]),)
        return self._add(DatedInput(m, extra))

    def _add(self, inputs) -> Chart:
        if inputs.id not in self._charts:
            for pred, args, origin in inputs.facts():
                self.kb.add_fact(pred, args, origin)
            self._charts[inputs.id] = Chart(self, inputs)
        return self._charts[inputs.id]

    def table(self, daytime: bool = True) -> list[Chart]:
        """All 720 charts (60 days × 12 offsets), read in one evaluation per conclusion."""
        pillars = sorted(self.kb.query("pillar_index", [None, None, None]), key=lambda r: r[2])
        charts = [self.cast_offset(s + b, o, daytime) for s, b, _ in pillars for o in range(12)]
        for pred in ("offset", "chosen", "subname", "transmission", "lesson", "general", "hidden_stem", "void"):
            self.prefetch(pred)
        return charts

    def prefetch(self, pred: str) -> None:
        """Read a conclusion for every chart at once; later reads come from this table."""
        by_chart = defaultdict(list)
        for row in self.kb.query(pred, [None] * self.kb.program.preds[pred].arity):
            by_chart[row[0]].append(row)
        self._cache[pred] = (set(self._charts), by_chart)

    def rows(self, pred: str, chart_id: str) -> list[tuple]:
        covered, by_chart = self._cache.get(pred, ((), None))
        if chart_id in covered:
            return by_chart.get(chart_id, [])
        return self.kb.query(pred, [chart_id] + [None] * (self.kb.program.preds[pred].arity - 1))

    # explanations ------------------------------------------------------------
    def atom(self, chart: Chart, question: str, value: Optional[str] = None) -> tuple[str, tuple]:
        """The atom a question names: ``initial`` → initial(C, 午); ``lesson1`` → lesson(C, 1, …)."""
        if question in QUESTIONS:
            pred, _ = QUESTIONS[question]
            if value is None:
                rows = chart.rows(pred)
                if not rows:
                    raise InputError(f"chart {chart.id} has no {question}; ask why-not")
                value = rows[0][0]
            return pred, (chart.id, value)
        if question.startswith("lesson") and question[6:] in ("1", "2", "3", "4"):
            number = int(question[6:])
            rows = [r for r in chart.rows("lesson") if r[0] == number]
            if value is not None:
                return "lesson", (chart.id, number, value, None)
            return "lesson", (chart.id, *rows[0])
        if question in ("general",) and value is not None:
            return "general", (chart.id, value, None)
        raise InputError(f"unknown question {question!r}; ask one of: {', '.join(self.questions())}")

    @staticmethod
    def questions() -> list[str]:
        return list(QUESTIONS) + ["lesson1", "lesson2", "lesson3", "lesson4", "general BRANCH", "an atom such as clashes(子, 午)"]

    def why(self, chart: Optional[Chart], question: str, value: Optional[str] = None) -> nx.DiGraph:
        """The derivation of a chart's conclusion (``initial``, ``method`` …) or of any atom."""
        pred, args = self._resolve(chart, question, value)
        if None in args:
            matches = self.kb.query(pred, args)
            if not matches:
                return self.explainer.why(pred, args)  # raises NotDerivable with the atom
            args = matches[0]
        return self.explainer.why(pred, args)

    def why_not(self, chart: Optional[Chart], question: str, value: Optional[str] = None, depth: int = 3) -> nx.DiGraph:
        """Why a chart's conclusion is not ``value`` (``why_not(c, 'initial', '丑')``), or why an atom fails."""
        pred, args = self._resolve(chart, question, value)
        return self.explainer.why_not(pred, args, depth)

    def _resolve(self, chart, question, value):
        if chart is None or "(" in question:
            return parse_atom(self.kb, question)
        if value is not None and question in QUESTIONS:
            kind = {"method": "method", "name": "subname"}.get(question, "branch")
            value = parse_symbol(self.kb, value, kind, question)
        return self.atom(chart, question, value)


__all__ = ["Session", "Chart", "POSITIONS"]
