"""The 斷 of a chart cast with a matter: the findings, verdicts and 應期 the KB's judgement rules
(kb/judgement) derive, each with its rule's sentence (zh, en), the rule and its source.

Nothing here judges: it reads the relations ``finding``, ``verdict`` and ``timing`` and the rule
each row was derived by, and orders the findings by weight for the matter: those of rules that read
the matter itself (its 類神, or a line about that matter) first, then those every matter gets; each
group by kind, the matter's own signs (類神, 六親) first.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from liuren_logic import syntax as S

if TYPE_CHECKING:
    from liuren_logic.chart import Chart

# The order a 斷 reads the kinds in: what stands for the matter, then its state, then the course.
KIND_ORDER = ("類神", "六親", "用神", "天將", "三傳", "神煞", "課體", "墓", "空亡", "旺衰", "生剋", "刑沖破害合",
              "年命", "應期")
SHOWN = 15  # findings the board lists; --json has them all
WORDS = {"zh": {"title": "斷", "matter": "占", "question": "問", "verdicts": "斷語", "timing": "應期",
                "more": "另有{n}條（--json 全列）", "none": "（無）",
                "conflict": "{a}與{b}相反，兩存之"},
         "en": {"title": "Judgement (斷)", "matter": "matter", "question": "question", "verdicts": "verdicts",
                "timing": "timing (應期)", "more": "{n} more (--json lists them all)", "none": "(none)",
                "conflict": "{a} and {b} point opposite ways; both stand"}}


def _for_the_matter(rule: S.Rule, preds: dict) -> bool:
    """Whether a rule reads the matter asked rather than holding for every matter: it names a matter
    (``matter(C, 家宅)``) or joins a table keyed by matter (a 類神 table). Its findings weigh more."""
    for literal in rule.body:
        atom = getattr(literal, "atom", literal)
        if not isinstance(atom, S.Atom):
            continue
        kinds = [kind for _, kind in preds[atom.pred].params]
        if atom.pred != "matter" and "matter" in kinds or atom.pred == "matter" and isinstance(atom.args[1], S.Const):
            return True
    return False


def _derived(chart: "Chart", pred: str, args: tuple) -> dict:
    """The rule that derived a row of ``pred``: its sentence filled with the row's values, id and source."""
    explainer = chart.session.explainer(chart.id)
    applied = explainer.application(explainer.chosen(pred, (chart.id, *args)))
    return {"text": {"zh": applied["zh"], "en": applied["en"]}, "rule": applied["rule"], "source": applied["source"]}


def _about(*values) -> list[str]:
    return list(dict.fromkeys(str(v) for v in values))


def _merged(rows: list[dict]) -> dict:
    """Findings of one rule and kind as one: the abouts, words and sentences of each in turn."""
    first = rows[0]
    return {"kind": first["kind"], "about": _about(*(a for r in rows for a in r["about"])),
            "words": "、".join(dict.fromkeys(r["words"] for r in rows)),
            "text": {lang: ("；" if lang == "zh" else "; ").join(r["text"][lang] for r in rows) for lang in ("zh", "en")},
            "rule": first["rule"], "source": first["source"]}


def judgement_data(chart: "Chart", question: Optional[str] = None) -> Optional[dict]:
    """The chart's 斷 as ``cast --json`` carries it (None for a chart cast without a matter). Findings
    one rule derives several times (the chart's 課體, the generals of the three transmissions) are
    one finding naming them all."""
    matter = chart.rows("matter")
    if not matter:
        return None
    rank = {kind: i for i, kind in enumerate(KIND_ORDER)}
    program = chart.session.program
    weighs = {r.id: _for_the_matter(r, program.preds) for r in program.rules if r.head.pred == "finding"}
    by_rule: dict[tuple, list] = {}
    for k, f, a, b in sorted(chart.rows("finding"), key=lambda row: (rank[row[0]], row)):
        entry = {"kind": k, "about": _about(a, b), "words": f, **_derived(chart, "finding", (k, f, a, b))}
        by_rule.setdefault((k, entry["rule"]), []).append(entry)
    order = sorted(by_rule, key=lambda key: (not weighs[key[1]], rank[key[0]]))
    return {
        "matter": matter[0][0], "question": question,
        "findings": [_merged(by_rule[key]) for key in order],
        "verdicts": [{"verdict": v, "about": _about(a), **_derived(chart, "verdict", (v, a))}
                     for v, a in chart.rows("verdict")],
        "timing": [{"branch": b, "method": how, **_derived(chart, "timing", (b, how))}
                   for b, how in chart.rows("timing")],
        "conflicts": [[a, b] for a, b in chart.rows("conflict")],
    }


def judgement_lines(chart: "Chart", lang: str = "zh", question: Optional[str] = None) -> list[str]:
    """The board's 斷 section: the matter, the verdicts, the first findings by weight, the 應期."""
    data = judgement_data(chart, question)
    if data is None:
        return []
    w, matter = WORDS[lang], data["matter"]
    if lang == "en":  # the matter's English name, from the KB's matter_en
        matter += "".join(f" ({en})" for _, en in chart.session.base.query("matter_en", [matter, None]))
    head = f"{w['title']}: {w['matter']} {matter}" + (f" · {w['question']} {question}" if question else "")
    lines = [head, f"  {w['verdicts']}:"]
    lines += [f"    {v['verdict']}  {v['text'][lang]}  [{v['rule']} | {v['source']}]" for v in data["verdicts"]] or [f"    {w['none']}"]
    lines += [f"    {w['conflict'].format(a=a, b=b)}" for a, b in data["conflicts"]]
    for f in data["findings"][:SHOWN]:
        lines.append(f"  {f['kind']}  {f['text'][lang]}  [{f['rule']} | {f['source']}]")
    if len(data["findings"]) > SHOWN:
        lines.append("  " + w["more"].format(n=len(data["findings"]) - SHOWN))
    lines.append(f"  {w['timing']}: " + (" · ".join(f"{t['branch']}（{t['method']}）" for t in data["timing"]) or w["none"]))
    return lines
