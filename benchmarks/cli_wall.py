#!/usr/bin/env python3
"""Whole ``liuren`` processes beside a kinliuren script casting the same chart: start-up as ratios.

Every round runs the kinliuren script and each command once, in turn, so that both sides
share the machine's load (the host is shared: the figures are ratios of medians over the
same rounds, with the load average before and after). A warm command finds its cache filled
(one untimed run first); ``cast, first`` is ``liuren cast`` with an empty cache directory of
its own (``$LIUREN_CACHE``), as a new user's first command after install; ``cast --at, new moment``
casts another moment every round (:func:`moment`), none cast before in its cache directory (one
of its own for the run, filled by the untimed round), so that nothing kept for one chart, such as
its disputes, answers for it. Each figure is the
minimum and the median wall time over ``--runs`` rounds, interpreter start included, and the
median CPU time (user + system) of the process. The package's modules are byte-compiled
first, as ``pip install`` does (an editable install under ``PYTHONDONTWRITEBYTECODE`` would
otherwise compile every module at every start). The floor rows (:data:`FLOOR`) time parts of a
cast's start as processes of their own, and the live rows (:data:`LIVE`) a command run again in one
process: where the whole process's time goes, as ratios to the same script.

    python benchmarks/cli_wall.py                      # every row, 7 rounds
    python benchmarks/cli_wall.py --only cast --floor --runs 11 --report benchmarks/reports/cli_wall.md
    python benchmarks/cli_wall.py --runs 3 --json wall.json
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

CHART = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
KINLIUREN = ("from kinliuren.kinliuren import Liuren\n"
             "r = Liuren('小雪', '十', '辛巳', '甲午').result(0)\n"
             "print(r['三傳'])\n")
FIRST = "cast, first"  # the row run with an empty cache directory each round
NEW = "cast --at, new moment"  # the row that casts a moment not cast before each round (moment)
# (row, arguments of liuren, target in seconds)
ROWS = [
    ("cast", ["cast", *CHART], 0.3),
    (FIRST, ["cast", *CHART], 2.5),
    (NEW, ["cast", "--at"], 0.3),
    ("cast --json", ["cast", *CHART, "--json"], 0.3),
    ("why initial", ["why", "initial", *CHART], 0.3),
    ("why-not initial 丑", ["why-not", "initial", "丑", *CHART], 0.3),
    ("teach", ["teach", *CHART], 0.3),
    ("table", ["table"], 0.8),
    ("audit --vs punishment=seed000", ["audit", "--vs", "punishment=seed000"], 2.5),
]
# The floor under a warm cast, each a whole process of this interpreter beside the kinliuren script: what a
# cast pays before it evaluates anything. (row, Python code run with -c)
CAST_IMPORTS = ("liuren_logic.faces.cli", "liuren_logic.faces.chart_request", "liuren_logic.domain.session",
                "liuren_logic.explain.board")  # what `liuren cast` imports before its work (cli.cmd_cast)
FLOOR = [
    ("python, nothing imported", "pass"),
    ("the modules a cast imports", f"import {', '.join(CAST_IMPORTS)}"),
    ("those, and the default school loaded", f"import gc, {', '.join(CAST_IMPORTS)}\ngc.disable()\n"
                                            "liuren_logic.domain.session.Session()\ngc.freeze()"),  # as the CLI loads
]
# The same commands run again and again in one live process, as a process kept between commands would
# run them: (row, the liuren arguments of each run; "{moment}" is a new moment each run). The code prints
# the median seconds of the runs after the first.
LIVE = [
    ("`liuren cast`, again in a live process", ["cast", *CHART]),
    ("`liuren cast --at` a new moment, in a live process", ["cast", "--at", "{moment}"]),
]
LIVE_CODE = """import contextlib, io, json, statistics, sys, time
from liuren_logic.faces import cli
argv, moments = json.loads(sys.argv[1]), json.loads(sys.argv[2])
seconds = []
for moment in moments:
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli.run([arg.replace("{moment}", moment) for arg in argv])
    seconds.append(time.perf_counter() - start)
print(statistics.median(seconds[1:]))
"""
LIVE_RUNS = 6  # runs in each live process, the first not counted


# The targets of issue 39 as ratios: (what, numerator row, denominator row, at most)
RATIOS = [
    ("`liuren cast` / kinliuren script", "cast", "kinliuren", 3.0),
    ("`liuren cast --at` a new moment / kinliuren script", NEW, "kinliuren", 3.0),
    ("first `liuren cast` (empty cache) / warm `liuren cast`", FIRST, "cast", 4.0),
]


def moment(round_: int) -> str:
    """The moment the ``NEW`` row casts in this round: a different day and hour every round (37 days
    and 5 hours apart, from 1990-01-01 12:00), so a different chart."""
    when = datetime(1990, 1, 1, 12) + timedelta(days=37 * round_, hours=5 * round_)
    return when.strftime("%Y-%m-%d %H:%M")


def liuren_command() -> list[str]:
    """The ``liuren`` beside this interpreter (a venv's), else ``python -m liuren_logic.faces.cli``."""
    beside = Path(sys.executable).with_name("liuren")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("liuren")
    return [found] if found else [sys.executable, "-m", "liuren_logic.faces.cli"]


def compile_package() -> None:
    """Byte-compile liuren_logic and the folders it links to (explain), as an installed package is."""
    package = Path(importlib.util.find_spec("liuren_logic").submodule_search_locations[0])
    for folder in {package, *(d.resolve() for d in package.iterdir() if d.is_dir() and d.name != "__pycache__")}:
        compileall.compile_dir(folder, maxlevels=0, quiet=1)


def install_kind() -> str:
    """How liuren_logic is installed: as files (``pip install .``) or as a link to a checkout (``pip install -e``)."""
    origin = Path(importlib.util.find_spec("liuren_logic").origin).resolve()
    return "installed package (pip install .)" if "site-packages" in origin.parts else "editable install (pip install -e)"


def commit() -> str:
    """The checkout's commit the benchmark runs from ('' outside a git checkout)."""
    done = subprocess.run(["git", "-C", str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; a failing command stops the benchmark."""
    start, cpu = time.perf_counter(), cpu_of_children()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    seconds, used = time.perf_counter() - start, cpu_of_children() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return seconds, used


def live(args: list[str], round_: int) -> float:
    """The median seconds of a command run :data:`LIVE_RUNS` times in one process, less its first run;
    each run a moment of its own (none another round uses), so a moment's disputes are weighed afresh."""
    moments = [moment(1000 + LIVE_RUNS * round_ + k) for k in range(LIVE_RUNS)]
    done = subprocess.run([sys.executable, "-c", LIVE_CODE, json.dumps(args), json.dumps(moments)],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise SystemExit(f"a live process of {' '.join(args)} failed: {done.stderr.strip()}")
    return float(done.stdout)


def first_run(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) of a run with an empty cache directory of its own (removed after)."""
    with tempfile.TemporaryDirectory(prefix="liuren-first-") as empty:
        return timed(argv, {**os.environ, "LIUREN_CACHE": empty})


def measure(runs: int, rows=ROWS, with_floor: bool = True) -> dict:
    """``runs`` rounds, each the kinliuren script, every row and (``with_floor``) every row of
    :data:`FLOOR` and :data:`LIVE` once, in turn, after one untimed round."""
    liuren = liuren_command()
    compile_package()
    kinliuren = [sys.executable, "-c", KINLIUREN]
    floor, live_rows = (FLOOR, LIVE) if with_floor else ([], [])
    times: dict[str, list] = {"kinliuren": [], **{name: [] for name, _, _ in rows},
                              **{name: [] for name, _ in floor + live_rows}}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="liuren-new-") as fresh:
        new = {**os.environ, "LIUREN_CACHE": fresh}  # no moment of the NEW row was cast in it before
        for round_ in range(runs + 1):
            got = {"kinliuren": timed(kinliuren)}
            for name, args, _ in rows:
                if name == FIRST:
                    got[name] = first_run(liuren + args)
                elif name == NEW:
                    got[name] = timed(liuren + args + [moment(round_)], new)
                else:
                    got[name] = timed(liuren + args)
            for name, code in floor:
                got[name] = timed([sys.executable, "-c", code])
            for name, args in live_rows:
                got[name] = (live(args, round_), 0.0)  # no CPU time of its own: its runs' wall time
            if round_:  # the first round warms the caches
                for name, pair in got.items():
                    times[name].append(pair)
    figures = {name: {"min_s": min(w for w, _ in pairs), "median_s": statistics.median(w for w, _ in pairs),
                      "cpu_s": statistics.median(c for _, c in pairs)} for name, pairs in times.items()}
    kin = figures["kinliuren"]
    out = {"runs": runs, "cpus": os.cpu_count(), "load_before": load_before[0], "load_after": os.getloadavg()[0],
           "python": sys.version.split()[0], "install": install_kind(), "commit": commit(),
           "when": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "kinliuren_s": kin["median_s"], "kinliuren_min_s": kin["min_s"], "kinliuren_cpu_s": kin["cpu_s"], "rows": []}
    for name, args, target in rows:
        row = figures[name]
        out["rows"].append({"command": f"liuren {name}", "median_s": row["median_s"], "min_s": row["min_s"],
                            "cpu_s": row["cpu_s"], "kinliuren_ratio": row["median_s"] / kin["median_s"],
                            "cpu_ratio": row["cpu_s"] / kin["cpu_s"], "target_s": target,
                            "meets_target": row["median_s"] <= target})
    out["floor"] = [{"what": name, "median_s": figures[name]["median_s"], "min_s": figures[name]["min_s"],
                     "cpu_s": figures[name]["cpu_s"], "kinliuren_ratio": figures[name]["median_s"] / kin["median_s"]}
                    for name, _ in floor]
    out["live"] = [{"what": name, "median_s": figures[name]["median_s"], "min_s": figures[name]["min_s"],
                    "kinliuren_ratio": figures[name]["median_s"] / kin["median_s"]} for name, _ in live_rows]
    out["ratios"] = []
    for what, top, bottom, most in RATIOS:
        if top in figures and bottom in figures:
            median = figures[top]["median_s"] / figures[bottom]["median_s"]
            out["ratios"].append({"ratio": what, "median": median, "min": figures[top]["min_s"] / figures[bottom]["min_s"],
                                  "target": most, "meets_target": median <= most})
    return out


def report(figures: dict) -> str:
    lines = [f"{figures['install']}, Python {figures['python']}, {figures['runs']} rounds, load average "
             f"{figures['load_before']:.1f} → {figures['load_after']:.1f} on {figures['cpus']} CPUs",
             f"{'command':<40}{'min':>9}{'median':>9}{'CPU':>9}{'× kin':>8}{'target':>10}",
             f"{'kinliuren script (same chart)':<40}{figures['kinliuren_min_s']:>8.3f}s{figures['kinliuren_s']:>8.3f}s"
             f"{figures['kinliuren_cpu_s']:>8.3f}s{1:>8.1f}{'':>10}"]
    for row in figures["rows"]:
        mark = "" if row["meets_target"] else "  (over)"
        lines.append(f"{row['command']:<40}{row['min_s']:>8.3f}s{row['median_s']:>8.3f}s{row['cpu_s']:>8.3f}s"
                     f"{row['kinliuren_ratio']:>8.1f}{'≤ ' + str(row['target_s']) + ' s':>10}{mark}")
    for row in figures["floor"]:
        lines.append(f"{row['what']:<40}{row['min_s']:>8.3f}s{row['median_s']:>8.3f}s{row['cpu_s']:>8.3f}s"
                     f"{row['kinliuren_ratio']:>8.1f}")
    for row in figures["live"]:
        lines.append(f"{row['what']:<40}{row['min_s']:>8.3f}s{row['median_s']:>8.3f}s{'':>9}{row['kinliuren_ratio']:>8.1f}")
    for ratio in figures["ratios"]:
        mark = "" if ratio["meets_target"] else "  (over)"
        lines.append(f"{ratio['ratio']}: {ratio['median']:.2f} (of minima {ratio['min']:.2f}; target ≤ {ratio['target']:g}){mark}")
    return "\n".join(lines)


def markdown(figures: dict) -> str:
    """The figures as a generated Markdown report (benchmarks/README.md says where it goes)."""
    head = (f"# Whole commands beside a kinliuren script\n\nGenerated by `python benchmarks/cli_wall.py` on "
            f"{figures['when']} at {figures['commit'] or 'an unknown commit'}: {figures['install']}, Python "
            f"{figures['python']}, {figures['runs']} "
            f"rounds (each the kinliuren script and every command once, in turn), load average "
            f"{figures['load_before']:.1f} before and {figures['load_after']:.1f} after, {figures['cpus']} CPUs. "
            "Wall seconds; CPU is the process's user + system time.\n\n")
    table = ["| command | min | median | CPU | median × kinliuren | target |", "|---|---:|---:|---:|---:|---|",
             f"| kinliuren script (same chart) | {figures['kinliuren_min_s']:.3f} | {figures['kinliuren_s']:.3f} | "
             f"{figures['kinliuren_cpu_s']:.3f} | 1 | |"]
    table += [f"| `{row['command']}` | {row['min_s']:.3f} | {row['median_s']:.3f} | {row['cpu_s']:.3f} | "
              f"{row['kinliuren_ratio']:.1f} | ≤ {row['target_s']} s{'' if row['meets_target'] else ' (over)'} |"
              for row in figures["rows"]]
    floor = ["", "The floor under a warm cast: the same interpreter doing only part of a cast's start (`FLOOR`).", "",
             "| process | min | median | CPU | median × kinliuren |", "|---|---:|---:|---:|---:|"]
    floor += [f"| {row['what']} | {row['min_s']:.3f} | {row['median_s']:.3f} | {row['cpu_s']:.3f} | "
              f"{row['kinliuren_ratio']:.1f} |" for row in figures["floor"]]
    floor += ["", "The work of a command alone: the command run again in one live process (`LIVE`; the median of "
              f"{LIVE_RUNS - 1} runs after a first, in each round), beside the kinliuren script's whole process.", "",
              "| in a live process | min | median | median × kinliuren |", "|---|---:|---:|---:|"]
    floor += [f"| {row['what']} | {row['min_s']:.3f} | {row['median_s']:.3f} | {row['kinliuren_ratio']:.1f} |"
              for row in figures["live"]]
    ratios = ["", "| ratio | of medians | of minima | target |", "|---|---:|---:|---|"]
    ratios += [f"| {r['ratio']} | {r['median']:.2f} | {r['min']:.2f} | ≤ {r['target']:g}{'' if r['meets_target'] else ' (over)'} |"
               for r in figures["ratios"]]
    return head + "\n".join(table + (ratios if figures["ratios"] else []) + (floor if figures["floor"] else [])) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="liuren commands as whole processes against a kinliuren script")
    parser.add_argument("--runs", type=int, default=7, help="timed rounds after one warm-up (default 7)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--report", type=Path, help="also write them as a Markdown report (benchmarks/reports/)")
    parser.add_argument("--only", help="only the rows whose command contains this text (and no floor rows)")
    parser.add_argument("--floor", action="store_true", help="the floor and live rows also with --only")
    args = parser.parse_args(argv)
    rows = [r for r in ROWS if not args.only or args.only in r[0]]
    figures = measure(max(args.runs, 1), rows, with_floor=not args.only or args.floor)
    print(report(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=1), "utf-8")
    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(markdown(figures), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
