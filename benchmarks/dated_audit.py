#!/usr/bin/env python3
"""A dated audit as a whole process: hourly moments from 2023-01-01 under the default school
and ``punishment=seed000``, its wall and CPU time and its peak memory, for each count asked.

This is what ``audit.MAX_MOMENTS`` is set from: the largest count that stays under 500 MB with
a margin for the spread between runs. A count past the cap runs with the cap lifted for that
process only.

    python benchmarks/dated_audit.py                        # a year: 8760 moments
    python benchmarks/dated_audit.py --moments 43000 120000 --json dated.json
    python benchmarks/dated_audit.py --report json          # the audit writing its --json document
    python benchmarks/dated_audit.py --report html          # its text, and its --html page to a scratch file
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from cli_wall import compile_package

START = datetime(2023, 1, 1)
# the console script's own entry (cli.run), with the moment cap lifted to the count asked
PROGRAM = ("import sys, liuren_logic.domain.audit as A\n"
           "A.MAX_MOMENTS = max(A.MAX_MOMENTS, int(sys.argv.pop(1)))\n"
           "from liuren_logic.faces.cli import run\n"
           "sys.exit(run())\n")


COUNTS = re.compile(r": (\d+) of (\d+) charts \((\d+) moments\)")  # the English text report's first line


def audit_argv(moments: int, report: str, page: Path) -> list[str]:
    last = START + timedelta(hours=moments - 1)
    return [sys.executable, "-c", PROGRAM, str(moments), "audit", "--vs", "punishment=seed000", "--lang", "en",
            "--from", f"{START:%Y-%m-%d %H:%M}", "--to", f"{last:%Y-%m-%d %H:%M}", "--step", "1h",
            *{"text": [], "json": ["--json"], "html": ["--html", str(page)]}[report]]


def counts(output: bytes, as_json: bool) -> tuple[int, int]:
    """(distinct charts, changed charts) as the audit reported them."""
    if as_json:
        document = json.loads(output)
        return document["distinct"], document["changed"]
    changed, charts, _ = COUNTS.search(output.decode("utf-8")).groups()
    return int(charts), int(changed)


def run(moments: int, report: str) -> dict:
    """One audit of ``moments`` hourly moments: wall and CPU seconds, peak RSS, and what it counted."""
    started = datetime.now()
    with tempfile.TemporaryDirectory() as scratch:
        child = subprocess.Popen(audit_argv(moments, report, Path(scratch) / "audit.html"), stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        output = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own usage, not every child's so far
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"the audit of {moments} moments failed (exit {child.returncode})")
    charts, changed = counts(output, report == "json")
    return {"moments": moments, "report": report, "wall_s": (datetime.now() - started).total_seconds(),
            "cpu_s": usage.ru_utime + usage.ru_stime, "peak_kib": usage.ru_maxrss, "charts": charts, "changed": changed}


def report(rows: list[dict]) -> str:
    lines = [f"load average {os.getloadavg()[0]:.1f}",
             f"{'moments':>8}{'charts':>8}{'changed':>9}{'wall':>9}{'CPU':>9}{'peak KiB':>11}{'KiB/moment':>12}"]
    for row, before in zip(rows, [None, *rows]):
        slope = "" if before is None else f"{(row['peak_kib'] - before['peak_kib']) / (row['moments'] - before['moments']):.2f}"
        lines.append(f"{row['moments']:>8}{row['charts']:>8}{row['changed']:>9}{row['wall_s']:>8.1f}s"
                     f"{row['cpu_s']:>8.1f}s{row['peak_kib']:>11,}{slope:>12}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="a dated audit of hourly moments as a whole process")
    parser.add_argument("--moments", type=int, nargs="+", default=[8760], help="counts of hourly moments (default 8760)")
    parser.add_argument("--report", choices=("text", "json", "html"), default="text",
                        help="what the audit writes: its text (default), --json, or its text and an --html page")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if min(args.moments) < 1:
        parser.error("--moments: each count must be at least 1")
    compile_package()
    rows = [run(n, args.report) for n in sorted(args.moments)]
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
