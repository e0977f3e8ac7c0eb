"""The 斷 of a chart cast with a matter: the findings, verdicts and 應期 the KB's judgement rules
(kb/judgement) derive, each with its rule's sentence (zh, en), the rule and its source.

Nothing here judges: it reads the relations ``finding``, ``verdict`` and ``timing`` and the rule
each row was derived by, and orders the findings by weight for the matter: those of rules that read
the matter itself (its 類神, or a line about that matter) first, then those every matter gets; each
group by kind, the matter's own signs (類神, 六親) first. ``cast --json`` carries them all
(:func:`judgement_data`); the board's last section (:func:`judgement_section`) the first SHOWN.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from liuren_logic import syntax as S

if TYPE_CHECKING:
    from liuren_logic.chart import Chart

    from .board import Section

# The order a 斷 reads the kinds in: what stands for the matter, then its state, then the course.
KIND_ORDER = ("類神", "六親", "用神", "天將", "三傳", "神煞", "課體", "墓", "空亡", "旺衰", "生剋", "刑沖破害合",
              "年命", "應期")
SHOWN = 15  # findings the board lists; --json has them all
NUMERALS = str.maketrans("一二三四", "1234")
JOIN = {"zh": "；", "en": "; "}  # between the sentences of a finding one rule derives several times
WORDS = {"zh": {"title": "斷", "matter": "占", "question": "問", "verdict": "斷語", "timing": "應期",
                "more": "另有{n}條（--json 全列）", "none": "（無）",
                "conflict": "{a}與{b}相反，兩存之"},
         "en": {"title": "Judgement (斷)", "matter": "matter", "question": "question", "verdict": "verdict",
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
            "text": {lang: JOIN[lang].join(r["text"][lang] for r in rows) for lang in ("zh", "en")},
            "rule": first["rule"], "source": first["source"]}


def _grouped(chart: "Chart") -> list[list[dict]]:
    """The chart's findings, each with its rule's sentence, grouped by rule and kind (a rule deriving
    several, as the generals of the three transmissions, is one group, in the chart's order), the
    groups by weight for the matter."""
    rank = {kind: i for i, kind in enumerate(KIND_ORDER)}
    program = chart.session.program
    weighs = {r.id: _for_the_matter(r, program.preds) for r in program.rules if r.head.pred == "finding"}
    by_rule: dict[tuple, list] = {}
    for k, f, a, b in sorted(chart.rows("finding"), key=lambda row: (rank[row[0]], row)):
        entry = {"kind": k, "about": _about(a, b), "words": f, **_derived(chart, "finding", (k, f, a, b))}
        by_rule.setdefault((k, entry["rule"]), []).append(entry)
    for rows in by_rule.values():  # 第一傳 … 第三傳, 第一課 … 第四課 in their order
        rows.sort(key=lambda r: r["text"]["zh"].translate(NUMERALS))
    return [by_rule[key] for key in sorted(by_rule, key=lambda key: (not weighs[key[1]], rank[key[0]]))]


def judgement_data(chart: "Chart", question: Optional[str] = None,
                   groups: Optional[list[list[dict]]] = None) -> Optional[dict]:
    """The chart's 斷 as ``cast --json`` carries it (None for a chart cast without a matter). Findings
    one rule derives several times (the chart's 課體, the generals of the three transmissions) are
    one finding naming them all (``groups``: the findings as :func:`_grouped` gives them)."""
    matter = chart.rows("matter")
    if not matter:
        return None
    return {
        "matter": matter[0][0], "question": question,
        "findings": [_merged(rows) for rows in (groups if groups is not None else _grouped(chart))],
        "verdicts": [{"verdict": v, "about": _about(a), **_derived(chart, "verdict", (v, a))}
                     for v, a in chart.rows("verdict")],
        "timing": [{"branch": b, "method": how, **_derived(chart, "timing", (b, how))}
                   for b, how in chart.rows("timing")],
        "conflicts": [[a, b] for a, b in chart.rows("conflict")],
    }


def _book(source: str) -> str:
    """A source shortened to its book (``指南卷三: 將神之司…`` → ``指南卷三``); ``why 斷 …`` gives the line."""
    return source.partition(": ")[0]


def judgement_section(chart: "Chart", lang: str, options: dict) -> Optional["Section"]:
    """The board's 斷 (None for a chart cast without a matter): the matter and the question, the
    verdicts with their rule and line, the first SHOWN findings by weight, a finding one rule derives
    several times on one row (the generals of the transmissions, of the lessons), its sentences
    cells the board wraps between, with its rule and book; then the 應期. Each row's first cell
    asks ``why 斷`` of what it names."""
    from .board import Cell, Section

    if not chart.rows("matter"):
        return None
    groups = _grouped(chart)
    data = judgement_data(chart, options.get("question"), groups)
    w, question, matter = WORDS[lang], options.get("question"), data["matter"]
    if lang == "en":  # the matter's English name, from the KB's matter_en
        matter += "".join(f" ({en})" for _, en in chart.session.base.query("matter_en", [matter, None]))
    rows = [[Cell(f"{w['matter']} {matter}" + (f" · {w['question']} {question}" if question else ""))]]
    rows += [[Cell(f"{w['verdict']} {v['verdict']}", ("斷", v["verdict"])), Cell(v["text"][lang]),
              Cell(f"〔{v['rule']} | {v['source']}〕")] for v in data["verdicts"]]
    rows += [[Cell(w["conflict"].format(a=a, b=b))] for a, b in data["conflicts"]]
    for group in groups[:SHOWN]:
        first = group[0]
        rows.append([Cell(first["kind"], ("斷", first["words"]))] + [Cell(r["text"][lang]) for r in group]
                    + [Cell(f"〔{first['rule']} · {_book(first['source'])}〕")])
    if len(data["findings"]) > SHOWN:
        rows.append([Cell(w["more"].format(n=len(data["findings"]) - SHOWN))])
    rows.append([Cell(f"{w['timing']}:")] + ([Cell(f"{t['branch']}（{t['method']}）", ("斷", t["branch"]))
                                               for t in data["timing"]] or [Cell(w["none"])]))
    return Section("judgement", w["title"], rows, sep="  ")
