#!/usr/bin/env python3
"""``liuren kb check --alone`` on a large rule file, cold (an empty cache directory) and warm.

The file is written first: ``--facts`` facts of a three-column relation (quoted names and a
number, about 35 bytes a fact: 377,619 make 13 MB) and one rule over it. Each run is a whole
process with its own ``LIUREN_CACHE``; the figures are the wall time and the CPU time (user +
system) of the process, which a busy machine changes far less, and the cache's size after.

    python benchmarks/large_kb.py                     # 377,619 facts, one cold and two warm runs
    python benchmarks/large_kb.py --facts 200000 --json large.json
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_wall import liuren_command  # noqa: E402


def write_kb(path: Path, facts: int) -> None:
    """A relation ``edge`` of ``facts`` rows (a fixed seed: the same file every time) and a rule."""
    chooser = random.Random(1)
    lines = ["@pred edge(a: any, b: any, w: any).", "@pred reach(a: any, b: any).", "reach(X, Y) :- edge(X, Y, _)."]
    lines += [f'edge("v{chooser.randrange(10**6)}", "v{chooser.randrange(10**6)}", {i}).' for i in range(facts)]
    path.write_text("\n".join(lines) + "\n", "utf-8")


def run(command: list[str], cache: Path) -> dict:
    """One process: its wall and CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "LIUREN_CACHE": str(cache)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=377_619)
    parser.add_argument("--warm", type=int, default=2, help="warm runs after the cold one")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        kb, cache = Path(folder) / "large.dl", Path(folder) / "cache"
        write_kb(kb, args.facts)
        command = [*liuren_command(), "kb", "check", "--alone", str(kb)]
        figures = {"facts": args.facts, "file_mb": round(kb.stat().st_size / 2**20, 1), "cold": run(command, cache)}
        figures["cache_mb"] = round(sum(p.stat().st_size for p in cache.iterdir()) / 2**20, 1)
        figures["warm"] = [run(command, cache) for _ in range(args.warm)]
        figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()
