"""The invariant of every shipped reading and school: each of the 720 charts, by day and by night,
has exactly one method and three transmissions (and the noble and direction its lesson names),
and its lesson runs to the end.

A reading that leaves a chart without three transmissions is a bug, never an audit result. By
default the bulk check covers a sample of the 1440 charts (:func:`sample`: one of each method, name
and day/night of the default school, and every day pillar at one offset, by day and by night);
``-m complete`` covers all 1440 of each reading (an opt-in run). The lesson (tens of
milliseconds a chart) runs on one chart of each method, name and day/night the reading gives,
taken among the checked charts whose method, names or 三傳 it changes (all of them for the default
school), and on a day and a night chart.
"""
from __future__ import annotations

import gc
import weakref
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import pytest

from scopes import SCOPES
from liuren_logic import Session
from liuren_logic.domain.audit import table_inputs
from liuren_logic.domain.chart import ChartInput
from liuren_logic.explain.lesson import lesson_steps
from liuren_logic.domain.school import kb_root, read_school

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


def _inputs(session: Session, complete: bool) -> list:
    """The charts checked: all 1440, or the sample (with the sun given to a school that asks it: such a
    school casts no chart from pillars alone, so the pillars are the default school's)."""
    sun = session.kb.school.readings.get("daynight") == "sun"
    inputs = table_inputs(_default_session() if sun else session)
    if not complete:
        inputs = [i for i in inputs if i.id in sample()]
    if not sun:
        return inputs
    return [SunInput(stem=i.stem, branch=i.branch, jiang=i.jiang, hour=i.hour, sun_up=i.hour == "午") for i in inputs]


def _cast(school: str, readings: tuple, complete: bool) -> tuple[Session, list]:
    """A fresh session with the checked charts (all 1440 take some 140 MB: not cached, so that it
    goes once checked)."""
    if (school, readings) == ("default", ()):
        return _default(complete)
    session = Session(school, dict(readings), engine="materialise")
    return session, session.cast_many(_inputs(session, complete))


@lru_cache(maxsize=2)
def _default(complete: bool) -> tuple[Session, list]:
    """The default school's session and charts, kept: every other reading is compared with them."""
    session = _default_session()
    return session, session.cast_many(_inputs(session, complete))


@lru_cache(maxsize=1)
def _default_session() -> Session:
    return Session("default", {}, engine="materialise")


@lru_cache(maxsize=1)
def sample() -> frozenset[str]:
    """The ids of the sampled charts (164 of the 1440): one of each (method, names, day/night) the
    default school gives, and each day pillar at the offset of its index mod 12, by day and by night."""
    session = _default_session()
    inputs = table_inputs(session)
    shapes = {}
    for chart in session.cast_many(inputs):
        shapes.setdefault((chart.method, tuple(chart.subnames), chart.daytime), chart.id)
    stride = {i.id for n, i in enumerate(inputs) if n % 12 == n // 12 % 12}
    return frozenset(shapes.values()) | stride


def _rows(session: Session, charts, pred: str, arity: int, key=lambda row: row[0]) -> Counter:
    """How many rows of ``pred`` each chart (or each key of a row) has, one query per batch of charts."""
    ids = {chart.id for chart in charts}
    sources = {id(session.source(c.id)): session.source(c.id) for c in charts}
    return Counter(key(row) for source in sources.values() for row in source.query(pred, [None] * arity) if row[0] in ids)


@lru_cache(maxsize=None)
def _verified(school: str, readings: tuple, complete: bool = False) -> str:
    """Check one school with these readings (once, however many parameters load the same files)."""
    session, charts = _cast(school, readings, complete)
    default = None if (school, readings) == ("default", ()) else _default(complete)[1]
    _assert_invariant(session, charts, default, 1440 if complete else len(sample()))
    _checked.append(weakref.ref(session))
    return session.name


def _assert_invariant(session: Session, charts: list, compared_with: list | None, count: int) -> None:
    assert len(charts) == count
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


@pytest.mark.parametrize("complete", SCOPES)
@pytest.mark.parametrize("topic, reading", READINGS, ids=[f"{t}={r}" for t, r in READINGS])
def test_every_reading_gives_each_chart_one_method_three_transmissions_and_a_whole_lesson(topic, reading, complete):
    default = read_school("default").readings[topic] == reading
    assert _verified("default", () if default else ((topic, reading),), complete)


@pytest.mark.parametrize("complete", SCOPES)
@pytest.mark.parametrize("school", SCHOOLS)
def test_every_school_gives_each_chart_one_method_three_transmissions_and_a_whole_lesson(school, complete):
    assert _verified(school, (), complete)


def test_the_sample_holds_every_day_pillar_by_day_and_by_night():
    chosen = [i for i in table_inputs(_default_session()) if i.id in sample()]
    assert len(chosen) == len(sample()) < 1440 // 6
    assert {i.hour for i in chosen} == {"午", "子"} and len({i.jiang for i in chosen}) == 12
    assert len({(i.stem, i.branch, i.hour) for i in chosen}) == 120


def test_a_checked_reading_leaves_no_session_behind():
    """A reading's 1440 charts (some 140 MB) go once it is checked: only the default school's stay."""
    topic, reading = next((t, r) for t, r in READINGS if read_school("default").readings[t] != r)
    assert _verified("default", ((topic, reading),))
    gc.collect()
    default = _default_session()
    alive = [ref() for ref in _checked if ref() is not None and ref() is not default]
    assert _checked and not alive, [session.name for session in alive]
