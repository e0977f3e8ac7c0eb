"""A chart as practitioners draw it, and as plain data.

四課 read right to left (lesson 1 on the right), each column the general, the upper and
the lower; 三傳 top to bottom with 六親, 遁干, branch and general; the 天地盤 square with
heaven's branch over earth's in each palace, earth fixed as it is always drawn.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from .practice import life_line, marks_line, practice_data, strength_line, transmission_mark

if TYPE_CHECKING:
    from liuren_logic.chart import Chart

# Earth's palaces as drawn: the top row 巳午未申, the right side 酉戌, the bottom 亥子丑寅
# read right to left, the left side 卯辰 read upwards.
SQUARE = (("巳", "午", "未", "申"), ("辰", None, None, "酉"), ("卯", None, None, "戌"), ("寅", "丑", "子", "亥"))
POSITION_NAMES = {"zh": ("初傳", "中傳", "末傳"), "en": ("initial", "middle", "final")}
WORDS = {
    "zh": {"day": "晝", "night": "夜", "void": "旬空", "lessons": "四課", "transmissions": "三傳",
           "plates": "天地盤", "noble": "貴人", "forward": "順行", "backward": "逆行", "school": "門派",
           "spirits": "神煞", "patterns": "課格", "relief": "救", "bifa": "畢法", "generals": "天將",
           "pillars": "四柱", "jie": "節", "qi": "中氣", "jiang": "月將", "given": "月將",
           "origin": {"歲": "歲", "月": "月", "季": "季", "日": "日"}, "unkeyed": "他"},
    "en": {"day": "day", "night": "night", "void": "void", "lessons": "four lessons", "transmissions": "three transmissions",
           "plates": "heaven over earth", "noble": "noble", "forward": "forward", "backward": "backward", "school": "school",
           "spirits": "spirits (神煞)", "patterns": "patterns (課格)", "relief": "relieved (救)",
           "bifa": "rules of the 畢法賦", "generals": "generals (天將)",
           "pillars": "pillars", "jie": "節", "qi": "中氣", "jiang": "月將",
           "origin": {"歲": "year (歲)", "月": "month (月)", "季": "season (季)", "日": "day (日)"},
           "unkeyed": "other"},
}


def chart_data(chart: "Chart") -> dict:
    """Everything the chart concludes: ``cast --json`` (schemas/chart.schema.json)."""
    from liuren_logic import jsondata as J

    marks = day_marks(chart)
    return J.document("chart", {
        "id": chart.id, "school": chart.session.name,
        "day": chart.day, "jiang": chart.jiang, "hour": chart.hour,
        "offset": chart.offset, "daytime": chart.daytime,
        "method": chart.method, "names": chart.subnames, "keti": chart.keti,
        "noble": chart.noble, "direction": chart.direction, "void": chart.void,
        "lessons": [J.lesson(l) for l in chart.lessons],
        "transmissions": [J.transmission(t) for t in chart.transmissions],
        "heaven": chart.heaven, "generals": chart.generals,
        "spirits": [J.spirit(w, b, s, s in marks) for w, b, s in chart.spirits],
        "patterns": [J.pattern(g, p) for g, p in chart.patterns],
        "bifa": [{"number": n, "line": f} for n, f in chart.bifa],
        "reliefs": [{"pattern": p, "relief": r} for p, r in chart.reliefs],
        **practice_data(chart),
        **({"calendar": J.calendar(chart.moment)} if chart.moment is not None else {}),
    })


def day_marks(chart: "Chart") -> set[str]:
    """The day's marks (``day_mark``: 日祿 日德 …): spirits of those names show on the marks line."""
    return {m["mark"] for m in chart.marks}


def _short(chart: "Chart", general: str | None) -> str:
    if general is None:
        return "　"
    rows = chart.session.source(chart.id).query("general_short", [general, None])
    return rows[0][1] if rows else general


ORIGINS = (("歲", ("歲",)), ("月", ("月",)), ("季", ("季",)), ("日", ("日支", "日干")))  # spirit_key, grouped


def spirit_omens(chart: "Chart") -> dict[str, str]:
    """吉 or 凶 of each spirit the seeds call so (``spirit_omen``, kb/spirits/omen.dl)."""
    if "spirit_omen" not in chart.session.kb.program.preds:
        return {}
    return dict(chart.session.source(chart.id).query("spirit_omen", [None, None]))


def _spirits_by_origin(chart: "Chart", words: dict) -> list[str]:
    """The spirits that show, grouped by what they are reckoned from (``spirit_key``: year, month,
    season, day), each with its branch, the places it shows on and its 吉/凶 where the seeds say
    (``spirit_omen``): 月德寅(中傳)吉. The day's marks (日祿, 日德) have their own line."""
    source, preds = chart.session.source(chart.id), chart.session.kb.program.preds
    keys: dict[str, set] = defaultdict(set)
    for spirit, key in source.query("spirit_key", [None, None]) if "spirit_key" in preds else ():
        keys[spirit].add(key)
    omen = spirit_omens(chart)
    marks = day_marks(chart)
    places: dict[tuple, list[str]] = {}
    for where, branch, spirit in chart.spirits:
        if spirit not in marks:
            places.setdefault((spirit, branch), []).append(where)
    groups: dict[str, list[str]] = {origin: [] for origin, _ in ORIGINS}
    for (spirit, branch), wheres in sorted(places.items()):
        origin = "·".join(o for o, ks in ORIGINS if keys[spirit] & set(ks)) or words["unkeyed"]
        groups.setdefault(origin, []).append(f"{spirit}{branch}({'·'.join(wheres)}){omen.get(spirit, '')}")
    names = words["origin"]
    return [f"  {'·'.join(names.get(o, o) for o in origin.split('·'))}: {' '.join(items)}"
            for origin, items in groups.items() if items]


def _general_states(chart: "Chart", everyone: bool = False) -> tuple[list[str], set[str]]:
    """Each general's seat (the branch it rides over its earth palace) and the states (``general_state``)
    it is in there: the generals of the lessons and transmissions, or all twelve; and the states drawn."""
    preds = chart.session.kb.program.preds
    if "general_seat" not in preds or "general_state" not in preds:
        return [], set()
    seats = {g: (b, p) for g, b, p in chart.rows("general_seat")}
    states: dict[str, list[str]] = defaultdict(list)
    for general, state in chart.rows("general_state"):
        states[general].append(state)
    shown = [t.general for t in chart.transmissions] + [l.general for l in reversed(chart.lessons)]
    if everyone:
        shown += sorted(seats, key=lambda g: seats[g][1])
    shown = [g for g in dict.fromkeys(shown) if g in seats]
    return ([f"  {g} {seats[g][0]}臨{seats[g][1]}: {' '.join(states[g]) or '—'}" for g in shown],
            {s for g in shown for s in states[g]})


def calendar_line(chart: "Chart", words: dict) -> str:
    """A dated chart's calendar in one line: the four pillars, the 節 and 中氣 in force, the 月將."""
    m = chart.moment
    return (f"  {words['pillars']} {m.year_pillar} {m.month_pillar} {m.day_pillar} {m.hour_pillar}"
            f" · {words['jie']} {m.jie} · {words['qi']} {m.qi} → {words['jiang']} {chart.jiang}")


def _spirits_and_patterns(chart: "Chart", words: dict, all_generals: bool = False) -> list[str]:
    """The spirits that show in the chart by origin, the generals' states, and the patterns by group."""
    lines = []
    if chart.spirits:
        lines += ["", f"{words['spirits']}:"] + _spirits_by_origin(chart, words)
    generals, drawn = _general_states(chart, all_generals)
    if generals:
        lines += ["", f"{words['generals']}:"] + generals
    if chart.patterns:
        by_group: dict[str, list[str]] = {}
        for group, pattern in chart.patterns:
            if pattern not in drawn:  # a general's state drawn with its general above is not repeated
                by_group.setdefault(group, []).append(pattern)
        lines += ["", f"{words['patterns']}:"] + [f"  {group}: {' '.join(items)}" for group, items in by_group.items()]
        if chart.reliefs:
            lines.append(f"  {words['relief']}: " + " ".join(f"{p}←{r}" for p, r in chart.reliefs))
    return lines


def method_line(chart: "Chart") -> str:
    """The method and its names, then every other 課體 of the chart: 賊剋 元首 · 天網 · 斬關."""
    shown = {chart.method, *chart.subnames}
    names = "·".join(chart.subnames)
    head = f"{chart.method or '—'} {names}".rstrip()
    return " · ".join([head] + [k for k in chart.keti if k not in shown])


def render_chart(chart: "Chart", lang: str = "zh", explain_calendar: bool = False, all_generals: bool = False) -> str:
    """The chart drawn for the terminal: header (a dated chart's calendar in one line, or with every
    reason), 四課, 三傳, spirits, generals, patterns, 天地盤."""
    w = WORDS[lang]
    when = w["day"] if chart.daytime else w["night"]
    run = w["forward"] if chart.direction == "順" else w["backward"]
    lines = [f"{chart.day}日 {chart.jiang}將 {chart.hour}時  ({when}; {w['noble']} {chart.noble} {run})"
             f"  {w['void']} {''.join(chart.void)}  [{w['school']}: {chart.session.name}]"]
    if chart.moment is not None:
        lines.append(calendar_line(chart, w))
    if chart.moment is not None and explain_calendar:
        reasons = chart.moment.reasons(lang)
        if chart.moment.daytime is None:  # day and night left to the hour: nothing to say of the sun
            reasons = {k: v for k, v in reasons.items() if k not in ("daytime", "sunrise", "sunset")}
        lines += [f"  {reason}" for reason in reasons.values()]
    lines += [f"  {line}" for line in (life_line(chart, lang), strength_line(chart, lang), marks_line(chart, lang)) if line]
    lessons = list(reversed(chart.lessons))
    lines += ["", f"{w['lessons']}:",
              "  " + "  ".join(_short(chart, l.general) for l in lessons),
              "  " + "  ".join(l.upper for l in lessons),
              "  " + "  ".join(l.lower for l in lessons)]
    lines += ["", f"{w['transmissions']}: {method_line(chart)}"]
    for t in chart.transmissions:
        void = " (空)" if t.void else ""
        mark = transmission_mark(chart, t.branch)
        lines.append(f"  {POSITION_NAMES[lang][t.position - 1]}  {t.kin or '　　'} {t.hidden_stem or '　'} {t.branch} {t.general or ''}{void}"
                     + (f"  {mark}" if mark else ""))
    if not chart.transmissions:
        lines.append("  — (no rule gives the transmissions; ask why-not initial)")
    lines += _spirits_and_patterns(chart, w, all_generals)
    if chart.bifa:
        lines += ["", f"{w['bifa']}:"] + [f"  {n:>3}. {f}" for n, f in chart.bifa]
    lines += ["", f"{w['plates']}:"]
    for row in SQUARE:
        top = "  ".join((_short(chart, chart.generals.get(chart.heaven.get(e))) if e else "　") for e in row)
        mid = "  ".join((chart.heaven.get(e, "？") if e else "　") for e in row)
        low = "  ".join((e if e else "　") for e in row)
        lines += ["  " + top, "  " + mid, "  " + low, ""]
    return "\n".join(lines).rstrip()
