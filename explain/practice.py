"""What a practitioner reads beside the chart: the querent's 本命 and 行年, the month's
旺相休囚死, the day stem's 十二長生 on the transmissions, and the day's marks (日祿 日馬 旬丁
日德) with where each falls. Text and data are read from the chart's KB relations.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from liuren_logic.datalog.labels import atom_label

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart

WORDS = {
    "zh": {"natal": "本命", "xingnian": "行年", "note": "{what} ({note})", "over": "上", "strength": "旺相",
           "marks": "日用", "falls": "臨", "no_year": "行年：須知占年（--year）"},
    "en": {"natal": "natal", "xingnian": "year of life", "note": "{what}, {note}", "over": "over it",
           "strength": "strength", "marks": "marks", "falls": " over ", "no_year": "year of life: give the chart's year (--year)"},
}


def life_parts(chart: "Chart", lang: str) -> list[str]:
    """[本命 戌 (生年庚戌), 上 午 貴人, 行年 甲午 (虛歲二十九), 上 寅 勾陳]; none without a querent.
    The year of birth and the 虛歲 are the labels of ``born`` and ``age`` (kb/chart/life.dl), as in the lesson."""
    life, w = chart.life, WORDS[lang]
    if not life:
        return []
    preds = chart.session.kb.program.preds
    parts = []
    for role, point in life["points"].items():
        name = w["natal"] if role == "本命" else w["xingnian"]
        what = f"{name} {life['xingnian'] if role == '行年' and life['xingnian'] else point['branch']}"
        pred, rows = ("born", chart.rows("born")) if role == "本命" else ("age", chart.rows("age"))
        if rows:
            what = w["note"].format(what=what, note=atom_label(preds[pred], (chart.id, *rows[0]), lang))
        over = f"{w['over']} {point['upper']} {point['general'] or ''}".rstrip()
        parts.append(f"{what}, {over}")
    if "行年" not in life["points"] and life.get("sex"):
        parts.append(w["no_year"])
    return parts


def strength_parts(chart: "Chart", lang: str) -> list[str]:
    """旺相: 水旺 木相 金休 土囚 火死 (by the month), one part; in English a part each, the strength on
    its own where its gloss can follow it (strength: 水 旺, 木 相 …); [] when the month is not known."""
    if not chart.element_strength:
        return []
    label = f"{WORDS[lang]['strength']}: "
    if lang == "zh":
        return [label + " ".join(f"{e}{s}" for e, s in chart.element_strength.items())]
    return [(label if i == 0 else "") + f"{e} {s}" for i, (e, s) in enumerate(chart.element_strength.items())]


def mark_items(chart: "Chart", lang: str) -> list[tuple[str, str]]:
    """Each mark and what the board says of it: (日祿, 日用: 日祿 酉臨丑), (日馬, 日馬 亥臨卯 初傳) …: the
    palace it stands over and where it shows; the first says what the line is."""
    w = WORDS[lang]
    items = [(m["mark"], f"{m['mark']} {m['branch']}{w['falls']}{m['over']}"
              + (f" {' '.join(m['shows'])}" if m["shows"] else "")) for m in chart.marks]
    return [(mark, f"{w['marks']}: {text}" if i == 0 else text) for i, (mark, text) in enumerate(items)]


def practice_data(chart: "Chart") -> dict:
    """The same as JSON-ready data."""
    return {"life": chart.life or None, "element_strength": chart.element_strength, "strength": chart.strength,
            "stages": chart.stages, "marks": chart.marks,
            "generals_nature": [{"branch": b, **n} for b, n in chart.generals_nature.items()]}
