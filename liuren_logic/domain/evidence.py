"""Audits against a body of evidence: which shipped reading of each disputed topic the books'
worked cases follow (``audit --cases``), and which of another caster's answers a shipped reading
explains (``audit --against``). docs/audit_evidence.md gives the JSON each takes.

Every reading is the school with that one reading swapped (as :mod:`.disputes` casts a chart);
each case or answer is cast once under each, in one batch per reading.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from .disputes import session_under
from .school import reading_name
from .errors import InputError
from .inputs import parse_symbol
from .school import CALENDAR_READINGS, MOMENT_READINGS, kb_root


def readings(session) -> list[tuple[str, str]]:
    """(topic, reading) of every shipped reading of the session's school, the school's own first in each topic
    (but those only a moment decides: the cases are cast from pillars; a topic left with its own
    reading alone is left out)."""
    school = session.kb.school
    found = []
    for topic in sorted(t for t in school.readings if t not in CALENDAR_READINGS):
        others = sorted(p.stem for p in (kb_root() / "variants" / topic).glob("*.dl")
                        if p.stem != school.readings[topic] and (topic, p.stem) not in MOMENT_READINGS)
        if others:  # a topic whose only other readings need a moment has nothing to weigh here
            found += [(topic, school.readings[topic])] + [(topic, r) for r in others]
    return found


def _session(session, topic: str, reading: str):
    school = session.kb.school
    return session if school.readings[topic] == reading else session_under(session, school.with_readings({topic: reading}))


# the books' cases --------------------------------------------------------------------------
@dataclass
class Deciding:
    """A case whose 三傳 the readings of a topic give differently, one of them as the book has it."""

    label: str       # 「37 戊辰 戌將辰時」
    book: str        # the book's 三傳
    answers: dict    # reading → its 三傳
    charts: dict     # reading → the case's chart under it
    told: dict = field(default_factory=dict, repr=False, compare=False)  # lang → what a view made of it, once


@dataclass
class TopicVerdict:
    """One topic over the cases: how many each reading agrees with, and the cases that decide."""

    topic: str
    agree: dict                                   # reading → cases whose 三傳 it gives
    deciding: list = field(default_factory=list)  # Deciding, in the cases' order


def _case_input(session, number: int, case) -> tuple[str, object]:
    book = case.get("sanchuan") if isinstance(case, dict) else None
    if not isinstance(case, dict) or not all(isinstance(case.get(k), str) for k in ("day", "yuejiang", "hour")) \
            or not (isinstance(book, str) or isinstance(book, list) and all(isinstance(b, str) for b in book)):
        raise InputError(f"case {number}: expected an object with day, yuejiang, hour (text) and sanchuan "
                         "(text, or a list of text)",
                         f"第 {number} 例應為一個物件，含 day、yuejiang、hour（文字）與 sanchuan（文字或文字之列表）")
    label = f"{case.get('seq', number)} {case['day']} {case['yuejiang']}將{case['hour']}時"
    try:
        return label, session.chart_input(case["day"], case["yuejiang"], case["hour"])
    except InputError as error:
        raise InputError(f"case {case.get('seq', number)!s:.40}: {error}",
                         f"第 {case.get('seq', number)!s:.40} 例：{error.said('zh')}") from None


BATCH = 240  # cases or answers cast together; each batch's charts are let go before the next is cast


def _batches(items: Sequence) -> Iterator[range]:
    """The positions of ``items``, :data:`BATCH` at a time."""
    return (range(start, min(start + BATCH, len(items))) for start in range(0, len(items), BATCH))


def by_topic(session, cases: Sequence[dict]) -> list[TopicVerdict]:
    """For every disputed topic, each shipped reading's agreement with the cases' 三傳; topics in order.
    The cases are cast a batch at a time and let go, but for those that decide (their charts are shown)."""
    inputs = [_case_input(session, n, c) for n, c in enumerate(cases, 1)]
    books = ["".join(c["sanchuan"]) for c in cases]
    verdicts: dict[str, TopicVerdict] = {}
    for batch in _batches(inputs):
        charts: dict[tuple, list] = {}
        for topic, reading in readings(session):
            charts[topic, reading] = _session(session, topic, reading).cast_many([inputs[k][1] for k in batch])
            verdict = verdicts.setdefault(topic, TopicVerdict(topic, {}))
            agree = sum(c.sanchuan == books[k] for c, k in zip(charts[topic, reading], batch))
            verdict.agree[reading] = verdict.agree.get(reading, 0) + agree
        kept = set()
        for verdict in verdicts.values():
            mine = [r for t, r in charts if t == verdict.topic]
            for i, k in enumerate(batch):
                here = {r: charts[verdict.topic, r][i] for r in mine}
                answers = {r: c.sanchuan for r, c in here.items()}
                if len(set(answers.values())) > 1 and books[k] in answers.values():
                    verdict.deciding.append(Deciding(inputs[k][0], books[k], answers, here))
                    kept |= {id(c) for c in here.values()}
        _let_go(c for cast in charts.values() for c in cast if id(c) not in kept)
    return list(verdicts.values())


def _let_go(charts: Iterable) -> None:
    """Forget these charts in their sessions (an audit's batch, read)."""
    by_session: dict[int, tuple] = {}
    for chart in charts:
        by_session.setdefault(id(chart.session), (chart.session, []))[1].append(chart.id)
    for session, ids in by_session.values():
        session.forget(ids)


# another caster's answers -------------------------------------------------------------------
ANSWER_FIELDS = ("sanchuan", "method", "noble")  # what an answer may state; each compared when given


@dataclass
class Difference:
    """One chart where the other caster's answer is not the school's, and the readings that give it."""

    entry: int             # the answer's place in the file, from 1
    chart: str             # the chart's id
    day: str
    jiang: str
    hour: str
    offset: int
    method: str            # the school's method on the chart
    ours: dict
    theirs: dict
    explained_by: list     # (topic, reading) that give every stated field of the answer

    @property
    def label(self) -> str:
        """``庚午 寅將午時 (offset 8)``"""
        return f"{self.day} {self.jiang}將{self.hour}時 (offset {self.offset})"

    def to_dict(self, lang: str = "zh") -> dict:
        return {"entry": self.entry, "chart": {"id": self.chart, "day": self.day, "jiang": self.jiang,
                                               "hour": self.hour, "offset": self.offset},
                "method": self.method, "theirs": self.theirs, "ours": self.ours,
                "explained_by": [{"topic": t, "reading": r, "name": reading_name(t, r, lang)}
                                 for t, r in self.explained_by]}


def _answer_input(session, number: int, entry):
    """The chart an answer names and the fields it states; a bad answer is one InputError naming it and the field."""
    if not isinstance(entry, dict):
        raise InputError(f"answer {number}: expected an object with day, and jiang and hour or offset",
                         f"第 {number} 答應為一個物件，含 day，及 jiang 與 hour 或 offset")
    if not isinstance(entry.get("day"), str):
        raise InputError(f"answer {number}: day is missing or not text", f"第 {number} 答：day 缺，或不是文字")
    where = f"answer {number} ({entry['day']:.40})", f"第 {number} 答（{entry['day']:.40}）"
    stated = {k: _answer_field(session, where, k, entry[k]) for k in ANSWER_FIELDS if entry.get(k) is not None}
    if not stated:
        raise InputError(f"answer {number}: give the caster's sanchuan, method or noble (as text)",
                         f"第 {number} 答：須給起課者之 sanchuan、method 或 noble（文字）")
    night = entry.get("night", False)
    if not isinstance(night, bool):
        raise InputError(f"{where[0]}: night {_shown(night)} is not true or false",
                         f"{where[1]}：night {_shown(night)} 應為 true 或 false")
    try:
        if "offset" in entry:
            if isinstance(entry["offset"], bool):
                raise InputError(f"offset {entry['offset']!r} is not a whole number from 0 to 11",
                                 f"offset {entry['offset']!r} 應為 0 至 11 之整數")
            chart = session.offset_input(entry["day"], entry["offset"], daytime=not night)
        elif isinstance(entry.get("jiang"), str) and isinstance(entry.get("hour"), str):
            chart = session.chart_input(entry["day"], entry["jiang"], entry["hour"])
        else:
            raise InputError("give jiang and hour, or offset", "須給 jiang 與 hour，或 offset")
    except InputError as error:
        raise InputError(f"{where[0]}: {error}", f"{where[1]}：{error.said('zh')}") from None
    return chart, stated


def _answer_field(session, where: tuple[str, str], key: str, value) -> str:
    """One stated field as the KB writes it: sanchuan three branches (as text or a list), method one of
    the nine, noble a branch; each branch or method as the CLI reads it (simplified, a branch's name)."""
    if key == "sanchuan":
        parts = list(value) if isinstance(value, (str, list)) else [value]
        count, wanted, wanted_zh = 3, "three branches, as text or a list", "三個地支（文字或列表）"
    else:
        parts, count, wanted, wanted_zh = [value], 1, "text", "文字"
    if len(parts) != count or not all(isinstance(v, str) for v in parts):
        raise InputError(f"{where[0]}: {key} {_shown(value)} is not {wanted}",
                         f"{where[1]}：{key} {_shown(value)} 應為{wanted_zh}")
    try:
        return "".join(parse_symbol(session.base, v, "method" if key == "method" else "branch", key) for v in parts)
    except InputError as error:
        raise InputError(f"{where[0]}: {error}", f"{where[1]}：{error.said('zh')}") from None


def _shown(value) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]


def _conclusions(chart, fields) -> dict:
    shown = {"sanchuan": chart.sanchuan, "method": chart.method, "noble": chart.noble}
    return {k: shown[k] for k in fields}


def against(session, entries: Sequence[dict]) -> tuple[int, list[Difference]]:
    """How many answers agree with the school, and each that does not, with the readings that give it.
    The answers are cast a batch at a time and let go: memory does not grow with their number."""
    asked = [_answer_input(session, n, e) for n, e in enumerate(entries, 1)]
    differences = []
    for batch in _batches(asked):
        mine = dict(zip(batch, session.cast_many([asked[k][0] for k in batch])))
        differ = [k for k in batch if _conclusions(mine[k], asked[k][1]) != asked[k][1]]
        found = defaultdict(list)
        for topic, reading in readings(session):
            if session.kb.school.readings[topic] == reading or not differ:
                continue
            under = _session(session, topic, reading).cast_many([asked[k][0] for k in differ])
            for k, chart in zip(differ, under):
                if _conclusions(chart, asked[k][1]) == asked[k][1]:
                    found[k].append((topic, reading))
            _let_go(under)
        differences += [Difference(k + 1, mine[k].id, mine[k].day, mine[k].jiang, mine[k].hour, mine[k].offset,
                                   mine[k].method or "—", _conclusions(mine[k], asked[k][1]), asked[k][1], found[k])
                        for k in differ]
        _let_go(mine.values())
    return len(entries) - len(differences), differences


