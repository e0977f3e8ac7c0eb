"""Standard Datalog workloads: our bottom-up engine beside pyDatalog and clingo, as ratios.

Each workload is one program text in the KB language, which clingo also reads once the
``@pred`` declarations are dropped (plain rules, ``!=``, integers and quoted strings):

``chain N``      transitive closure of the chain ``e(0, 1) … e(N-1, N)`` (N(N+1)/2 tuples)
``random N:M``   transitive closure of M distinct random edges over N nodes (seed 33)
``samegen N``    same generation over a random tree of N nodes (``par``: N - 1 edges)
``lubm``         the LUBM program of the datalog-conformance suite (103,074 facts, 56 rules),
                 every relation its 20 cases ask for

Every run (engine × workload) is a fresh process that reads the program's text, then times from
the text to the full answer (the asked relations, every tuple): ours parses, checks and
evaluates (``Materialisation``), pyDatalog compiles and is asked each relation whole, clingo
grounds and solves. Time is the child's CPU time (the machine may be shared); memory is its
peak resident size (VmHWM) less what it held before the run. A run past ``--timeout``
seconds of wall time is stopped and shown as such. The answers' sizes must agree.

    python benchmarks/datalog_workloads.py                      # the trial sizes: a few minutes in all
    python benchmarks/datalog_workloads.py --chain 1000 3000 --random 1000:5000 --samegen 1000 --lubm \\
        --timeout 600 --json workloads.json
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(CHECKOUT), str(CHECKOUT / "tests")]  # the project, and the conformance suite's translation
ENGINES = ("ours", "pydatalog", "clingo")
CLOSURE = "t(X, Y) :- e(X, Y).\nt(X, Z) :- t(X, Y), e(Y, Z).\n"
SAME_GENERATION = "sg(X, Y) :- par(X, P), par(Y, P), X != Y.\nsg(X, Y) :- par(X, A), sg(A, B), par(Y, B).\n"


def edges_text(pred: str, edges) -> str:
    return f"@pred {pred}(x: int, y: int).\n" + "".join(f"{pred}({a}, {b}).\n" for a, b in edges)


def chain(size: str) -> tuple[str, list[str]]:
    return edges_text("e", ((i, i + 1) for i in range(int(size)))) + "@pred t(x: int, y: int).\n" + CLOSURE, ["t"]


def random_graph(size: str) -> tuple[str, list[str]]:
    nodes, count = map(int, size.split(":"))
    rng, edges = random.Random(33), set()
    while len(edges) < min(count, nodes * nodes):
        edges.add((rng.randrange(nodes), rng.randrange(nodes)))
    return edges_text("e", sorted(edges)) + "@pred t(x: int, y: int).\n" + CLOSURE, ["t"]


def same_generation(size: str) -> tuple[str, list[str]]:
    rng = random.Random(33)
    parents = [(child, rng.randrange(child)) for child in range(1, int(size))]
    return edges_text("par", parents) + "@pred sg(x: int, y: int).\n" + SAME_GENERATION, ["sg"]


def lubm(_: str) -> tuple[str, list[str]]:
    """The LUBM program as tests/conformance.py translates it, and the relations its cases ask."""
    from conformance import core_cases, relation, translate

    cases = [case for _, case in core_cases() if case.source == "souffle/example/lubm"]
    asked = sorted({relation(pred) for case in cases for pred in case.expect})
    return translate(cases[0]), asked


WORKLOADS = {"chain": chain, "random": random_graph, "samegen": same_generation, "lubm": lubm}


def answer(engine: str, text: str, asked: list[str]) -> dict[str, int]:
    """The number of tuples of each asked relation, as ``engine`` finds them from the text."""
    if engine == "clingo":
        import clingo

        control = clingo.Control(["--warn=none"])
        control.add("base", [], "".join(l + "\n" for l in text.splitlines() if not l.startswith("@")))
        control.ground([("base", [])])
        counts = dict.fromkeys(asked, 0)
        with control.solve(yield_=True) as models:
            for symbol in next(iter(models)).symbols(atoms=True):
                if symbol.name in counts:
                    counts[symbol.name] += 1
        return counts
    from liuren_logic.checker import check
    from liuren_logic.parser import parse
    from liuren_logic.program import KnowledgeBase

    kb = KnowledgeBase(check([parse(text, "workload.dl")]))
    if engine == "ours":
        from liuren_logic.evaluate import Materialisation

        source = Materialisation(kb)
    else:
        from liuren_logic.engine import PyDatalog

        source = PyDatalog(kb)
    return {pred: len(source.query(pred, [None] * kb.arity[pred])) for pred in asked}


def peak_kib() -> int:
    """This process's peak resident size in KiB: VmHWM, which starts afresh at exec (ru_maxrss,
    where there is no /proc, may carry over the parent's peak)."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_one(engine: str, path: str, *asked: str) -> dict:
    """In this process: answer the program in ``path`` with ``engine``; time and memory of the answer."""
    text = Path(path).read_text("utf-8")
    if engine != "clingo":  # the engine's modules, as clingo's are, imported before the clock starts
        import liuren_logic.evaluate  # noqa: F401
        if engine == "pydatalog":
            import pyDatalog  # noqa: F401
    else:
        import clingo  # noqa: F401
    before = peak_kib()
    start = time.process_time()
    counts = answer(engine, text, list(asked))
    seconds = time.process_time() - start
    peak = peak_kib()
    return {"cpu_s": round(seconds, 3), "peak_mb": round(max(peak - before, 0) / 1024, 1), "tuples": counts}


def measure(engine: str, workload: str, size: str, program: Path, asked: list[str], timeout: float) -> dict:
    """``run_one`` of the program written in ``program`` in a fresh process, stopped after
    ``timeout`` seconds of wall time."""
    row = {"engine": engine, "workload": workload, "size": size}
    try:
        done = subprocess.run([sys.executable, __file__, "--one", engine, str(program), *asked],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**row, "timeout": timeout}
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return {**row, "error": lines[-1] if lines else str(done.returncode)}
    return {**row, **json.loads(done.stdout)}


def cell(row: dict) -> str:
    """One run's figures: CPU seconds and peak MB, or why there are none."""
    if "timeout" in row:
        return f"> {row['timeout']:g} s wall"
    if "error" in row:
        return row["error"] if row["error"] == "not run" else "error"
    return f"{row['cpu_s']:.2f} s, {row['peak_mb']:.0f} MB"


def table(results: list[dict]) -> str:
    """A Markdown table: per workload and size, each engine's CPU time and peak memory, and
    pyDatalog's and clingo's time as a multiple of ours."""
    def ratio(row: dict, ours: dict) -> str:
        if "cpu_s" not in row or "cpu_s" not in ours:
            return "—"
        return f"{row['cpu_s'] / max(ours['cpu_s'], 1e-3):.1f}×"

    runs: dict[tuple, dict] = {}
    for row in results:
        runs.setdefault((row["workload"], row["size"]), {})[row["engine"]] = row
    lines = ["| workload | size | tuples | ours | pyDatalog | × ours | clingo | × ours |", "|---" * 8 + "|"]
    for (workload, size), by in runs.items():
        ours = by.get("ours", {})
        tuples = next((f"{sum(r['tuples'].values()):,}" for r in by.values() if "tuples" in r), "—")
        lines.append(f"| {workload} | {size} | {tuples} | {cell(ours)} | {cell(by['pydatalog'])} | "
                     f"{ratio(by['pydatalog'], ours)} | {cell(by['clingo'])} | {ratio(by['clingo'], ours)} |")
    return "\n".join(lines)


def disagreements(results: list[dict]) -> list[str]:
    """The workloads whose engines found different numbers of tuples."""
    found: dict[tuple, set] = {}
    for row in results:
        if "tuples" in row:
            found.setdefault((row["workload"], row["size"]), set()).add(json.dumps(row["tuples"], sort_keys=True))
    return [f"{w} {s}: {sorted(c)}" for (w, s), c in found.items() if len(c) > 1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chain", nargs="*", type=int, default=[100, 200, 400], help="chain lengths")
    parser.add_argument("--random", nargs="*", default=["2000:1000", "1000:1000"], help="NODES:EDGES of random graphs")
    parser.add_argument("--samegen", nargs="*", type=int, default=[500, 1000], help="tree sizes for same generation")
    parser.add_argument("--lubm", action="store_true", help="the LUBM program too (pyDatalog takes minutes on it)")
    parser.add_argument("--engines", nargs="*", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--timeout", type=float, default=60, help="seconds of wall time one run may take")
    parser.add_argument("--json", type=Path, help="write every run's figures here")
    parser.add_argument("--one", nargs="+", metavar="ENGINE FILE PRED", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return 0
    plan = ([("chain", str(n)) for n in args.chain] + [("random", s) for s in args.random]
            + [("samegen", str(n)) for n in args.samegen] + ([("lubm", "103074 facts")] if args.lubm else []))
    results = []
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "workload.dl"
        for workload, size in plan:
            text, asked = WORKLOADS[workload](size)
            program.write_text(text, "utf-8")
            for engine in ENGINES:
                row = (measure(engine, workload, size, program, asked, args.timeout) if engine in args.engines
                       else {"engine": engine, "workload": workload, "size": size, "error": "not run"})
                results.append(row)
                print(f"{workload} {size} {engine}: {cell(row)}", file=sys.stderr, flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(table(results))
    wrong = disagreements(results)
    for line in wrong:
        print(f"the engines disagree: {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
