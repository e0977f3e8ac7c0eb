#!/usr/bin/env python3
"""How well the 斷's answer agrees with 《六壬指南》 卷三's recorded answers on its 55 judged cases.

    python benchmarks/judgement_eval.py            # the figures, then one line per case
    python benchmarks/judgement_eval.py --markdown # the same as docs/judgement.md's tables

Each case of tests/data/cases/zhinan_verdicts.json is cast as tests/judgement_recall.py casts it
(its day, 月將, hour, lunar month and year, with its matter and any 年命 the case states). Printed:

- direction: the answer's direction (its polarity's last term: 先凶後吉 → 吉) against the label's
  (``success`` where given, else the polarity's last term; 吉中有凶 alone has none), beside a
  constant 吉 on the same cases; an answer of 吉凶參半 counts as unanswered, not as wrong;
- answered: the cases with a direction-bearing answer, of all 55 and of the 47 whose matter is one
  of the twelve (the 8 of 其他 — 隱遁, 應候, 兵鬥 — are cast with no matter and get no answer);
- 應期: the answer's one branch among the label's ``when_branches``, beside a random branch (the
  cases' mean of len(when_branches) / 12);
- recall: the book's cited features (as judgement_recall counts them) named by the chart's findings,
  and by the answer's reasons alone, each beside the same figure on an unrelated chart of the
  same matter (the day 31 places on in the sexagenary cycle, the hour 5 on): a measure that a
  chart cast for nothing in particular meets as often rewards listing, not reading.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from judgement_recall import APART, CASES, judged_cases, matches, named, tokens  # noqa: E402

STEMS, BRANCHES = "甲乙丙丁戊己庚辛壬癸", "子丑寅卯辰巳午未申酉戌亥"
PILLARS = [STEMS[i % 10] + BRANCHES[i % 12] for i in range(60)]


def direction_of(polarity, success=None):
    """吉, 凶 or None: ``success`` where given, else the polarity's last term (吉中有凶 and 吉凶參半: none)."""
    if success is not None:
        return "吉" if success else "凶"
    if polarity in (None, "吉中有凶", "吉凶參半"):
        return None
    return polarity[-1]


def unrelated(session, chart_in: dict, matter: str):
    """A chart of the same matter cast for another moment: the day 31 places on, the hour 5 on."""
    day = PILLARS[(PILLARS.index(chart_in["day"]) + 31) % 60]
    hour = BRANCHES[(BRANCHES.index(chart_in["hour"]) + 5) % 12]
    return session.cast(day, jiang=chart_in["yuejiang"], hour=hour, matter=matter)


def cited_found(case: dict, judged: dict, reasons_only: bool) -> tuple[int, int]:
    """The case's cited features (kinds the chart decides) a finding of the same kind names: (found, cited).
    ``reasons_only``: only the findings the answer used."""
    features = [f for f in case["findings"] if f["kind"] not in APART]
    if reasons_only:  # a reason of any kind naming what the feature names
        said = {n for r in (judged.get("answer") or {}).get("reasons", []) for n in [*r["about"], r["name"]]}
        return sum(matches(tokens(f["about"]), said) for f in features), len(features)
    names = named(judged)
    return sum(matches(tokens(f["about"]), names.get(f["kind"], set())) for f in features), len(features)


def evaluate(session) -> dict:
    from liuren_logic.explain.judgement import judgement_data

    labels = {v["seq"]: v for v in json.loads((CASES / "zhinan_verdicts.json").read_text("utf-8"))}
    rows, recall = [], Counter()
    for case, chart_in, chart in judged_cases(session):
        label = labels[case["seq"]]
        want = direction_of(label["polarity"], label["success"])
        answer = None
        if chart is not None:
            judged = judgement_data(chart)
            answer = judged.get("answer")
            other = judgement_data(unrelated(session, chart_in, chart.rows("matter")[0][0]))
            for key, data, only in (("own", judged, False), ("other", other, False),
                                    ("own_reasons", judged, True), ("other_reasons", other, True)):
                found, cited = cited_found(case, data, only)
                recall[key] += found
                recall[key + "_cited"] += cited
        got = direction_of(answer["polarity"], answer.get("success")) if answer else None
        timing = answer["timing"]["branch"] if answer and answer.get("timing") else None
        rows.append({"seq": case["seq"], "matter": case["matter"], "want": want, "got": got,
                     "polarity": answer["polarity"] if answer else None, "label": label["polarity"],
                     "when": label["when_branches"], "timing": timing,
                     "deciding": [r["name"].removeprefix("weigh.") + "→" + r["points"] + ("×" if r["outranked_by"] else "") for r in answer.get("reasons", [])[:4]] if answer else []})
    return {"rows": rows, "recall": recall}


def figures(result: dict) -> list[tuple[str, str]]:
    rows, recall = result["rows"], result["recall"]
    directed = [r for r in rows if r["want"]]
    answered = [r for r in directed if r["got"]]
    agree = sum(r["got"] == r["want"] for r in answered)
    constant = sum(r["want"] == "吉" for r in directed)
    matter = [r for r in rows if r["matter"] != "其他"]
    timed = [r for r in rows if r["when"]]
    hit = sum(r["timing"] in r["when"] for r in timed)
    chance = sum(len(r["when"]) / 12 for r in timed)

    def pct(a, b):
        return f"{a} of {b} ({a / b:.0%})" if b else "—"

    return [("direction, of the cases answered", pct(agree, len(answered))),
            ("direction, of all cases with a direction (unanswered count as wrong)", pct(agree, len(directed))),
            ("constant 吉, of all cases with a direction", pct(constant, len(directed))),
            ("constant 吉, of the cases answered", pct(sum(r["want"] == "吉" for r in answered), len(answered))),
            ("answered (a direction), of all 55", pct(sum(bool(r["got"]) for r in rows), len(rows))),
            ("answered, of the 47 with a matter", pct(sum(bool(r["got"]) for r in matter), len(matter))),
            ("吉凶參半 (undecided)", str(sum(r["polarity"] == "吉凶參半" for r in rows))),
            ("應期 branch in the book's, of cases naming one", pct(hit, len(timed))),
            ("應期 by a random branch (expected)", f"{chance:.1f} of {len(timed)} ({chance / len(timed):.0%})"),
            ("findings recall, own chart", pct(recall["own"], recall["own_cited"])),
            ("findings recall, unrelated chart of the matter", pct(recall["other"], recall["other_cited"])),
            ("answer's reasons recall, own chart", pct(recall["own_reasons"], recall["own_reasons_cited"])),
            ("answer's reasons recall, unrelated chart", pct(recall["other_reasons"], recall["other_reasons_cited"]))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="tables as docs/judgement.md has them")
    args = parser.parse_args()
    from liuren_logic import Session

    result = evaluate(Session())
    if args.markdown:
        print("| measure | figure |\n|---|---|")
        print("\n".join(f"| {name} | {value} |" for name, value in figures(result)))
        print("\n| seq | matter | book | answer | 應期 book | 應期 answer | first reasons |\n|---|---|---|---|---|---|---|")
        for r in result["rows"]:
            mark = "" if not r["got"] or not r["want"] else (" ✓" if r["got"] == r["want"] else " ✗")
            print(f"| {r['seq']} | {r['matter']} | {r['label'] or '—'} ({r['want'] or '—'}) | {r['polarity'] or '—'}{mark} | "
                  f"{''.join(r['when']) or '—'} | {r['timing'] or '—'} | {' '.join(r['deciding'])} |")
        return
    for name, value in figures(result):
        print(f"{name}: {value}")
    for r in result["rows"]:
        print(r["seq"], r["matter"], r["want"], r["got"], r["polarity"], r["when"], r["timing"], *r["deciding"])


if __name__ == "__main__":
    main()
