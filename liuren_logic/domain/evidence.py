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

from .disputes import names, reading_name, session_under
from .errors import InputError
from .inputs import parse_symbol
from .jsondata import document
from ..datalog.labels import ids_shown, with_id
from .school import CALENDAR_READINGS, MOMENT_READINGS, kb_root


def readings(session) -> list[tuple[str, str]]:
    """(topic, reading) of every shipped reading of the session's school, the school's own first in each topic
    (but those only a moment decides: the cases are cast from pillars)."""
    school = session.kb.school
    found = []
    for topic in sorted(t for t in school.readings if t not in CALENDAR_READINGS):
        others = sorted(p.stem for p in (kb_root() / "variants" / topic).glob("*.dl")
                        if p.stem != school.readings[topic] and (topic, p.stem) not in MOMENT_READINGS)
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
    _told: dict = field(default_factory=dict, repr=False, compare=False)  # lang → steps, once made

    def steps(self, lang: str = "zh") -> dict[str, list[tuple[str, str]]]:
        """The derivations where they part: reading → (title, text) of each step of the case's lesson
        that decides the 三傳 (:data:`DECIDING_STEPS`) and that the readings state differently
        (other atoms or rules), in the lesson's order, up to the first transmission they part on.
        Made once a language (the text, page and JSON of one report share them)."""
        if lang not in self._told:
            self._told[lang] = self._parting(lang)
        return self._told[lang]

    def _parting(self, lang: str) -> dict[str, list[tuple[str, str]]]:
        from ..explain.lesson import lesson_steps

        lessons = {r: {s.key: s for s in lesson_steps(c, lang) if s.key in DECIDING_STEPS}
                   for r, c in self.charts.items()}

        def stated(reading: str, key: str):
            step = lessons[reading].get(key)
            return step and (sorted(a.replace(self.charts[reading].id, "C") for a in step.atoms), step.rules)

        parting = [k for k in DECIDING_STEPS if len({repr(stated(r, k)) for r in lessons}) > 1]
        if len({a[:1] for a in self.answers.values()}) == 1:  # one initial: the readings part on the middle or final
            parting = [k for k in parting if k == "sequence"]
        told = [k for k in parting if k in ("initial", "sequence")]  # the first transmission that parts ends it
        parting = parting[:parting.index(told[0]) + 1] if told else parting
        return {r: [(steps[k].title, steps[k].text) for k in parting if k in steps] for r, steps in lessons.items()}


DECIDING_STEPS = ("method", "candidates", "initial", "sequence")  # the lesson's steps that give the 三傳


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
                         "(text, or a list of text)")
    label = f"{case.get('seq', number)} {case['day']} {case['yuejiang']}將{case['hour']}時"
    try:
        return label, session.chart_input(case["day"], case["yuejiang"], case["hour"])
    except InputError as error:
        raise InputError(f"case {case.get('seq', number)!s:.40}: {error}") from None


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


TOPICS_TEXT = {
    "zh": {"head": "{cases}案；每一題目，各讀法所得三傳與書相合之案數（本派讀法居前）", "none": "（無案可決）",
           "follows": "諸案從{best}：{n}案合書，{other}{m}案，多{more}案；決之者第{cases}案。",
           "even": "{readings}各合{n}案，案不能決。", "case_sep": "、", "and": "、",
           "deciding": "{name}：可決之案", "book": "書", "colon": "：", "case": "案",
           "headers": ("題目", "各讀法合書之案數", "結論")},
    "en": {"head": "{cases} cases; per topic, the cases whose 三傳 each reading gives (the school's reading first)",
           "follows": "The cases follow {best}: {n} agree with the book, {m} with {other}, {more} more; "
                      "cases {cases} decide it.",
           "even": "{readings} agree with {n} cases each: the cases do not decide.", "case_sep": ", ", "and": " and ",
           "none": "(no case decides)", "deciding": "{name}: the cases that decide", "book": "book",
           "colon": ": ", "case": "case", "headers": ("topic", "cases each reading gives", "conclusion")},
}


def _reading(topic: str, reading: str, lang: str) -> str:
    """A reading as the report names it: by its name in the language (the id ``--vs`` also takes
    beside it under ``--ids``)."""
    name = reading_name(topic, reading, lang, bare=True)
    return f"{name} ({reading})" if ids_shown() and name != reading else name


def _topic(topic: str, lang: str) -> str:
    """A topic by its name in the language (its id beside it under ``--ids``)."""
    name = names().get(topic, {}).get(lang, topic)
    return f"{name} ({topic})" if ids_shown() else name


def render_topics(verdicts: Sequence[TopicVerdict], cases: int, lang: str = "zh") -> str:
    """The per-topic table, then each topic's deciding cases with every reading's 三傳 and, under
    them, where each reading's derivation parts from the others (:meth:`Deciding.steps`)."""
    from ..explain.text_width import columns, padded as _padded

    t = TOPICS_TEXT[lang]
    lines = [t["head"].format(cases=cases)]
    width = max((columns(_topic(v.topic, lang)) for v in verdicts), default=0) + 2
    for v in verdicts:
        counts = "  ".join(f"{_reading(v.topic, r, lang)} {n}" for r, n in v.agree.items())
        lines.append(f"  {_padded(_topic(v.topic, lang), width)}{counts}" + ("" if v.deciding else "  " + t["none"]))
    for v in (v for v in verdicts if v.deciding):
        lines += ["", t["deciding"].format(name=_topic(v.topic, lang))]
        for d in v.deciding:
            told = "  ".join(f"{_reading(v.topic, r, lang)} {a}{'✓' if a == d.book else ''}" for r, a in d.answers.items())
            lines.append(f"  {_padded(d.label, 18)}{t['book']} {d.book}  {told}")
            lines += [f"      {_reading(v.topic, r, lang)}{t['colon']}{title}{t['colon']}{text}"
                      for r, steps in d.steps(lang).items() for title, text in steps]
        lines.append("  " + conclusion(v, lang))
    return "\n".join(lines)


def conclusion(verdict: TopicVerdict, lang: str = "zh") -> str:
    """The topic's verdict in a sentence: the reading the cases follow, by how many more than the
    next, and the cases that decide it (where it gives the book's 三傳 and the next does not)."""
    t = TOPICS_TEXT[lang]
    (best, n), (other, m) = sorted(verdict.agree.items(), key=lambda kv: -kv[1])[:2]
    if n == m:
        tied = [r for r, k in verdict.agree.items() if k == n]
        return t["even"].format(readings=t["and"].join(_reading(verdict.topic, r, lang) for r in tied), n=n)
    cases = [d.label.split()[0] for d in verdict.deciding if d.answers[best] == d.book != d.answers[other]]
    return t["follows"].format(best=_reading(verdict.topic, best, lang), n=n, other=_reading(verdict.topic, other, lang),
                               m=m, more=n - m, cases=t["case_sep"].join(cases))


def topics_html(verdicts: Sequence[TopicVerdict], cases: int, lang: str = "zh") -> str:
    """``audit --cases … --html``: the same report as one self-contained page, in ``lang``: topics and
    readings by name (ids under ``--ids``), each topic's conclusion under its cases."""
    from ..explain.audit_page import CSS
    from ..explain.page import esc

    t = TOPICS_TEXT[lang]
    rows = "".join(f"<tr><td>{esc(_topic(v.topic, lang))}</td><td>"
                   + esc("  ".join(f"{_reading(v.topic, r, lang)} {n}" for r, n in v.agree.items()))
                   + f"</td><td>{esc(conclusion(v, lang))}</td></tr>" for v in verdicts)
    parts = [f"<!DOCTYPE html><html lang=\"{'zh-Hant' if lang == 'zh' else 'en'}\"><head><meta charset=\"utf-8\">"
             f"<title>{esc(t['head'].format(cases=cases))}</title><style>{CSS}</style></head><body>"
             f"<h1>{esc(t['head'].format(cases=cases))}</h1>"
             f"<table><tr>{''.join(f'<th>{esc(h)}</th>' for h in t['headers'])}</tr>{rows}</table>"]
    for v in (v for v in verdicts if v.deciding):
        readings_here = list(v.agree)
        head = "".join(f"<th>{esc(_reading(v.topic, r, lang))}</th>" for r in readings_here)
        body = ""
        for d in v.deciding:
            steps = d.steps(lang)
            body += (f"<tr><td>{esc(d.label)}</td><td>{esc(d.book)}</td>"
                     + "".join(f"<td>{esc(d.answers[r])}{' ✓' if d.answers[r] == d.book else ''}"
                               + "".join(f"<br><small>{esc(title)}{t['colon']}{esc(text)}</small>"
                                         for title, text in steps.get(r, ()))
                               + "</td>" for r in readings_here) + "</tr>")
        parts.append(f"<h2>{esc(t['deciding'].format(name=_topic(v.topic, lang)))}</h2><table><tr>"
                     f"<th>{esc(t['case'])}</th><th>{esc(t['book'])}</th>{head}</tr>{body}</table>"
                     f"<p>{esc(conclusion(v, lang))}</p>")
    return "".join(parts) + "</body></html>"


def topics_document(school: str, verdicts: Sequence[TopicVerdict], cases: int, lang: str = "zh") -> dict:
    """``audit --cases … --json`` (without --vs): per topic, each reading's agreement and the deciding
    cases, each with every reading's 三傳 and the step where its derivation parts from the others."""
    return document("topics", {"school": school, "cases": cases, "topics": [
        {"topic": v.topic, "name": names()[v.topic][lang],
         "readings": [{"reading": r, "name": reading_name(v.topic, r, lang, bare=True), "agree": n}
                      for r, n in v.agree.items()],
         "deciding": [{"case": d.label, "book": d.book, "answers": d.answers,
                       "steps": {r: [{"title": title, "text": text} for title, text in steps]
                                 for r, steps in d.steps(lang).items()}}
                      for d in v.deciding]}
        for v in verdicts]})


def cases_html(verdicts) -> str:
    """``audit --vs … --cases … --html``: which of the two readings each case follows, as one page."""
    from ..explain.audit_page import CSS
    from ..explain.page import esc

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


def _by_method(differences: Sequence[Difference]) -> dict[str, list]:
    """The differences grouped by the school's method, the methods in the order they first come."""
    groups: dict[str, list] = defaultdict(list)
    for d in differences:
        groups[d.method].append(d)
    return groups


AGAINST_TEXT = {
    "zh": {"summary": "{total}答：{agreed}答與本派同；{differ}答不同，其中{explained}答有某一異說可解，{none}答無",
           "columns": "盤（轉數）  本派 → 彼答  可解之異說", "label": "{day} {jiang}將{hour}時（轉{offset}）",
           "group": "{method}（{n}）：", "none": "無異說可解", "title": "與他家之答相較",
           "headers": ("答", "盤", "本派 → 彼答", "可解之異說"), "sep": "；", "fields": {"sanchuan": "三傳",
           "method": "課法", "noble": "貴人"}},
    "en": {"summary": "{total} answers: {agreed} agree; {differ} differ, {explained} explained by a shipped reading, "
                      "{none} by none",
           "columns": "chart (offset)  ours → theirs (三傳: the three transmissions)  the reading that explains it",
           "label": "{day} {jiang}將{hour}時 (offset {offset})", "group": "{method} ({n}):",
           "title": "against another caster", "headers": ("answer", "chart", "ours → theirs", "explained by"),
           "none": "no shipped reading", "sep": "; ", "fields": {"sanchuan": "三傳",
           "method": "method", "noble": "noble"}},
}


def _summary(agreed: int, differences: Sequence[Difference], lang: str = "en") -> str:
    explained = sum(1 for d in differences if d.explained_by)
    return AGAINST_TEXT[lang]["summary"].format(total=agreed + len(differences), agreed=agreed, differ=len(differences),
                                                explained=explained, none=len(differences) - explained)


def _change(d: Difference, lang: str = "en") -> str:
    fields = AGAINST_TEXT[lang]["fields"]
    return "  ".join(f"{fields.get(k, k)} {d.ours[k]} → {d.theirs[k]}" for k in d.theirs if d.ours[k] != d.theirs[k])


def _why(d: Difference, lang: str) -> str:
    t = AGAINST_TEXT[lang]
    return t["sep"].join(with_id(reading_name(topic, r, lang), f"{topic}={r}", " ")
                         for topic, r in d.explained_by) or t["none"]


def render_against(agreed: int, differences: Sequence[Difference], lang: str = "zh") -> str:
    """The differences by the school's method, in ``lang``: each chart with what we conclude and what
    the other caster answered (ours → theirs), and the readings that explain it, or none."""
    t = AGAINST_TEXT[lang]
    lines = [_summary(agreed, differences, lang), t["columns"]]
    for method, group in _by_method(differences).items():
        lines += ["", t["group"].format(method=method, n=len(group))]
        lines += [f"  {t['label'].format(day=d.day, jiang=d.jiang, hour=d.hour, offset=d.offset)}  "
                  f"{_change(d, lang)}  — {_why(d, lang)}" for d in group]
    return "\n".join(lines)


def against_html(agreed: int, differences: Sequence[Difference], lang: str = "zh") -> str:
    """``audit --against … --html``: the same report as one self-contained page, a table per method."""
    from ..explain.audit_page import CSS
    from ..explain.page import esc

    t = AGAINST_TEXT[lang]
    head = "".join(f"<th>{esc(h)}</th>" for h in t["headers"])
    parts = [f"<!DOCTYPE html><html lang=\"{'zh-Hant' if lang == 'zh' else 'en'}\"><head><meta charset=\"utf-8\">"
             f"<title>{esc(t['title'])}</title><style>{CSS}</style></head><body>"
             f"<h1>{esc(_summary(agreed, differences, lang))}</h1>"]
    for method, group in _by_method(differences).items():
        rows = "".join(f"<tr><td>{d.entry}</td><td>{esc(t['label'].format(day=d.day, jiang=d.jiang, hour=d.hour, offset=d.offset))}"
                       f"</td><td>{esc(_change(d, lang))}</td><td>{esc(_why(d, lang))}</td></tr>" for d in group)
        parts.append(f"<h2>{esc(t['group'].format(method=method, n=len(group)).rstrip('：:'))}</h2>"
                     f"<table><tr>{head}</tr>{rows}</table>")
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
