"""Audits as text: what another reading of a disputed topic changes over the charts (``audit --vs``)
and which of two schools each of the book's cases follows (``audit --vs … --cases``).
:mod:`liuren_logic.domain.audit` casts and compares; this module only says what it found.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

from liuren_logic.domain.audit import Audit, CaseVerdict, conclusion_name
from liuren_logic.domain.disputes import school_name

from .text_width import columns, padded


REPORT = {
    "zh": {"summary": "{a}  →  {b}：{total} 盤中 {changed} 盤有變{shared}", "shared": "（{n} 個時刻）",
           "count": "  {name}：{count}", "chart": "盤", "conclusion": "結論", "change": "變化",
           "more": "… 另有 {n} 條（--json 列出全部）"},
    "en": {"summary": "{a}  →  {b}: {changed} of {total} charts{shared} change", "shared": " ({n} moments)",
           "count": "  {name}: {count}", "chart": "chart", "conclusion": "conclusion", "change": "change",
           "more": "… {n} more (use --json for all)"},
}


def render_text(audit: Audit, limit: Optional[int] = None, lang: str = "en") -> str:
    """The summary and a table of every difference, in ``lang``."""
    t = REPORT[lang]
    shared = t["shared"].format(n=audit.charts) if audit.distinct and audit.distinct < audit.charts else ""
    lines = [t["summary"].format(a=school_name(audit.a, lang), b=school_name(audit.b, lang), changed=len(audit.changed()),
                                 total=audit.distinct or audit.charts, shared=shared)]
    lines += [t["count"].format(name=conclusion_name(c, lang), count=count) for c, count in audit.summary().items() if count]
    shown = audit.differences if limit is None else audit.differences[:limit]
    if shown:
        lines += ["", padded(t["chart"], 22) + padded(t["conclusion"], 12) + t["change"]]
    for d in shown:
        lines.append(padded(d.chart, 22) + padded(conclusion_name(d.conclusion, lang), 12) + d.change())
    if limit is not None and len(audit.differences) > limit:
        lines.append(t["more"].format(n=len(audit.differences) - limit))
    return "\n".join(lines)


CASES = {"zh": {"case": "案例", "book": "書中", "follows": "依從", "neither": "皆不從", "and": "、",
                "list": "、", "tally": "{names}：{n}"},
         "en": {"case": "case", "book": "book", "follows": "follows", "neither": "neither",
                "and": " and ", "list": ", ", "tally": "{names}: {n}"}}


def render_cases(verdicts: Sequence[CaseVerdict], lang: str = "en") -> str:
    """Each case's 三傳 in the book and under each school, which it follows, and the tally."""
    t = CASES[lang]
    schools = list(verdicts[0].answers) if verdicts else []
    named = {s: school_name(s, lang, brief=True) for s in schools}
    width = {s: max(10, columns(named[s]) + 2) for s in schools}
    lines = [padded(t["case"], 26) + padded(t["book"], 8) + "".join(padded(named[s], width[s]) for s in schools)
             + t["follows"]]
    for v in verdicts:
        answers = "".join(padded(v.answers[s], width[s]) for s in schools)
        lines.append(padded(v.case, 26) + padded(v.book, 8) + answers
                     + (t["list"].join(named[s] for s in v.follows) or t["neither"]))
    tally = Counter(v.follows for v in verdicts)
    lines.append("")
    lines += [t["tally"].format(names=t["and"].join(named[s] for s in k) or t["neither"], n=n)
              for k, n in sorted(tally.items(), key=lambda kv: -kv[1])]
    return "\n".join(lines)
