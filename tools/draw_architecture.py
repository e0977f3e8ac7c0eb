"""Draw the package's layers and the imports between them (docs/images/architecture.svg).

    python tools/draw_architecture.py            # writes docs/images/architecture.svg (needs Graphviz)

The import graph is read by grimp (import-linter's, a test extra) from the code itself; each layer is
one box listing its modules, each arrow the number of imports from one layer into another (red if
it runs back up). The layers are import-linter's (pyproject.toml), top first;
tests/test_architecture.py holds them.
"""
from __future__ import annotations

import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images" / "architecture.svg"
SAYS = {"liuren_logic.faces": "what a person runs", "liuren_logic.explain": "what a person reads",
        "liuren_logic.domain": "大六壬 on Datalog", "liuren_logic.datalog": "a generic Datalog"}


def layers() -> list[str]:
    """The layers contract's packages, top first."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    return next(c["layers"] for c in config["contracts"] if c["type"] == "layers")


def layer_of(module: str, names: list[str]) -> str | None:
    return next((n for n in names if module == n or module.startswith(n + ".")), None)


def dot() -> str:
    """The DOT text: a box a layer with its modules, an arrow a pair of layers with its import count."""
    names = layers()
    graph = grimp.build_graph("liuren_logic")
    members = {n: sorted(m.rpartition(".")[2] for m in graph.modules if layer_of(m, names) == n and m != n)
               for n in names}
    arrows = Counter()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            pair = (layer_of(module, names), layer_of(imported, names))
            if None not in pair and pair[0] != pair[1]:
                arrows[pair] += 1
    lines = ['digraph layers {', '  rankdir=TB; nodesep=0.4; ranksep=0.5;',
             '  node [shape=box, style="rounded,filled", fillcolor="#f7f3e8", fontname="Noto Sans CJK SC", fontsize=11];',
             '  edge [fontname="Noto Sans CJK SC", fontsize=10, color="#555555"];']
    for name in names:
        modules = "\\n".join(", ".join(members[name][i:i + 6]) for i in range(0, len(members[name]), 6))
        lines.append(f'  "{name}" [label="{name.replace("liuren_logic.", "")}/  ({SAYS.get(name, "")})\\n\\n{modules}"];')
    for (src, dst), n in sorted(arrows.items()):
        up = names.index(src) > names.index(dst)  # an arrow back up: the layers contract fails on it
        lines.append(f'  "{src}" -> "{dst}" [label=" {n}"{", color=red, fontcolor=red" if up else ""}];')
    lines.append('}')
    return "\n".join(lines) + "\n"


def main() -> int:
    svg = subprocess.run(["dot", "-Tsvg"], input=dot().encode(), capture_output=True, check=True).stdout
    OUT.write_bytes(svg)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
