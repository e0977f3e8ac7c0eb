"""How defeasible rules scale on the bottom-up engine (docs/defeasible.md).

A synthetic theory over N individuals: R layers of a literal each (``l1`` … ``lR``), each layer
with defeasible rules for it reading the layer below and one for its negation on half the
individuals (outranked by a preferred rule there), and a defeater on a tenth (outranked on even
layers only, so that those individuals are blocked from the first layer up).
It is checked and compiled (``check``), then evaluated (``Materialisation``) under each policy,
and again with every layer's attacker reading the layer's own conclusion (a cycle through defeat,
derived by the alternating fixpoint). Printed: the rules before and after compiling, and the
CPU seconds of each step (medians over ``--repeat`` runs).

    python benchmarks/defeasible_scale.py [--individuals 2000] [--layers 10] [--repeat 3]
"""
from __future__ import annotations

import argparse
import statistics
import time

from liuren_logic.datalog.checker import check
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase


def theory(individuals: int, layers: int, cycle: bool) -> str:
    """KB text of the synthetic theory (``cycle``: each attacker also reads its own layer)."""
    lines = ["@pred thing(x: any). @pred marked(x: any). @pred hurt(x: any)."]
    lines += [f"@pred l{k}(x: any)." for k in range(1, layers + 1)]
    lines += [f"thing({i}). l0_seed({i})." for i in range(individuals)]
    lines[0] += " @pred l0_seed(x: any)."
    lines += [f"marked({i})." for i in range(0, individuals, 2)]
    lines += [f"hurt({i})." for i in range(0, individuals, 10)]
    for k in range(1, layers + 1):
        below = f"l{k - 1}(X)" if k > 1 else "l0_seed(X)"
        own = f", l{k}(X)" if cycle else ""
        lines += [f"@default b.yes{k}.", f"l{k}(X) :- {below}.",
                  f"@default b.no{k}.", f"~l{k}(X) :- thing(X), marked(X){own}.",
                  f"@default b.back{k}.", f"l{k}(X) :- {below}, marked(X).",
                  f"@prefer b.back{k} > b.no{k}.",
                  f"@defeater b.hurt{k}.", f"~l{k}(X) :- hurt(X)."]
        lines += [f"@prefer b.yes{k} > b.hurt{k}."] if k % 2 == 0 else []  # on odd layers the hurt are blocked
    return "\n".join(lines) + "\n"


def measure(text: str, policy: str, repeat: int) -> tuple[int, int, float, float, int]:
    """(user rules, compiled rules, check seconds, evaluation seconds, rows of the top layer)."""
    checks, evals, rows = [], [], 0
    for _ in range(repeat):
        start = time.process_time()
        modules = [parse(text, "scale.dl")]
        program = check(modules, policy)
        checks.append(time.process_time() - start)
        start = time.process_time()
        engine = Materialisation(KnowledgeBase(program))
        top = max((p for p in program.preds if p.startswith("l") and p[1:].isdigit()), key=lambda p: int(p[1:]))
        rows = len(engine.query(top, [None]))
        evals.append(time.process_time() - start)
    users = sum(1 for m in modules for r in m.rules if r.body or r.kind != "strict")
    return users, len(program.rules), statistics.median(checks), statistics.median(evals), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--individuals", type=int, default=2000)
    parser.add_argument("--layers", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.individuals} individuals, {args.layers} layers, medians of {args.repeat} runs (CPU seconds)")
    print("| theory | policy | rules | compiled | check | evaluate | top layer holds |")
    print("|---|---|---|---|---|---|---|")
    for cycle in (False, True):
        text = theory(args.individuals, args.layers, cycle)
        for policy in ("blocking", "propagating"):
            users, compiled, checked, evaluated, rows = measure(text, policy, args.repeat)
            name = "cycles through defeat" if cycle else "stratified"
            print(f"| {name} | {policy} | {users} | {compiled} | {checked:.3f} | {evaluated:.3f} | {rows} |")


if __name__ == "__main__":
    main()
