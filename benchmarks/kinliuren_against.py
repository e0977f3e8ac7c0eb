#!/usr/bin/env python3
"""kinliuren's 三傳 on the 720 charts as ``liuren audit --against`` data.

Each chart (60 day pillars × 12 offsets) is asked of kinliuren under all twelve 月將, 子 to
亥: each given as the 中氣 that brings it, at the hour 月將 − offset with its stem by 五鼠遁
(as bench.py drives it at 午; benchmarks/README.md). The chart is the same at every hour, so
its 三傳 should be; kinliuren's are not on some charts. Its answer for a chart is the modal
one: the 三傳 it gives at the most hours (an hour where it raises gives none; a tie goes to
the answer under the earliest 月將 from 子). The charts where that answer is not the default
school's are written to kinliuren.json, one entry each (``day``, ``offset``, ``sanchuan``), with
a ``note`` of the hours behind it and kinliuren's 格局 (method and name).

kinliuren has two noble (貴人) tables, ``result(0)`` and ``result(1)``. kinliuren_noble.json holds
the branch 貴人 rides in the second on all 1440 charts (by day at 午, by night at 子), every
answer and not only the differences, so that a reading can be shown to give all of them. The
figures go to stderr.

    python benchmarks/kinliuren_against.py              # writes both into tests/data/against/
    python benchmarks/kinliuren_against.py --out DIR
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from bench import BRANCHES, chart_list, kinliuren_cast, new_session

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "against"


def by_jiang(liuren_class, day: str, offset: int) -> dict[str, tuple[str, str]]:
    """月將 (子 to 亥) → kinliuren's (三傳, 格局) for the chart under it; those where it raises are left out."""
    answers = {}
    for jiang in BRANCHES:
        hour = BRANCHES[(BRANCHES.index(jiang) - offset) % 12]
        try:
            cast = kinliuren_cast(liuren_class, day, offset, hour)
        except Exception:  # kinliuren fails on some charts: that hour gives no answer
            continue
        answers[jiang] = cast["sanchuan"], "".join(cast["method"])
    return answers


def modal(answers: dict[str, tuple[str, str]]) -> tuple[str, str, Counter]:
    """The 三傳 given at the most hours (a tie: the earliest 月將's), its 格局 there, and every 三傳's hours."""
    counts = Counter(sanchuan for sanchuan, _ in answers.values())  # in 月將 order: a tie keeps the earliest
    best = counts.most_common(1)[0][0]
    pattern = next(p for s, p in answers.values() if s == best)
    return best, pattern, counts


def ties(counts: Counter, best: str) -> bool:
    """Whether another 三傳 is given at as many hours as the modal one."""
    return sum(n == counts[best] for n in counts.values()) > 1


def note(best: str, pattern: str, counts: Counter, hours: int) -> str:
    """How the modal answer was taken: its hours, whether it ties, the other answers' hours."""
    others = "; ".join(f"{s} at {n}" for s, n in counts.most_common() if s != best)
    return (f"kinliuren's modal 三傳 over the 12 hours: {counts[best]} of {hours} answering"
            + (" (a tie: the earliest 月將 from 子)" if ties(counts, best) else "") + f", 格局 {pattern}"
            + (f"; {others}" if others else "") + (f"; {12 - hours} raise" if hours < 12 else ""))


def sanchuan_answers(session, liuren_class) -> list[dict]:
    """The charts where kinliuren's modal 三傳 is not the school's, each with a note; figures to stderr."""
    charts = chart_list(session, None)
    entries, unsteady, tied, silent = [], 0, 0, 0
    for day, offset in charts:
        answers = by_jiang(liuren_class, day, offset)
        if not answers:
            silent += 1
            continue
        best, pattern, counts = modal(answers)
        unsteady += len(counts) > 1
        tied += ties(counts, best)
        if best != session.cast_offset(day, offset).sanchuan:
            entries.append({"day": day, "offset": offset, "sanchuan": best,
                            "note": note(best, pattern, counts, len(answers))})
    print(f"{len(charts)} charts: kinliuren's modal 三傳 agrees on {len(charts) - silent - len(entries)}, "
          f"differs on {len(entries)}, none at any hour on {silent}; it changes with the hour on {unsteady}, "
          f"its mode ties on {tied}", file=sys.stderr)
    return entries


def noble_answers(session, liuren_class) -> list[dict]:
    """The branch 貴人 rides in kinliuren's second noble table on every chart, by day (午) and by night
    (子), where it answers; how often each table agrees with the school goes to stderr."""
    entries, agree = [], [0, 0]
    for daytime, hour in ((True, "午"), (False, "子")):
        for day, offset in chart_list(session, None):
            try:
                nobles = [kinliuren_cast(liuren_class, day, offset, hour, table)["noble"] for table in (0, 1)]
            except Exception:  # kinliuren fails on some charts: no answer there
                continue
            ours = session.cast_offset(day, offset, daytime=daytime).noble
            agree = [n + (noble == ours) for n, noble in zip(agree, nobles)]
            entries.append({"day": day, "offset": offset, "night": not daytime, "noble": nobles[1]})
    print(f"{2 * len(chart_list(session, None))} charts by day and night: kinliuren answers on {len(entries)}; "
          f"its noble agrees with ours "
          f"on {agree[0]} in its first table, on {agree[1]} in its second", file=sys.stderr)
    return entries


def write(path: Path, entries: list[dict]) -> None:
    """The entries as a JSON list, one a line."""
    path.write_text("[\n" + ",\n".join(" " + json.dumps(e, ensure_ascii=False) for e in entries) + "\n]\n", "utf-8")
    print(f"written to {path}", file=sys.stderr)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="the folder of kinliuren.json and kinliuren_noble.json")
    args = parser.parse_args(argv)
    from kinliuren.kinliuren import Liuren

    session = new_session()
    write(args.out / "kinliuren.json", sanchuan_answers(session, Liuren))
    write(args.out / "kinliuren_noble.json", noble_answers(session, Liuren))
    return 0


if __name__ == "__main__":
    sys.exit(main())
