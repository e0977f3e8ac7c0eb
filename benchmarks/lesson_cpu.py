#!/usr/bin/env python3
"""The lesson's own CPU time, in process: ``lesson_steps`` on a chart already cast.

Three charts: the seed chart from pillars (辛巳日寅將午時), a 涉害 chart (丁卯, offset 10), and
the seed chart cast from its moment for a querent (1998-11-30 12:00, born 1970, a man: month,
year and 年命 known, so every step and about 260 spirits). Each is cast in a fresh session
(so the explainer is cold, as in ``liuren teach``), then told once in zh; the figure is the
median CPU time (process time) over ``--runs`` fresh sessions, which a busy machine changes
far less than wall time. Start-up and loading are not counted (``cli_wall.py`` has them).

    python benchmarks/lesson_cpu.py             # 5 runs each
    python benchmarks/lesson_cpu.py --runs 3 --json lesson.json
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from liuren_logic import Session
from liuren_logic.explain.lesson import lesson_steps

CHARTS = {
    "pillars 辛巳日寅將午時": lambda s: s.cast("辛巳", "寅", "午"),
    "涉害 丁卯 offset 10": lambda s: s.cast_offset("丁卯", 10),
    "dated, with a querent": lambda s: s.cast_at("1998-11-30 12:00", "Asia/Shanghai", born=1970, sex="m"),
}


def measure(runs: int) -> dict[str, dict]:
    out = {}
    for name, cast in CHARTS.items():
        times, steps = [], 0
        for _ in range(runs):
            chart = cast(Session())
            chart.transmissions, chart.spirits, chart.patterns  # what the chart reads, outside the lesson
            start = time.process_time()
            steps = len(lesson_steps(chart, "zh"))
            times.append(time.process_time() - start)
        out[name] = {"cpu_median_s": round(statistics.median(times), 4), "steps": steps}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    figures = measure(args.runs)
    for name, row in figures.items():
        print(f"{name:26} {row['cpu_median_s'] * 1000:7.1f} ms CPU  ({row['steps']} steps)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
