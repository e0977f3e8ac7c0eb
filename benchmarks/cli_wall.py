#!/usr/bin/env python3
"""Whole ``liuren`` processes, wall time, warm, beside a kinliuren script casting the same chart.

Each command runs once to warm the caches (the school cache, the OS's file cache), then
``--runs`` times; the figures are the median wall time, interpreter start included, and the
median CPU time (user + system) of the process, which a busy machine changes far less: on
an idle machine the wall time is the CPU time and a few milliseconds. The package's modules are
byte-compiled first, as ``pip install`` does (an editable install under
``PYTHONDONTWRITEBYTECODE`` would otherwise compile every module at every start).

    python benchmarks/cli_wall.py                 # every row, 7 runs each
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
import time
from pathlib import Path

CHART = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
KINLIUREN = ("from kinliuren.kinliuren import Liuren\n"
             "r = Liuren('小雪', '十', '辛巳', '甲午').result(0)\n"
             "print(r['三傳'])\n")
# (row, arguments of liuren, target in seconds)
ROWS = [
    ("cast", ["cast", *CHART], 0.3),
    ("cast --json", ["cast", *CHART, "--json"], 0.3),
    ("why initial", ["why", "initial", *CHART], 0.3),
    ("why-not initial 丑", ["why-not", "initial", "丑", *CHART], 0.3),
    ("teach", ["teach", *CHART], 0.3),
    ("table", ["table"], 0.8),
    ("audit --vs punishment=seed000", ["audit", "--vs", "punishment=seed000"], 2.5),
]


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


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wall(argv: list[str], runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of ``runs`` runs after one warm-up; a failing command stops the benchmark."""
    walls, cpus = [], []
    for i in range(runs + 1):
        start, cpu = time.perf_counter(), cpu_of_children()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        seconds, used = time.perf_counter() - start, cpu_of_children() - cpu
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode('utf-8', 'replace').strip()}")
        if i:
            walls.append(seconds)
            cpus.append(used)
    return statistics.median(walls), statistics.median(cpus)


def measure(runs: int, rows=ROWS) -> dict:
    liuren = liuren_command()
    compile_package()
    kin, kin_cpu = wall([sys.executable, "-c", KINLIUREN], runs)
    out = {"runs": runs, "kinliuren_s": kin, "kinliuren_cpu_s": kin_cpu, "cpus": os.cpu_count(),
           "load": os.getloadavg()[0], "python": sys.version.split()[0], "rows": []}
    for name, args, target in rows:
        seconds, cpu = wall(liuren + args, runs)
        out["rows"].append({"command": f"liuren {name}", "median_s": seconds, "cpu_s": cpu,
                            "kinliuren_ratio": seconds / kin, "cpu_ratio": cpu / kin_cpu,
                            "target_s": target, "meets_target": seconds <= target})
    return out


def report(figures: dict) -> str:
    lines = [f"load average {figures['load']:.1f} on {figures['cpus']} CPUs, median of {figures['runs']} runs",
             f"{'command':<40}{'wall':>9}{'CPU':>9}{'CPU × kin':>11}{'target':>10}",
             f"{'kinliuren script (same chart)':<40}{figures['kinliuren_s']:>8.3f}s{figures['kinliuren_cpu_s']:>8.3f}s"
             f"{1:>11.1f}{'':>10}"]
    for row in figures["rows"]:
        mark = "" if row["meets_target"] else "  (over)"
        lines.append(f"{row['command']:<40}{row['median_s']:>8.3f}s{row['cpu_s']:>8.3f}s{row['cpu_ratio']:>11.1f}"
                     f"{'≤ ' + str(row['target_s']) + ' s':>10}{mark}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="liuren commands as whole processes against a kinliuren script")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command after one warm-up (default 7)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--only", help="only the rows whose command contains this text")
    args = parser.parse_args(argv)
    rows = [r for r in ROWS if not args.only or args.only in r[0]]
    figures = measure(max(args.runs, 1), rows)
    print(report(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
