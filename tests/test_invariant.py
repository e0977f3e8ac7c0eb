"""The invariant of every shipped reading and school: each of the 720 charts, by day and by night,
has exactly one method and three transmissions (and the noble and direction its lesson names),
and its lesson runs to the end.

A reading that leaves a chart without three transmissions is a bug, never an audit result. The
bulk check covers all 1440 charts of each reading; the lesson (tens of milliseconds a chart) runs
on one chart of each method, name and day/night the reading gives, taken among the charts whose
method, names or 三傳 it changes (all charts for the default school), and on a day and a night chart.
"""
from __future__ import annotations

import gc
import weakref
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import pytest

from liuren_logic import Session
from liuren_logic.audit import table_inputs
from liuren_logic.chart import ChartInput
from liuren_logic.explain.lesson import lesson_steps
from liuren_logic.school import kb_root, read_school

READINGS = sorted((path.parent.name, path.stem) for path in kb_root().glob("variants/*/*.dl"))
SCHOOLS = sorted(path.stem for path in kb_root().glob("schools/*.toml"))
_checked: list[weakref.ref] = []  # every session _verified made, weakly: only the default's stays


@dataclass(frozen=True)
class SunInput(ChartInput):
    """One of the 720 charts for a school that judges day and night by the sun: the sun is given."""

    sun_up: bool = True

    def facts(self) -> list[tuple[str, list, str]]:
        fact = ("sun_up" if self.sun_up else "sun_down", [self.id], "given: the sun is " + ("up" if self.sun_up else "down"))
        return super().facts() + [fact]


def _inputs(session: Session) -> list:
    inputs = table_inputs(session)
    if session.kb.school.readings.get("daynight") != "sun":
        return inputs
    return [SunInput(stem=i.stem, branch=i.branch, jiang=i.jiang, hour=i.hour, sun_up=i.hour == "午") for i in inputs]


def _cast(school: str, readings: tuple) -> tuple[Session, list]:
    """A fresh session with its 1440 charts (some 140 MB: not cached, so that it goes once checked)."""
    if (school, readings) == ("default", ()):
        return _default()
    session = Session(school, dict(readings), engine="materialise")
    return session, session.cast_many(_inputs(session))


@lru_cache(maxsize=1)
def _default() -> tuple[Session, list]:
    """The default school's session and charts, kept: every other reading is compared with them."""
    session = Session("default", {}, engine="materialise")
    return session, session.cast_many(_inputs(session))


def _rows(session: Session, charts, pred: str, arity: int, key=lambda row: row[0]) -> Counter:
    """How many rows of ``pred`` each chart (or each key of a row) has, one query per batch of charts."""
    ids = {chart.id for chart in charts}
    sources = {id(session.source(c.id)): session.source(c.id) for c in charts}
    return Counter(key(row) for source in sources.values() for row in source.query(pred, [None] * arity) if row[0] in ids)


@lru_cache(maxsize=None)
def _verified(school: str, readings: tuple) -> str:
    """Check one school with these readings (once, however many parameters load the same files)."""
    session, charts = _cast(school, readings)
    default = None if (school, readings) == ("default", ()) else _default()[1]
    _assert_invariant(session, charts, default)
    _checked.append(weakref.ref(session))
    return session.name


def _assert_invariant(session: Session, charts: list, compared_with: list | None) -> None:
    assert len(charts) == 1440
    for pred, arity in (("chosen", 2), ("noble", 2), ("direction", 2), ("time_of_day", 2)):
        counts = _rows(session, charts, pred, arity)
        wrong = [c.id for c in charts if counts[c.id] != 1]
        assert not wrong, f"{session.name}: {len(wrong)} charts without exactly one {pred}, e.g. {wrong[:3]}"
    counts = _rows(session, charts, "transmission", 3, key=lambda row: row[:2])
    wrong = [c.id for c in charts if [counts[(c.id, n)] for n in (1, 2, 3)] != [1, 1, 1]]
    assert not wrong, f"{session.name}: {len(wrong)} charts without three transmissions, e.g. {wrong[:3]}"
    def decided(chart):
        return chart.method, tuple(chart.subnames), chart.daytime, chart.sanchuan

    changed = charts if compared_with is None else [
        c for c, d in zip(charts, compared_with) if decided(c) != decided(d)] + [charts[0], charts[-1]]
    shapes = {}
    for chart in changed:  # the generals step too: charts[0] is a day chart, charts[-1] a night one
        shapes.setdefault(decided(chart)[:3], chart)
    for chart in shapes.values():
        steps = {s.key: s for s in lesson_steps(chart)}
        keys = list(steps)
        assert keys.index("initial") < keys.index("sequence") < keys.index("carry") < keys.index("generals"), \
            (session.name, chart.id)
        assert chart.sanchuan in steps["sequence"].text, (session.name, chart.id)


@pytest.mark.parametrize("topic, reading", READINGS, ids=[f"{t}={r}" for t, r in READINGS])
def test_every_reading_gives_each_chart_one_method_three_transmissions_and_a_whole_lesson(topic, reading):
    default = read_school("default").readings[topic] == reading
    assert _verified("default", () if default else ((topic, reading),))


@pytest.mark.parametrize("school", SCHOOLS)
def test_every_school_gives_each_chart_one_method_three_transmissions_and_a_whole_lesson(school):
    assert _verified(school, ())


def test_a_checked_reading_leaves_no_session_behind():
    """A reading's 1440 charts (some 140 MB) go once it is checked: only the default school's stay."""
    topic, reading = next((t, r) for t, r in READINGS if read_school("default").readings[t] != r)
    assert _verified("default", ((topic, reading),))
    gc.collect()
    default = _default()[0]
    alive = [ref() for ref in _checked if ref() is not None and ref() is not default]
    assert _checked and not alive, [session.name for session in alive]
