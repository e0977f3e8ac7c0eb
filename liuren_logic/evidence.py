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
from typing import Sequence

from .disputes import names, reading_name, session_under
from .errors import InputError
from .inputs import parse_symbol
from .jsondata import document
from .school import CALENDAR_READINGS, kb_root


def readings(session) -> list[tuple[str, str]]:
    """(topic, reading) of every shipped reading of the session's school, the school's own first in each topic."""
    school = session.kb.school
    found = []
    for topic in sorted(t for t in school.readings if t not in CALENDAR_READINGS):
        others = sorted(p.stem for p in (kb_root() / "variants" / topic).glob("*.dl") if p.stem != school.readings[topic])
        found += [(topic, school.readings[topic])] + [(topic, r) for r in others]
    return found


def _session(session, topic: str, reading: str):
    school = session.kb.school
    return session if school.readings[topic] == reading else session_under(session, school.with_readings({topic: reading}))


# the books' cases --------------------------------------------------------------------------
@dataclass
class TopicVerdict:
    """One topic over the cases: how many each reading agrees with, and the cases that decide."""

    topic: str
    agree: dict                                   # reading → cases whose 三傳 it gives
    deciding: list = field(default_factory=list)  # (case label, book, {reading: its 三傳})


def _case_input(session, number: int, case) -> tuple[str, object]:
    if not isinstance(case, dict) or not all(isinstance(case.get(k), str) for k in ("day", "yuejiang", "hour")) \
            or not isinstance(case.get("sanchuan"), (str, list)):
        raise InputError(f"case {number}: expected an object with day, yuejiang, hour and sanchuan")
    label = f"{case.get('seq', number)} {case['day']} {case['yuejiang']}將{case['hour']}時"
    try:
        return label, session.chart_input(case["day"], case["yuejiang"], case["hour"])
    except InputError as error:
        raise InputError(f"case {case.get('seq', number)!s:.40}: {error}") from None


def by_topic(session, cases: Sequence[dict]) -> list[TopicVerdict]:
    """For every disputed topic, each shipped reading's agreement with the cases' 三傳; topics in order."""
    inputs = [_case_input(session, n, c) for n, c in enumerate(cases, 1)]
    books = ["".join(c["sanchuan"]) for c in cases]
    answers: dict[tuple, list[str]] = {}
    for topic, reading in readings(session):
        under = _session(session, topic, reading)
        answers[topic, reading] = [c.sanchuan for c in under.cast_many([i for _, i in inputs])]
    verdicts = {}
    for (topic, reading), given in answers.items():
        verdict = verdicts.setdefault(topic, TopicVerdict(topic, {}))
        verdict.agree[reading] = sum(a == b for a, b in zip(given, books))
    for verdict in verdicts.values():
        mine = [r for t, r in answers if t == verdict.topic]
        for k, ((label, _), book) in enumerate(zip(inputs, books)):
            shown = {r: answers[verdict.topic, r][k] for r in mine}
            if len(set(shown.values())) > 1 and book in shown.values():
                verdict.deciding.append((label, book, shown))
    return list(verdicts.values())


def render_topics(verdicts: Sequence[TopicVerdict], cases: int, lang: str = "zh") -> str:
    """The per-topic table, then each topic's deciding cases with every reading's 三傳."""
    lines = [f"{cases} cases; per topic, the cases whose 三傳 each reading gives (the school's reading first)"]
    for v in verdicts:
        counts = "  ".join(f"{r} {n}" for r, n in v.agree.items())
        lines.append(f"  {v.topic:<14} {counts}" + ("" if v.deciding else "  (no case decides)"))
    for v in (v for v in verdicts if v.deciding):
        lines += ["", f"{v.topic} ({names()[v.topic][lang]}): the cases that decide"]
        for label, book, shown in v.deciding:
            told = "  ".join(f"{r} {a}{'✓' if a == book else ''}" for r, a in shown.items())
            lines.append(f"  {label:<18} book {book}  {told}")
    return "\n".join(lines)


def topics_html(verdicts: Sequence[TopicVerdict], cases: int, lang: str = "zh") -> str:
    """``audit --cases … --html``: the same report as one self-contained page."""
    from .explain.audit_page import CSS
    from .explain.page import esc

    rows = "".join(f"<tr><td>{esc(v.topic)}</td><td>{esc(names()[v.topic][lang])}</td><td>"
                   + esc("  ".join(f"{r} {n}" for r, n in v.agree.items())) + "</td></tr>" for v in verdicts)
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>cases by topic</title><style>{CSS}</style>"
             f"</head><body><h1>{cases} cases, by disputed topic</h1>"
             f"<table><tr><th>topic</th><th>name</th><th>cases each reading gives</th></tr>{rows}</table>"]
    for v in (v for v in verdicts if v.deciding):
        readings_here = list(v.agree)
        head = "".join(f"<th>{esc(r)}</th>" for r in readings_here)
        body = "".join(f"<tr><td>{esc(label)}</td><td>{esc(book)}</td>"
                       + "".join(f"<td>{esc(shown[r])}{' ✓' if shown[r] == book else ''}</td>" for r in readings_here)
                       + "</tr>" for label, book, shown in v.deciding)
        parts.append(f"<h2>{esc(v.topic)}</h2><table><tr><th>case</th><th>book</th>{head}</tr>{body}</table>")
    return "".join(parts) + "</body></html>"


def topics_document(school: str, verdicts: Sequence[TopicVerdict], cases: int, lang: str = "zh") -> dict:
    """``audit --cases … --json`` (without --vs): per topic, each reading's agreement and the deciding cases."""
    return document("topics", {"school": school, "cases": cases, "topics": [
        {"topic": v.topic, "name": names()[v.topic][lang],
         "readings": [{"reading": r, "name": reading_name(v.topic, r, lang, bare=True), "agree": n}
                      for r, n in v.agree.items()],
         "deciding": [{"case": label, "book": book, "answers": shown} for label, book, shown in v.deciding]}
        for v in verdicts]})


def cases_html(verdicts) -> str:
    """``audit --vs … --cases … --html``: which of the two readings each case follows, as one page."""
    from .explain.audit_page import CSS
    from .explain.page import esc

    schools = list(verdicts[0].answers) if verdicts else []
    head = "".join(f"<th>{esc(s)}</th>" for s in schools)
    body = "".join(f"<tr><td>{esc(v.case)}</td><td>{esc(v.book)}</td>"
                   + "".join(f"<td>{esc(v.answers[s])}</td>" for s in schools)
                   + f"<td>{esc(', '.join(v.follows) or 'neither')}</td></tr>" for v in verdicts)
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>cases</title><style>{CSS}</style></head>"
            f"<body><h1>{len(verdicts)} cases</h1><table><tr><th>case</th><th>book</th>{head}<th>follows</th></tr>"
            f"{body}</table></body></html>")


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
        raise InputError(f"answer {number}: expected an object with day, and jiang and hour or offset")
    if not isinstance(entry.get("day"), str):
        raise InputError(f"answer {number}: day is missing or not text")
    where = f"answer {number} ({entry['day']:.40})"
    stated = {k: _answer_field(session, where, k, entry[k]) for k in ANSWER_FIELDS if entry.get(k) is not None}
    if not stated:
        raise InputError(f"answer {number}: give the caster's sanchuan, method or noble (as text)")
    night = entry.get("night", False)
    if not isinstance(night, bool):
        raise InputError(f"{where}: night {_shown(night)} is not true or false")
    try:
        if "offset" in entry:
            if isinstance(entry["offset"], bool):
                raise InputError(f"offset {entry['offset']!r} is not a whole number from 0 to 11")
            chart = session.offset_input(entry["day"], entry["offset"], daytime=not night)
        elif isinstance(entry.get("jiang"), str) and isinstance(entry.get("hour"), str):
            chart = session.chart_input(entry["day"], entry["jiang"], entry["hour"])
        else:
            raise InputError("give jiang and hour, or offset")
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
    return chart, stated


def _answer_field(session, where: str, key: str, value) -> str:
    """One stated field as the KB writes it: sanchuan three branches (as text or a list), method one of
    the nine, noble a branch; each branch or method as the CLI reads it (simplified, a branch's name)."""
    if key == "sanchuan":
        parts = list(value) if isinstance(value, (str, list)) else [value]
        count, wanted = 3, "three branches, as text or a list"
    else:
        parts, count, wanted = [value], 1, "text"
    if len(parts) != count or not all(isinstance(v, str) for v in parts):
        raise InputError(f"{where}: {key} {_shown(value)} is not {wanted}")
    try:
        return "".join(parse_symbol(session.base, v, "method" if key == "method" else "branch", key) for v in parts)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None


def _shown(value) -> str:
    return json.dumps(value, ensure_ascii=False)[:40]


def _conclusions(chart, fields) -> dict:
    shown = {"sanchuan": chart.sanchuan, "method": chart.method, "noble": chart.noble}
    return {k: shown[k] for k in fields}


def against(session, entries: Sequence[dict]) -> tuple[int, list[Difference]]:
    """How many answers agree with the school, and each that does not, with the readings that give it."""
    asked = [_answer_input(session, n, e) for n, e in enumerate(entries, 1)]
    mine = session.cast_many([i for i, _ in asked])
    differ = [k for k, (chart, (_, stated)) in enumerate(zip(mine, asked)) if _conclusions(chart, stated) != stated]
    found = defaultdict(list)
    for topic, reading in readings(session):
        if session.kb.school.readings[topic] == reading or not differ:
            continue
        under = _session(session, topic, reading)
        for k, chart in zip(differ, under.cast_many([asked[k][0] for k in differ])):
            if _conclusions(chart, asked[k][1]) == asked[k][1]:
                found[k].append((topic, reading))
    differences = [Difference(k + 1, mine[k].id, mine[k].day, mine[k].jiang, mine[k].hour, mine[k].offset,
                              mine[k].method or "—", _conclusions(mine[k], asked[k][1]), asked[k][1], found[k])
                   for k in differ]
    return len(entries) - len(differ), differences


def _by_method(differences: Sequence[Difference]) -> dict[str, list]:
    """The differences grouped by the school's method, the methods in the order they first come."""
    groups: dict[str, list] = defaultdict(list)
    for d in differences:
        groups[d.method].append(d)
    return groups


def _summary(agreed: int, differences: Sequence[Difference]) -> str:
    explained = sum(1 for d in differences if d.explained_by)
    return (f"{agreed + len(differences)} answers: {agreed} agree; {len(differences)} differ, "
            f"{explained} explained by a shipped reading, {len(differences) - explained} by none")


def _change(d: Difference) -> str:
    return "  ".join(f"{k} {d.ours[k]} → {d.theirs[k]}" for k in d.theirs if d.ours[k] != d.theirs[k])


def _why(d: Difference, lang: str) -> str:
    return "; ".join(f"{t}={r} {reading_name(t, r, lang)}" for t, r in d.explained_by) or "no shipped reading"


def render_against(agreed: int, differences: Sequence[Difference], lang: str = "zh") -> str:
    """The differences by the school's method: each with the readings that explain it, or none."""
    lines = [_summary(agreed, differences)]
    for method, group in _by_method(differences).items():
        lines += ["", f"{method} ({len(group)}):"]
        lines += [f"  {d.label}: {_change(d)}  — {_why(d, lang)}" for d in group]
    return "\n".join(lines)


def against_html(agreed: int, differences: Sequence[Difference], lang: str = "zh") -> str:
    """``audit --against … --html``: the same report as one self-contained page, a table per method."""
    from .explain.audit_page import CSS
    from .explain.page import esc

    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>against another caster</title>"
             f"<style>{CSS}</style></head><body><h1>{esc(_summary(agreed, differences))}</h1>"]
    for method, group in _by_method(differences).items():
        rows = "".join(f"<tr><td>{d.entry}</td><td>{esc(d.label)}</td><td>{esc(_change(d))}</td>"
                       f"<td>{esc(_why(d, lang))}</td></tr>" for d in group)
        parts.append(f"<h2>{esc(method)} ({len(group)})</h2><table><tr><th>answer</th><th>chart</th>"
                     f"<th>ours → theirs</th><th>explained by</th></tr>{rows}</table>")
    return "".join(parts) + "</body></html>"


def against_document(school: str, agreed: int, differences: Sequence[Difference], lang: str = "zh") -> dict:
    """``audit --against … --json``: the counts, then every difference by the school's method."""
    explained = sum(1 for d in differences if d.explained_by)
    return document("against", {
        "school": school, "answers": agreed + len(differences), "agree": agreed, "differ": len(differences),
        "explained": explained, "unexplained": len(differences) - explained,
        "by_method": [{"method": method, "differ": len(group),
                       "unexplained": sum(1 for d in group if not d.explained_by),
                       "differences": [d.to_dict(lang) for d in group]}
                      for method, group in _by_method(differences).items()]})
