#!/usr/bin/env python3
"""Standard Datalog workloads through our bottom-up engine, pyDatalog and clingo.

Workloads (``--sizes`` counts edges; every graph comes from a fixed seed, so a size is the
same program on every run):

- ``chain``: the transitive closure ``path`` of a chain of n edges (n(n+1)/2 answers);
- ``random``: the transitive closure of a random directed graph of n edges over n nodes;
- ``tree``: same generation ``sg`` over a random tree of n edges (node i's parent is one of
  the 16 nodes before it, so the tree is about n/8 generations deep);
- ``lubm``: the LUBM case of the datalog-conformance suite (103,074 facts, 56 rules; its
  20 asserted relations counted), whatever ``--sizes`` says.

Every workload is a conformance-suite case (generated or read), turned into KB text by
``tests/conformance.py``'s ``translate``. Each engine answers it in a child process of its
own, timed (its modules already imported) from the program text to the answer counts (ours:
parse, check, materialise, query; pyDatalog: the same program compiled and queried through
``KnowledgeBase``, our ``--engine pydatalog`` backend; clingo: the same text, parse, ground,
solve); the child's peak resident memory is its peak memory. A run past ``--timeout`` (wall
seconds) is killed and reported as such. The engines' answer counts must agree (and, for
LUBM, match the suite's): otherwise the script says where and exits with status 1.

    python benchmarks/datalog_workloads.py               # every workload at its default sizes: a few minutes
    python benchmarks/datalog_workloads.py --workloads chain --sizes 100 300 --engines ours clingo
    python benchmarks/datalog_workloads.py --json run.json --timeout 30
    python benchmarks/datalog_workloads.py --from run.json other.json --plot curves.png
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import conformance  # noqa: E402
from conformance import cases_in, relation, translate  # noqa: E402
from datalog_conformance import TestCase  # noqa: E402

ENGINES = ("ours", "pydatalog", "clingo")
WORKLOADS = ("chain", "random", "tree", "lubm")
SIZES = {"chain": (100, 300, 1000), "random": (1000, 3000, 10000), "tree": (1000, 3000, 10000)}
TREE_WIDTH = 16  # a node's parent is one of the TREE_WIDTH nodes before it
LUBM = "recursion/souffle_example_lubm.yaml"

CLOSURE = ["path(X, Y) :- edge(X, Y).", "path(X, Z) :- path(X, Y), edge(Y, Z)."]
SAME_GENERATION = ["sg(X, Y) :- parent(X, P), parent(Y, P), X != Y.",
                   "sg(X, Y) :- parent(X, A), sg(A, B), parent(Y, B)."]


# the workloads ------------------------------------------------------------------------------
def program(workload: str, size: int) -> dict:
    """A workload as the child runs it: its KB text, the relations counted (name → arity), its
    number of facts, and the answer counts the suite expects (LUBM only)."""
    if workload == "lubm":
        return _lubm()
    case = _generated(workload, size)
    return {"text": translate(case), "relations": {relation(p): 2 for p in case.expect},
            "facts": sum(map(len, case.program.facts.values())), "expected": None}


def _chain(size: int, chooser: random.Random) -> tuple[dict, list[str], str]:
    return {"edge": [[i, i + 1] for i in range(size)]}, CLOSURE, "path"


def _random_graph(size: int, chooser: random.Random) -> tuple[dict, list[str], str]:
    edges: set[tuple[int, int]] = set()
    while len(edges) < size:
        a, b = chooser.randrange(size), chooser.randrange(size)
        if a != b:
            edges.add((a, b))
    return {"edge": [list(e) for e in sorted(edges)]}, CLOSURE, "path"


def _tree(size: int, chooser: random.Random) -> tuple[dict, list[str], str]:
    parents = [[i, chooser.randrange(max(0, i - TREE_WIDTH), i)] for i in range(1, size + 1)]
    return {"parent": parents}, SAME_GENERATION, "sg"


GENERATED = {"chain": _chain, "random": _random_graph, "tree": _tree}  # → (facts, rules, relation counted)


def _generated(workload: str, size: int) -> TestCase:
    """The generated workload as a conformance case (its expectations empty: the engines are compared)."""
    facts, rules, counted = GENERATED[workload](size, random.Random(f"{workload}-{size}"))
    return TestCase.from_dict({"name": f"{workload}_{size}", "description": f"{workload} of {size} edges",
                               "source": f"bench/{workload}", "program": {"facts": facts, "rules": rules},
                               "expect": {counted: []}})


def _lubm() -> dict:
    """The LUBM case, translated once and kept in the cache directory (reading its 17 MB of YAML
    costs about 10 s of CPU) under the suite's version and a digest of the translation's module:
    its 20 cases share one program and each asserts one relation."""
    from importlib.metadata import version

    from datalog_conformance.plugin import get_tests_dir
    from liuren_logic.datalog.cache import directory

    translation = hashlib.sha256(Path(conformance.__file__).read_bytes()).hexdigest()[:12]
    kept = directory() / "bench" / f"lubm-{version('datalog-conformance')}-{translation}.json"
    if kept.exists():
        return json.loads(kept.read_text("utf-8"))
    cases = cases_in(get_tests_dir() / LUBM)
    expected = {relation(pred): len(rows) for case in cases for pred, rows in case.expect.items()}
    found = {"text": translate(cases[0]), "relations": dict.fromkeys(sorted(expected), 0),
             "facts": sum(map(len, cases[0].program.facts.values())), "expected": expected}
    for case in cases:
        for pred, rows in case.expect.items():
            found["relations"][relation(pred)] = len(rows[0])
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(found), "utf-8")
    return found


# the engines (in the child) -----------------------------------------------------------------
MODULES = {"ours": ("liuren_logic.datalog.checker", "liuren_logic.datalog.program", "liuren_logic.datalog.evaluate", "liuren_logic.datalog.parser"),
           "clingo": ("clingo",)}
MODULES["pydatalog"] = MODULES["ours"] + ("liuren_logic.datalog.pydatalog_backend", "pyDatalog.pyDatalog", "pyDatalog.pyParser")


def answer(engine: str, text: str, relations: dict) -> dict:
    """Relation → number of answers, by one engine."""
    if engine == "clingo":
        return _clingo(text, relations)
    from liuren_logic.datalog.checker import check
    from liuren_logic.datalog.evaluate import Materialisation
    from liuren_logic.datalog.parser import parse
    from liuren_logic.datalog.program import KnowledgeBase

    kb = KnowledgeBase(check([parse(text, "workload.dl")]))
    if engine == "ours":
        source = Materialisation(kb)
    else:
        from liuren_logic.datalog.pydatalog_backend import PyDatalog

        source = PyDatalog(kb)
    return {rel: len(source.query(rel, [None] * arity)) for rel, arity in relations.items()}


def asp(text: str, relations: dict) -> str:
    """The KB text as an ASP program: these programs' rules and facts (lower-case relations,
    upper-case variables, integers, quoted strings, ``_``, ``not``, ``!=``) are ASP already;
    the ``@pred`` declarations go and a ``#show`` names each relation counted."""
    kept = [line for line in text.splitlines() if not line.startswith("@")]
    return "\n".join(kept + [f"#show {rel}/{arity}." for rel, arity in relations.items()]) + "\n"


def _clingo(text: str, relations: dict) -> dict:
    import clingo

    control = clingo.Control(["--warn=none"])
    control.add("base", [], asp(text, relations))
    control.ground([("base", [])])
    counts = dict.fromkeys(relations, 0)
    models = []

    def counted(model) -> None:
        models.append(1)
        for symbol in model.symbols(shown=True):
            counts[symbol.name] += 1

    control.solve(on_model=counted)
    if len(models) != 1:
        raise RuntimeError(f"clingo found {len(models)} models, not one")
    return counts


def child(engine: str, path: str) -> None:
    """Run one engine over a program file and print its figures as JSON on stdout."""
    workload = json.loads(Path(path).read_text("utf-8"))
    for module in MODULES[engine]:  # imported before the clock starts: the runs time the work
        importlib.import_module(module)
    base = peak_mb()
    start, cpu = time.perf_counter(), time.process_time()
    counts = answer(engine, workload["text"], workload["relations"])
    seconds, cpu_s = time.perf_counter() - start, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu_s": cpu_s, "peak_mb": peak_mb(), "base_mb": base, "counts": counts}))


def peak_mb() -> float:
    """This process's peak resident memory in MB: VmHWM where /proc has it, since Linux carries
    ``ru_maxrss`` across fork and exec (a child would report the parent's peak when larger)."""
    try:
        status = Path("/proc/self/status").read_text()
        return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# the parent ---------------------------------------------------------------------------------
def run(engine: str, path: Path, timeout: float) -> dict:
    """One engine over one program, in a child process: its figures, or its outcome (timeout, error)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", engine, str(path)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "timeout_s": timeout}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"outcome": "error", "error": last}
    return {"outcome": "answered", **json.loads(done.stdout)}


def disagreement(row: dict) -> str | None:
    """Where the engines' answer counts differ (from each other, or from the suite's), or None."""
    answered = {engine: r["counts"] for engine, r in row["runs"].items() if r["outcome"] == "answered"}
    if row.get("expected") is not None:
        answered["the suite"] = row["expected"]
    distinct = {json.dumps(counts, sort_keys=True) for counts in answered.values()}
    if len(distinct) <= 1:
        return None
    return "; ".join(f"{who}: {counts}" for who, counts in answered.items())


def measure(workloads: list[str], sizes: list[int] | None, engines: list[str], timeout: float, log) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="datalog-workloads-") as scratch:
        for workload in workloads:
            for size in ([0] if workload == "lubm" else sizes or SIZES[workload]):
                built = program(workload, size)
                path = Path(scratch) / f"{workload}-{size}.json"
                path.write_text(json.dumps(built), "utf-8")
                row = {"workload": workload, "size": size or built["facts"], "facts": built["facts"],
                       "expected": built["expected"], "runs": {}}
                for engine in engines:
                    row["runs"][engine] = result = run(engine, path, timeout)
                    log(f"{workload} {row['size']} {engine}: {said(result)}")
                rows.append(summarised(row))
    return rows


def said(result: dict) -> str:
    """One run in a few words, for the progress lines."""
    if result["outcome"] == "answered":
        return f"{result['seconds']:.2f} s ({result['cpu_s']:.2f} s CPU), {result['peak_mb']:.0f} MB"
    return " ".join(str(result[key]) for key in ("outcome", "timeout_s", "error") if key in result)


def summarised(row: dict) -> dict:
    """The row with its answer count, disagreement and ratios (re)computed from its runs."""
    counts = [r["counts"] for r in row["runs"].values() if r["outcome"] == "answered"]
    row["answers"] = sum(counts[0].values()) if counts else None
    row["disagreement"] = disagreement(row)
    for other in ("pydatalog", "clingo"):
        row[f"ours/{other}"] = ratios(row["runs"].get("ours"), row["runs"].get(other))
    return row


class SavedError(Exception):
    """A ``--from`` file that cannot be read as the rows of a ``--json`` run."""


def saved(path: Path) -> list[dict]:
    """The rows of a ``--json`` file, or a :class:`SavedError` naming the file and what is wrong."""
    try:
        rows = json.loads(path.read_text("utf-8"))
    except OSError as error:
        raise SavedError(f"--from {path}: {error.strerror}") from None
    except (UnicodeError, ValueError) as error:
        raise SavedError(f"--from {path}: not JSON ({error})") from None
    shaped = isinstance(rows, list) and all(
        isinstance(row, dict) and row.get("workload") in WORKLOADS and isinstance(row.get("size"), int)
        and isinstance(row.get("runs"), dict) and all(map(_run_shaped, row["runs"].values())) for row in rows)
    if not shaped:
        raise SavedError(f"--from {path}: not the rows a --json run writes")
    return rows


def _run_shaped(result) -> bool:
    """Whether a saved run has what the tables read: an outcome, and an answered run's figures."""
    if not isinstance(result, dict) or result.get("outcome") not in ("answered", "timeout", "error", "not run"):
        return False
    if result["outcome"] == "timeout":
        return isinstance(result.get("timeout_s"), (int, float))
    return result["outcome"] != "answered" or (
        all(isinstance(result.get(key), (int, float)) for key in ("seconds", "cpu_s", "peak_mb"))
        and isinstance(result.get("counts"), dict))


def merged(runs: list[list[dict]]) -> list[dict]:
    """The rows of earlier ``--json`` runs as one run: where two runs measured the same workload
    and size, an engine's answered run wins over an unanswered one, and a later run's over an
    earlier's; an engine a row lacks is ``not run``."""
    rows: dict[tuple, dict] = {}
    for found in runs:
        for row in found:
            kept = rows.setdefault((row["workload"], row["size"]), row)
            for engine, result in row["runs"].items():
                if result["outcome"] == "answered" or kept["runs"].get(engine, {}).get("outcome") != "answered":
                    kept["runs"][engine] = result
    ordered = sorted(rows.values(), key=lambda row: (WORKLOADS.index(row["workload"]), row["size"]))
    engines = [e for e in ENGINES if any(e in row["runs"] for row in ordered)]
    for row in ordered:
        row["runs"] = {e: row["runs"].get(e, {"outcome": "not run"}) for e in engines}
        summarised(row)
    return ordered


def ratios(ours: dict | None, other: dict | None) -> dict | None:
    """Wall time, CPU time and peak-memory ratios of ours to another engine, when both answered
    (None for a figure of the other's too small to divide by)."""
    if not ours or not other or ours["outcome"] != "answered" or other["outcome"] != "answered":
        return None
    return {key: ours[key] / other[key] if other[key] > 0 else None for key in ("seconds", "cpu_s", "peak_mb")}


def report(rows: list[dict], engines: list[str]) -> str:
    """A Markdown table per workload: answers, each engine's CPU seconds and peak MB, the CPU time
    ratios (CPU rather than wall time: on a shared machine it moves far less with the load)."""
    out = []
    for workload in dict.fromkeys(row["workload"] for row in rows):
        others = [e for e in ("pydatalog", "clingo") if "ours" in engines and e in engines]
        head = ["edges" if workload != "lubm" else "facts", "answers"]
        head += [f"{e} CPU s / MB" for e in engines] + [f"ours/{e} CPU" for e in others]
        out += [f"{workload}:", "", "| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
        for row in (r for r in rows if r["workload"] == workload):
            cells = [f"{row['size']:,}", "—" if row["answers"] is None else f"{row['answers']:,}"]
            cells += [cell(row["runs"][e]) for e in engines]
            cells += [ratio_cell(row[f"ours/{e}"]) for e in others]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def ratio_cell(ratio: dict | None) -> str:
    return "—" if ratio is None or ratio["cpu_s"] is None else f"{ratio['cpu_s']:.2f}"


def cell(run_: dict) -> str:
    if run_["outcome"] == "answered":
        return f"{run_['cpu_s']:.2f} / {run_['peak_mb']:.0f}"
    if run_["outcome"] == "timeout":
        return f"> {run_['timeout_s']:g} s wall"
    return run_["outcome"]


def plot(rows: list[dict], engines: list[str], path: Path) -> None:
    """Log-log curves, one column per generated workload: CPU seconds (top) and peak MB (bottom)
    against edges, a line per engine over the sizes it answered."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    workloads = [w for w in WORKLOADS if w != "lubm" and any(row["workload"] == w for row in rows)]
    figure, axes = pyplot.subplots(2, len(workloads), figsize=(4 * len(workloads), 6.5), squeeze=False)
    for column, workload in enumerate(workloads):
        for engine in engines:
            points = [(row["size"], row["runs"][engine]) for row in rows
                      if row["workload"] == workload and row["runs"][engine]["outcome"] == "answered"]
            for axis, key in zip(axes[:, column], ("cpu_s", "peak_mb")):
                axis.plot([size for size, _ in points], [r[key] for _, r in points], marker="o", label=engine)
        axes[0, column].set_title({"chain": "closure of a chain", "random": "closure of a random graph",
                                   "tree": "same generation on a tree"}[workload])
        for axis, label in zip(axes[:, column], ("CPU seconds", "peak MB")):
            axis.set(xscale="log", yscale="log", xlabel="edges", ylabel=label)
            axis.grid(True, which="both", alpha=0.3)
    axes[0, 0].legend()
    figure.tight_layout()
    figure.savefig(path, dpi=80)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument("--sizes", nargs="+", type=int, help="edges of the generated workloads (default: per workload)")
    parser.add_argument("--engines", nargs="+", choices=ENGINES, default=list(ENGINES))
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per run (default 20)")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--from", dest="saved", nargs="+", type=Path, metavar="JSON",
                        help="measure nothing: the tables (and --plot) of earlier --json files, merged")
    parser.add_argument("--plot", type=Path, help="draw CPU time and peak memory against size to this PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "PROGRAM"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    if args.sizes and min(args.sizes) < 1:
        parser.error("--sizes: every size is a number of edges, at least 1")
    if args.timeout <= 0:
        parser.error("--timeout: a number of seconds above 0")
    log = (lambda line: None) if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.saved:
        try:
            rows = merged([saved(path) for path in args.saved])
        except SavedError as error:
            print(f"datalog_workloads: {error}", file=sys.stderr)
            return 2
        engines = list(rows[0]["runs"]) if rows else []
    else:
        rows, engines = measure(args.workloads, args.sizes, args.engines, args.timeout, log), args.engines
    print(report(rows, engines))
    if args.plot:
        plot(rows, engines, args.plot)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")
    wrong = [row for row in rows if row["disagreement"]]
    for row in wrong:
        print(f"answers differ on {row['workload']} {row['size']}: {row['disagreement']}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
