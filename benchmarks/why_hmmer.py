"""The explainer on deep recursion: 20 ``IsReachable`` whys over the conformance suite's hmmer case.

The case (a points-to analysis, 52 153 facts) is read and evaluated bottom-up once; then one
explainer answers why for 20 of its IsReachable tuples, evenly spaced in sorted order, and the
script prints the CPU time of the whys, the part spent finding firings (and asking the fire
relations) and each graph's size. ``--graphs FILE`` writes the graphs as JSON lines (node-link
data, keys sorted), to compare two versions byte for byte.

    python benchmarks/why_hmmer.py [--graphs FILE]      # about a minute of loading, then the whys
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import networkx as nx  # noqa: E402
from conformance import _load, core_cases, translate  # noqa: E402

from liuren_logic.datalog.provenance import Explainer  # noqa: E402

PRED = "r_is_reachable"  # IsReachable, as tests/conformance.py names it


def timed(spent: list, index: int, call):
    """``call``, adding the CPU time it takes to ``spent[index]``."""
    def run(*args):
        start = time.process_time()
        try:
            return call(*args)
        finally:
            spent[index] += time.process_time() - start
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", help="write the 20 graphs here, one JSON document a line")
    args = parser.parse_args()
    case = next(c for _, c in core_cases() if c.name == "souffle_hmmer_CPtrLoad")
    start = time.process_time()
    _, source = _load(translate(case), case.source.replace("/", "_"), "materialise")
    rows = sorted(source.query(PRED, [None, None]))
    print(f"read and evaluated: {time.process_time() - start:.1f} s CPU, {len(rows)} IsReachable tuples")
    asked = rows[:: len(rows) // 20][:20]
    explainer, spent = Explainer(source), [0.0, 0.0]
    explainer._found = timed(spent, 0, explainer._found)  # finding the firings,
    source.query = timed(spent, 1, source.query)  # and, within it, asking the fire relations
    start = time.process_time()
    graphs = [explainer.why(PRED, row) for row in asked]
    took = time.process_time() - start
    print(f"20 whys: {took:.1f} s CPU ({spent[0]:.1f} s finding firings, {spent[1]:.1f} s of it asking the "
          f"fire relations); {len(explainer._chosen)} atoms chosen; nodes {[len(g) for g in graphs]}")
    if args.graphs:
        with open(args.graphs, "w", encoding="utf-8") as out:
            for graph in graphs:
                out.write(json.dumps(nx.node_link_data(graph, edges="edges"), sort_keys=True, ensure_ascii=False, default=str) + "\n")


if __name__ == "__main__":
    main()
