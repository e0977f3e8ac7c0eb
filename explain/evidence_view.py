"""The evidence audits as people read them: ``audit --cases`` (which reading of each disputed topic
the books' worked cases follow, each topic ending in a sentence, with the step where the readings'
derivations part) and ``audit --against`` (another caster's answers, ours → theirs, with the
reading that explains each difference), as text, one HTML page or JSON.
:mod:`liuren_logic.domain.evidence` casts and compares; this module only says what it found.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from liuren_logic.datalog.labels import ids_shown, with_id
from liuren_logic.domain.school import names, reading_name
from liuren_logic.domain.evidence import Deciding, Difference, TopicVerdict
from liuren_logic.domain.jsondata import document

from .audit_page import CSS
from .lesson import lesson_steps
from .page import esc
from .text_width import columns, padded


def parting(deciding: Deciding, lang: str = "zh") -> dict[str, list[tuple[str, str]]]:
    """The derivations where they part: reading → (title, text) of each step of the case's lesson
    that decides the 三傳 (:data:`DECIDING_STEPS`) and that the readings state differently (other
    atoms or rules), in the lesson's order, up to the first transmission they part on. Made once a
    language (the text, page and JSON of one report share them)."""
    if lang not in deciding.told:
        deciding.told[lang] = _parting(deciding, lang)
    return deciding.told[lang]


def _parting(deciding: Deciding, lang: str) -> dict[str, list[tuple[str, str]]]:
    lessons = {r: {s.key: s for s in lesson_steps(c, lang) if s.key in DECIDING_STEPS}
               for r, c in deciding.charts.items()}

    def stated(reading: str, key: str):
        step = lessons[reading].get(key)
        return step and (sorted(a.replace(deciding.charts[reading].id, "C") for a in step.atoms), step.rules)

    parting = [k for k in DECIDING_STEPS if len({repr(stated(r, k)) for r in lessons}) > 1]
    if len({a[:1] for a in deciding.answers.values()}) == 1:  # one initial: the readings part on the middle or final
        parting = [k for k in parting if k == "sequence"]
    told = [k for k in parting if k in ("initial", "sequence")]  # the first transmission that parts ends it
    parting = parting[:parting.index(told[0]) + 1] if told else parting
    return {r: [(steps[k].title, steps[k].text) for k in parting if k in steps] for r, steps in lessons.items()}


DECIDING_STEPS = ("method", "candidates", "initial", "sequence")  # the lesson's steps that give the 三傳


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
    them, where each reading's derivation parts from the others (:func:`parting`)."""
    t = TOPICS_TEXT[lang]
    lines = [t["head"].format(cases=cases)]
    width = max((columns(_topic(v.topic, lang)) for v in verdicts), default=0) + 2
    for v in verdicts:
        counts = "  ".join(f"{_reading(v.topic, r, lang)} {n}" for r, n in v.agree.items())
        lines.append(f"  {padded(_topic(v.topic, lang), width)}{counts}" + ("" if v.deciding else "  " + t["none"]))
    for v in (v for v in verdicts if v.deciding):
        lines += ["", t["deciding"].format(name=_topic(v.topic, lang))]
        for d in v.deciding:
            told = "  ".join(f"{_reading(v.topic, r, lang)} {a}{'✓' if a == d.book else ''}" for r, a in d.answers.items())
            lines.append(f"  {padded(d.label, 18)}{t['book']} {d.book}  {told}")
            lines += [f"      {_reading(v.topic, r, lang)}{t['colon']}{title}{t['colon']}{text}"
                      for r, steps in parting(d, lang).items() for title, text in steps]
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
            steps = parting(d, lang)
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
                                 for r, steps in parting(d, lang).items()}}
                      for d in v.deciding]}
        for v in verdicts]})


def cases_html(verdicts) -> str:
    """``audit --vs … --cases … --html``: which of the two readings each case follows, as one page."""
    schools = list(verdicts[0].answers) if verdicts else []
    head = "".join(f"<th>{esc(s)}</th>" for s in schools)
    body = "".join(f"<tr><td>{esc(v.case)}</td><td>{esc(v.book)}</td>"
                   + "".join(f"<td>{esc(v.answers[s])}</td>" for s in schools)
                   + f"<td>{esc(', '.join(v.follows) or 'neither')}</td></tr>" for v in verdicts)
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>cases</title><style>{CSS}</style></head>"
            f"<body><h1>{len(verdicts)} cases</h1><table><tr><th>case</th><th>book</th>{head}<th>follows</th></tr>"
            f"{body}</table></body></html>")


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
