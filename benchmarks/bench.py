#!/usr/bin/env python3
"""liuren-logic against kinliuren, side by side in one process, on the 720 day charts.

Each of the 720 charts is a day pillar (60) and an offset (12): hour 午, 月將 = 午 + offset.
Figures (see benchmarks/README.md for what each means and the targets):

  (a) kinliuren: ``Liuren(中氣, 月, 日干支, 時干支).result(0)`` per chart;
  (b) us: ``Session.cast_offset`` and reading 三傳, method, names, lessons, generals per chart;
  (c) us: ``Session.why(chart, "initial")`` per chart;
  (d) us: ``Session().table()`` and every property of every chart;
  (e) us: ``liuren_logic.domain.audit.compare`` of two schools, when that module exists;
  start-up (a fresh process to the first 三傳) and peak memory (a fresh process holding
  the table), both measured in subprocesses of this script.

    python benchmarks/bench.py                       # all 720 charts
    python benchmarks/bench.py --charts 3 --json out.json   # a smoke run

As a by-product it compares the 三傳 of both sides chart by chart.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import inspect
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from functools import cached_property
from pathlib import Path
from typing import Callable, Optional

STEMS = "甲乙丙丁戊己庚辛壬癸"
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
HOUR = "午"  # the day charts: the hour is 午 and 月將 = 午 + offset

# kinliuren takes a solar term, not the 月將: each 月將 from the 中氣 that brings it
# (雨水 → 亥 … 大寒 → 子, kinliuren's own table), with the lunar month of that 中氣.
ZHONGQI = {"亥": ("雨水", "正"), "戌": ("春分", "二"), "酉": ("穀雨", "三"), "申": ("小滿", "四"),
           "未": ("夏至", "五"), "午": ("大暑", "六"), "巳": ("處暑", "七"), "辰": ("秋分", "八"),
           "卯": ("霜降", "九"), "寅": ("小雪", "十"), "丑": ("冬至", "十一"), "子": ("大寒", "十二")}

# 五鼠遁: the stem of the 子 hour on a day of each stem (甲己 → 甲子 …).
RAT_STEM = {"甲": "甲", "己": "甲", "乙": "丙", "庚": "丙", "丙": "戊", "辛": "戊",
            "丁": "庚", "壬": "庚", "戊": "壬", "癸": "壬"}

STARTUP_OURS = ("from liuren_logic import Session\n"
                "s = Session({engine})\n"
                "c = s.cast('辛巳', jiang='寅', hour='午')\n"
                "assert c.sanchuan\n")
STARTUP_KIN = ("from kinliuren.kinliuren import Liuren\n"
               "r = Liuren('小雪', '十', '辛巳', '甲午').result(0)\n"
               "assert r['三傳']\n")

TARGETS = {"cast_ratio": 0.35, "why_ms_median": 5.0, "table_s": 0.5, "audit_s": 5.0,
           "startup_s": 1.0, "peak_mb": 300.0}


ENGINE: Optional[str] = None  # --engine: passed to every Session; None = the Session default


def new_session(**options):
    """A Session of the default school (or ``options``), with the chosen engine if any."""
    from liuren_logic import Session
    if ENGINE is not None:
        options["engine"] = ENGINE
    return Session(**options)


# inputs --------------------------------------------------------------------
def hour_pillar(day_stem: str, hour: str) -> str:
    """The hour's stem and branch on a day of ``day_stem`` (五鼠遁)."""
    stem = STEMS[(STEMS.index(RAT_STEM[day_stem]) + BRANCHES.index(hour)) % 10]
    return stem + hour


def jiang_of(offset: int) -> str:
    return BRANCHES[(BRANCHES.index(HOUR) + offset) % 12]


def kinliuren_inputs(day: str, offset: int, hour: str = HOUR) -> tuple[str, str, str, str]:
    """kinliuren's (節氣, 農曆月, 日干支, 時干支) for one of the 720 charts at ``hour`` (the day charts: 午)."""
    term, month = ZHONGQI[BRANCHES[(BRANCHES.index(hour) + offset) % 12]]
    return term, month, day, hour_pillar(day[0], hour)


def chart_list(session, limit: Optional[int]) -> list[tuple[str, int]]:
    """(day pillar, offset) in the order of ``Session.table``: 甲子 0…11, 乙丑 0…11, …"""
    pillars = sorted(session.base.query("pillar_index", [None, None, None]), key=lambda r: r[2])
    charts = [(s + b, o) for s, b, _ in pillars for o in range(12)]
    return charts[:limit] if limit is not None else charts


# timing helpers ------------------------------------------------------------
def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def timed_both(fn: Callable[[], object]) -> tuple[float, float, object]:
    """(wall, CPU seconds of this process, value): on a loaded machine CPU time is the better guide."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return None if a is None or not b else a / b


def rss_mb() -> float:
    """This process's peak resident set size so far, in MB.

    VmHWM from /proc where there is one: on Linux ru_maxrss of a child process also counts
    the parent's resident size at the fork, so a small child of a big parent looks big.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


# (a) kinliuren -------------------------------------------------------------
def kinliuren_cast(liuren_class, day: str, offset: int, hour: str = HOUR, table: int = 0) -> dict:
    """kinliuren's chart at ``hour`` with its noble table ``table`` (0: 甲戊庚牛羊, 1: its other one)."""
    result = liuren_class(*kinliuren_inputs(day, offset, hour)).result(table)
    passes = result["三傳"]
    board = result["天地盤"]
    return {"sanchuan": "".join(passes[k][0] for k in ("初傳", "中傳", "末傳")),
            "generals": [passes[k][1] for k in ("初傳", "中傳", "末傳")],
            "lessons": [result["四課"][k][0] for k in ("一課", "二課", "三課", "四課")],  # upper + lower
            "method": list(result["格局"]),
            "noble": board["天盤"][board["天將"].index("貴")]}  # the heavenly branch 貴人 rides


# (b), (c) ours ---------------------------------------------------------------
def our_cast(session, day: str, offset: int):
    chart = session.cast_offset(day, offset)
    chart.sanchuan, chart.method, chart.subnames, chart.lessons, chart.generals
    return chart


def chart_properties() -> list[str]:
    """Every public property of Chart (new ones are read as they are added)."""
    from liuren_logic.domain.chart import Chart
    return [name for name, value in inspect.getmembers(Chart)
            if not name.startswith("_") and isinstance(value, (property, cached_property))]


def extra_relations(session) -> list[str]:
    """spirit / pattern, once the KB declares them."""
    return [pred for pred in ("spirit", "pattern") if session.kb.declared(pred) is not None]


def full_table(limit: Optional[int]) -> dict:
    """(d): Session().table() and every conclusion of every chart; what was read, and the load time.

    With a limit the same work is done on the first ``limit`` charts (table()'s casts and
    prefetches, restricted), so smoke runs stay short.
    """
    load_s, session = timed(new_session)
    if limit is None or limit >= 720:
        charts = session.table()
    elif hasattr(session, "cast_many"):  # one batch, as table() casts
        charts = session.cast_many([session.offset_input(day, offset) for day, offset in chart_list(session, limit)])
    else:  # the older Session: casts one by one, then a prefetch per conclusion
        charts = [session.cast_offset(day, offset) for day, offset in chart_list(session, limit)]
        for pred in ("offset", "chosen", "subname", "transmission", "lesson", "general", "hidden_stem", "void"):
            session.prefetch(pred)
    extras = extra_relations(session)
    if hasattr(session, "prefetch"):
        for pred in extras:
            if pred not in getattr(session, "_cache", {}):
                session.prefetch(pred)
    properties = chart_properties()
    read = 0
    for chart in charts:
        for name in properties:
            getattr(chart, name)
            read += 1
        for pred in extras:
            chart.rows(pred)
            read += 1
    return {"charts": len(charts), "values_read": read, "load_s": load_s, "extra_relations": extras}


# (e) the audit -------------------------------------------------------------
def find_audit() -> Optional[Callable]:
    try:
        module = importlib.import_module("liuren_logic.domain.audit")
    except ImportError:
        return None
    compare = getattr(module, "compare", None)
    return compare if callable(compare) else None


def run_audit(compare) -> None:
    compare(new_session(), new_session(readings={"punishment": "seed000"}))


# subprocesses --------------------------------------------------------------
def run_fresh(code: str) -> float:
    """Wall time of a fresh interpreter running ``code`` (interpreter start included)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def memory_probe(limit: Optional[int]) -> dict:
    """Peak RSS of a fresh process that holds the table with every conclusion read."""
    args = [sys.executable, __file__, "--probe-memory"]
    if ENGINE is not None:
        args += ["--engine", ENGINE]
    if limit is not None:
        args += ["--charts", str(limit)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


# the benchmark ------------------------------------------------------------
def per_chart(liuren_class, charts, repeat: int, log) -> tuple[dict, list[dict]]:
    """(a), (b), (c) interleaved chart by chart so both sides see the same machine load."""
    kin_t = [[] for _ in charts]
    cast_t = [[] for _ in charts]
    kin_cpu = [[] for _ in charts]
    cast_cpu = [[] for _ in charts]
    why_t = [[] for _ in charts]
    rows: list[dict] = []
    for rep in range(repeat):
        session = new_session()  # a new session per repeat: nothing is cached between repeats
        for i, (day, offset) in enumerate(charts):
            start, start_cpu = time.perf_counter(), time.process_time()
            try:
                kin = kinliuren_cast(liuren_class, day, offset)
            except Exception as error:  # kinliuren fails on some charts: record it, keep the time
                kin = {"error": f"{type(error).__name__}: {error}"}
            seconds, cpu = time.perf_counter() - start, time.process_time() - start_cpu
            seconds_b, cpu_b, chart = timed_both(lambda: our_cast(session, day, offset))
            seconds_c, _ = timed(lambda: session.why(chart, "initial"))
            kin_t[i].append(seconds)
            cast_t[i].append(seconds_b)
            kin_cpu[i].append(cpu)
            cast_cpu[i].append(cpu_b)
            why_t[i].append(seconds_c)
            if rep == 0:
                rows.append(compare_row(session, chart, day, offset, kin))
            if log and (i + 1) % 120 == 0:
                log(f"  repeat {rep + 1}/{repeat}: {i + 1}/{len(charts)} charts")
    times = {"kin": [median(t) for t in kin_t], "cast": [median(t) for t in cast_t],
             "why": [median(t) for t in why_t],
             "kin_cpu": [median(t) for t in kin_cpu], "cast_cpu": [median(t) for t in cast_cpu]}
    return times, rows


def compare_row(session, chart, day, offset, kin) -> dict:
    short = dict(session.base.query("general_short", [None, None]))
    ours_generals = [short.get(chart.generals.get(b), chart.generals.get(b)) for b in chart.sanchuan]
    return {"chart": chart.id, "day": day, "offset": offset, "jiang": jiang_of(offset),
            "kinliuren_inputs": list(kinliuren_inputs(day, offset)),
            "ours": {"sanchuan": chart.sanchuan, "method": chart.method, "subnames": chart.subnames,
                     "generals": ours_generals,
                     "lessons": [lesson.upper + lesson.lower for lesson in chart.lessons]},
            "kinliuren": kin}


def summarise_disagreements(rows: list[dict]) -> dict:
    errors = [r for r in rows if "error" in r["kinliuren"]]
    differ = [r for r in rows if "error" not in r["kinliuren"]
              and r["kinliuren"]["sanchuan"] != r["ours"]["sanchuan"]]
    generals = [r for r in rows if "error" not in r["kinliuren"]
                and r["kinliuren"]["sanchuan"] == r["ours"]["sanchuan"]
                and r["kinliuren"]["generals"] != r["ours"]["generals"]]
    lessons = [r for r in rows if "error" not in r["kinliuren"]
               and r["kinliuren"]["lessons"] != r["ours"]["lessons"]]
    by_method = Counter(r["ours"]["method"] for r in differ)
    by_name = Counter("·".join([r["ours"]["method"] or "—"] + r["ours"]["subnames"]) for r in differ)
    return {"kinliuren_disagreements": len(differ),
            "kinliuren_errors": len(errors),
            "disagreements_by_our_method": dict(by_method.most_common()),
            "disagreements_by_our_name": dict(by_name.most_common()),
            "general_disagreements": len(generals),
            "lesson_disagreements": len(lessons),  # 四課: 0 shows both sides cast the same chart
            "disagreeing_charts": [{"chart": r["chart"], "kinliuren_inputs": r["kinliuren_inputs"],
                                    "ours": r["ours"], "kinliuren": r["kinliuren"]} for r in differ],
            "kinliuren_error_charts": [{"chart": r["chart"], "kinliuren_inputs": r["kinliuren_inputs"],
                                        "ours": r["ours"], "error": r["kinliuren"]["error"]} for r in errors],
            "agreeing_charts": len(rows) - len(differ) - len(errors)}


def bench(limit: Optional[int], repeat: int, audit_mode: str, log=print) -> dict:
    try:
        from kinliuren.kinliuren import Liuren
    except ImportError:
        raise SystemExit("bench.py: kinliuren is not installed (pip install '.[bench]')")
    first = new_session()
    charts = chart_list(first, limit)
    engine = getattr(first, "engine", None)  # None: a Session with one engine only
    del first
    full = len(charts) == 720
    log(f"{len(charts)} charts, repeat {repeat}")

    log("(a)+(b)+(c): kinliuren, our cast, why(initial), chart by chart …")
    times, rows = per_chart(Liuren, charts, repeat, log)
    kin_ms = median(times["kin"]) * 1000 if median(times["kin"]) is not None else None
    cast_ms = median(times["cast"]) * 1000
    why_ms = median(times["why"]) * 1000
    kin_total = sum(t for t in times["kin"] if t is not None)

    log("(d): the table with every conclusion …")
    table_runs, table_cpu, table_load = [], [], []
    for _ in range(repeat):
        gc.collect()
        seconds, cpu, table = timed_both(lambda: full_table(limit))
        table_runs.append(seconds)
        table_cpu.append(cpu)
        table_load.append(table["load_s"])
    table_s = median(table_runs)

    compare = find_audit()
    audit_s, audit_cpu_s, audit_note = None, None, None
    if compare is None:
        audit_note = "not available: liuren_logic.domain.audit.compare does not exist"
    elif audit_mode == "never" or (audit_mode == "auto" and not full):
        audit_note = "skipped (runs on the full 720-chart run, or with --audit always)"
    else:
        log("(e): the audit of two schools …")
        try:
            runs = [timed_both(lambda: run_audit(compare))[:2] for _ in range(repeat)]
            audit_s, audit_cpu_s = median([w for w, _ in runs]), median([c for _, c in runs])
        except Exception as error:  # the audit is someone else's module: report, do not die
            audit_note = f"failed: {type(error).__name__}: {error}"

    log("start-up and peak memory, in fresh processes …")
    option = "" if ENGINE is None else f"engine={ENGINE!r}"
    startup_s = median([run_fresh(STARTUP_OURS.format(engine=option)) for _ in range(repeat)])
    kin_startup_s = median([run_fresh(STARTUP_KIN) for _ in range(repeat)])
    probe = memory_probe(limit)

    result = {
        "charts": len(charts),
        "repeat": repeat,
        "engine": engine,
        "kinliuren_ms_median": kin_ms,
        "cast_ms_median": cast_ms,
        "cast_ratio": ratio(cast_ms, kin_ms),
        "kinliuren_cpu_ms_median": median(times["kin_cpu"]) * 1000,
        "cast_cpu_ms_median": median(times["cast_cpu"]) * 1000,
        "cast_cpu_ratio": ratio(median(times["cast_cpu"]), median(times["kin_cpu"])),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "why_ms_median": why_ms,
        "why_ratio": ratio(why_ms, kin_ms),
        "kinliuren_total_s": kin_total,
        "cast_total_s": sum(times["cast"]),
        "why_total_s": sum(times["why"]),
        "table_s": table_s,
        "table_cpu_s": median(table_cpu),
        "table_load_s": median(table_load),
        "table_without_load_s": table_s - median(table_load),
        "table_ratio": ratio(table_s, kin_total),
        "table_charts": table["charts"],
        "table_values_read": table["values_read"],
        "table_properties": chart_properties(),
        "table_extra_relations": table["extra_relations"],
        "audit_s": audit_s,
        "audit_cpu_s": audit_cpu_s,
        "audit_ratio": ratio(audit_s, 2 * kin_total) if audit_s is not None else None,
        "audit_note": audit_note,
        "startup_s": startup_s,
        "kinliuren_startup_s": kin_startup_s,
        "startup_ratio": ratio(startup_s, kin_startup_s),
        "peak_mb": probe["peak_mb"],
        "peak_table_s": probe["table_s"],
        "process_peak_mb": rss_mb(),
        "targets": TARGETS,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
    }
    result.update(summarise_disagreements(rows))
    result["meets_targets"] = {key: None if result[key] is None else result[key] <= bound
                               for key, bound in TARGETS.items()}
    return result


def fmt(value, unit="", digits=2):
    return "n/a" if value is None else f"{value:.{digits}f}{unit}"


def report(r: dict, sample: int) -> str:
    lines = [
        f"liuren-logic ({r['engine'] or 'pyDatalog'} engine) vs kinliuren on {r['charts']} day charts "
        f"(hour 午), repeat {r['repeat']}",
        "",
        f"{'figure':<34}{'value':>12}{'ratio to (a)':>14}{'target':>10}",
        f"{'(a) kinliuren result(0), median':<34}{fmt(r['kinliuren_ms_median'], ' ms'):>12}{'1.00':>14}{'':>10}",
        f"{'(b) cast + read, median':<34}{fmt(r['cast_ms_median'], ' ms'):>12}{fmt(r['cast_ratio']):>14}{'≤ 0.35':>10}",
        f"{'(c) why(initial), median':<34}{fmt(r['why_ms_median'], ' ms'):>12}{fmt(r['why_ratio']):>14}{'< 5 ms':>10}",
        f"{'(d) table + every conclusion':<34}{fmt(r['table_s'], ' s'):>12}{fmt(r['table_ratio']):>14}{'≤ 0.5 s':>10}",
        f"{'(e) audit of two schools':<34}{fmt(r['audit_s'], ' s'):>12}{fmt(r['audit_ratio']):>14}{'< 5 s':>10}",
        f"{'start-up to first 三傳':<34}{fmt(r['startup_s'], ' s'):>12}{fmt(r['startup_ratio']):>14}{'< 1 s':>10}",
        f"{'peak memory (table loaded)':<34}{fmt(r['peak_mb'], ' MB', 1):>12}{'':>14}{'< 300 MB':>10}",
        "",
        f"(a) total {r['kinliuren_total_s']:.2f} s; (b) total {r['cast_total_s']:.2f} s; "
        f"(c) total {r['why_total_s']:.2f} s; school load {r['table_load_s']:.2f} s; "
        f"kinliuren start-up {fmt(r['kinliuren_startup_s'], ' s')}",
        f"CPU: (a) {fmt(r['kinliuren_cpu_ms_median'], ' ms')}, (b) {fmt(r['cast_cpu_ms_median'], ' ms')} "
        f"(ratio {fmt(r['cast_cpu_ratio'])}); (d) {fmt(r['table_cpu_s'], ' s')} "
        f"({fmt(r['table_without_load_s'], ' s')} wall without the load); (e) {fmt(r['audit_cpu_s'], ' s')}; "
        f"load average {fmt(r['load_average'])}",
    ]
    if r["audit_note"]:
        lines.append(f"(e) {r['audit_note']}")
    lines += ["",
              f"三傳: {r['agreeing_charts']} charts agree, {r['kinliuren_disagreements']} differ, "
              f"kinliuren fails on {r['kinliuren_errors']}; on agreeing 三傳 the generals differ "
              f"on {r['general_disagreements']}; 四課 differ on {r['lesson_disagreements']}",
              ]
    if r["disagreements_by_our_method"]:
        lines.append("disagreements by our method: " + ", ".join(
            f"{k} {v}" for k, v in r["disagreements_by_our_name"].items()))
    for row in r["disagreeing_charts"][:sample]:
        ours, kin = row["ours"], row["kinliuren"]
        lines.append(f"  {row['chart']}: ours {ours['sanchuan']} {ours['method']}"
                     f"{'·' + '·'.join(ours['subnames']) if ours['subnames'] else ''}"
                     f"  kinliuren {kin['sanchuan']} {'·'.join(kin['method'])}")
    for row in r["kinliuren_error_charts"][:sample]:
        lines.append(f"  {row['chart']}: ours {row['ours']['sanchuan']} {row['ours']['method']}"
                     f"  kinliuren fails: {row['error']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="liuren-logic against kinliuren on the 720 day charts")
    parser.add_argument("--charts", type=int, default=None, metavar="N", help="only the first N charts (smoke runs)")
    parser.add_argument("--repeat", type=int, default=1, metavar="R",
                        help="repeat every measurement R times; per-chart and whole-run medians over repeats")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--audit", choices=("auto", "always", "never"), default="auto",
                        help="run (e): auto = only on the full 720-chart run")
    parser.add_argument("--sample", type=int, default=12, help="disagreements to print")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.add_argument("--engine", default=None,
                        help="Session(engine=…) for every session of ours (default: the Session default)")
    parser.add_argument("--probe-memory", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.charts is not None and not 1 <= args.charts <= 720:
        parser.error("--charts must be from 1 to 720")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    global ENGINE
    ENGINE = args.engine

    if args.probe_memory:  # internal: run in a fresh process by memory_probe()
        seconds, _ = timed(lambda: full_table(args.charts))
        print(json.dumps({"peak_mb": rss_mb(), "table_s": seconds}))
        return 0

    log = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    result = bench(args.charts, args.repeat, args.audit, log)
    print(report(result, args.sample))
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
