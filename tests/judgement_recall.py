"""Recall of the 斷 on 《六壬指南》 卷三's judged cases: how many of the chart features each 斷 cites
as a reason (tests/data/cases/zhinan_judgements.json) a finding of the same kind names.

    python tests/judgement_recall.py   # the recall table and every miss, as docs/judgement.md has them

A feature counts when a finding (or an 應期) of its kind names one of the branches, stems,
generals or names its ``about`` reads (辰加未 → 辰 未; 貴人(亥) → 貴人 亥), a name also when a
finding's name contains it. 年命 features need the querent's 本命 or 行年: where the case text
states it, our copy of the case has it (``nianming``: the words, and what is given to the cast);
they are counted apart, as are the cases whose matter is none of the twelve (其他: 隱遁, 應候,
兵鬥) and the features of kind ``other``.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

CASES = Path(__file__).parent / "data" / "cases"
MATTERS = {"仕宦/功名": "仕宦", "失物/盜賊": "失物"}
MONTHS = dict(zip("正二三四五六七八九十冬臘", "寅卯辰巳午未申酉戌亥子丑"))
GENERALS = {"貴人": "貴人", "天乙": "貴人", "螣蛇": "螣蛇", "朱雀": "朱雀", "六合": "六合", "勾陳": "勾陳",
            "青龍": "青龍", "天空": "天空", "白虎": "白虎", "太常": "太常", "玄武": "玄武", "元武": "玄武",
            "太陰": "太陰", "天后": "天后", "貴": "貴人", "蛇": "螣蛇", "雀": "朱雀", "朱": "朱雀", "勾": "勾陳",
            "龍": "青龍", "空": "天空", "虎": "白虎", "常": "太常", "玄": "玄武", "陰": "太陰", "后": "天后"}
SYMBOLS = set("子丑寅卯辰巳午未申酉戌亥甲乙丙丁戊己庚辛壬癸")
NAMES = ("旬丁", "子孫")  # names that hold a stem's or a branch's character: read whole, not as 丁 or 子
APART = {"年命", "other"}


def tokens(about: str) -> set[str]:
    """What a feature's ``about`` names: its branches and stems, its generals (full or short), and
    each remaining run of characters as a name (驛馬, 出旬, 斬關); 驛馬 also as the mark 日馬."""
    found, rest = set(), about.replace("反吟", "返吟")  # the KB writes 返吟
    if "驛馬" in rest:  # the spirit 驛馬, or the day's, which the KB's marks call 日馬
        found.add("日馬")
    for name in sorted(GENERALS, key=len, reverse=True):
        if len(name) > 1 and name in rest:
            found.add(GENERALS[name])
            rest = rest.replace(name, " ")
    for name in NAMES:
        if name in rest:
            found.add(name)
            rest = rest.replace(name, " ")
    found |= {c for c in rest if c in SYMBOLS}
    found |= {run for run in re.split(r"[\s子丑寅卯辰巳午未申酉戌亥甲乙丙丁戊己庚辛壬癸()（）/／、,，→+加臨]+", rest)
              if len(run) > 1}
    return found


def named(judged: dict) -> dict[str, set[str]]:
    """Everything the chart's findings and 應期 name, by kind."""
    names: dict[str, set[str]] = {}
    for f in judged["findings"]:
        names.setdefault(f["kind"], set()).update([*f["about"], f["words"]])
    for t in judged["timing"]:
        names.setdefault("應期", set()).update([t["branch"], t["method"]])
    return names


def matches(wanted: set[str], names: set[str]) -> bool:
    """A branch, stem or general must be named as it is; a longer name (斬關, 魁度天門) may be part of one."""
    return any(w in names or len(w) > 1 and any(w in n for n in names) for w in wanted)


def reason(chart, chart_in: dict, feature: dict, names: dict[str, set[str]]) -> str:
    """Why a cited feature is not found, as far as the chart tells: the book's 三傳 differ from the
    school's; what it names is found under another kind; a spirit the chart has that no line encoded
    makes a sign of the matter; or no rule reads it."""
    wanted = tokens(feature["about"])
    if chart.sanchuan != chart_in["sanchuan"]:
        return f"the school's 三傳 {chart.sanchuan}, the book's {chart_in['sanchuan']}"
    elsewhere = sorted(k for k, n in names.items() if k != feature["kind"] and matches(wanted, n))
    if elsewhere:
        return "named by a finding of " + " ".join(elsewhere)
    spirits = {s for _, _, s in chart.spirits} & wanted
    if spirits:
        return f"{'、'.join(sorted(spirits))} is on the chart; no encoded line makes it a sign of this matter"
    if wanted & {"干上", "支上", "干支", "干支上神"} or any(w.startswith(("干", "支")) for w in wanted if len(w) > 1):
        return "a reading of the stem's or branch's upper no encoded rule makes"
    return "no encoded rule reads this"


def judged_cases(session):
    """Each judged case as (case, its chart as the book gives it, the chart cast with its matter);
    the chart is None for a case whose matter is none of the twelve. A case whose text states the
    querent's 年命 is cast with it (``nianming.given``: born, natal or xingnian); each with the
    question as the book words it (its words may name the question within the matter)."""
    charts = {c["seq"]: c for c in json.loads((CASES / "zhinan_cases.json").read_text("utf-8"))}
    for case in json.loads((CASES / "zhinan_judgements.json").read_text("utf-8")):
        chart_in = charts[case["seq"]]
        matter = MATTERS.get(case["matter"], case["matter"])
        month = MONTHS.get(chart_in["month"].removeprefix("閏")[0])
        yield case, chart_in, None if matter == "其他" else session.cast(
            chart_in["day"], jiang=chart_in["yuejiang"], hour=chart_in["hour"], month=month, year=chart_in["year"],
            matter=matter, question=case["question"], **case.get("nianming", {}).get("given", {}))


def recall(session) -> dict:
    """Per case: the features found and missed; totals by kind (kinds the chart decides) and apart."""
    from liuren_logic.explain.judgement import judgement_data

    hits, totals, apart, rows, sizes, life = Counter(), Counter(), Counter(), [], [], []
    for case, chart_in, chart in judged_cases(session):
        if chart is None:
            apart["其他"] += len(case["findings"])
            continue
        matter = chart.rows("matter")[0][0]
        judged = judgement_data(chart)
        sizes.append(len(judged["findings"]))
        names = named(judged)
        for feature in case["findings"]:
            kind = feature["kind"]
            if kind in APART:
                apart[kind] += 1
                if kind == "年命":
                    given = case.get("nianming", {}).get("given", {})
                    life.append((case["seq"], feature["text"], feature["about"], given,
                                 matches(tokens(feature["about"]), names.get("年命", set()))))
                continue
            found = matches(tokens(feature["about"]), names.get(kind, set()))
            totals[kind] += 1
            hits[kind] += found
            why = "" if found else reason(chart, chart_in, feature, names)
            rows.append((case["seq"], matter, chart.sanchuan, kind, feature["text"], feature["about"], why))
    return {"hits": hits, "totals": totals, "apart": apart, "rows": rows, "sizes": sizes, "life": life}


def markdown(result: dict) -> str:
    hits, totals = result["hits"], result["totals"]
    lines = ["| kind | found | cited | recall |", "|---|---|---|---|"]
    for kind in sorted(totals, key=lambda k: (-totals[k], k)):
        lines.append(f"| {kind} | {hits[kind]} | {totals[kind]} | {hits[kind] / totals[kind]:.0%} |")
    lines.append(f"| **all** | {sum(hits.values())} | {sum(totals.values())} | {sum(hits.values()) / sum(totals.values()):.0%} |")
    apart = ", ".join(f"{k} {n}" for k, n in sorted(result["apart"].items()))
    sizes = sorted(result["sizes"])
    lines += ["", f"Counted apart: {apart}. Findings per chart: median {sizes[len(sizes) // 2]}, "
              f"{sizes[0]}–{sizes[-1]} ({len(sizes)} charts).", "", "Misses:", "",
              "| seq | matter | 三傳 | kind | the 斷's words | about | why missed |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {seq} | {m} | {sc} | {k} | {text} | {about} | {why} |" for seq, m, sc, k, text, about, why in result["rows"] if why]
    life = result["life"]
    fed = [row for row in life if row[3]]
    lines += ["", f"年命 (counted apart): {sum(found for *_, found in life)} of {len(life)} found; "
              f"{len({row[0] for row in fed})} cases state the querent's own 年命 and are cast with it "
              f"({sum(found for *_, found in fed)} of their {len(fed)} features found).", "",
              "| seq | the 斷's words | about | given | found |", "|---|---|---|---|---|"]
    lines += [f"| {seq} | {text} | {about} | {' '.join(f'{k}={v}' for k, v in given.items()) or '—'} | "
              f"{'yes' if found else 'no'} |" for seq, text, about, given, found in life]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from liuren_logic import Session

    print(markdown(recall(Session())))
