"""A derivation as an indented text tree, for the terminal.

Each line is one node: a conclusion with its label, the rule that derived it (with the
seed line it rests on), the facts and checks below. A sub-proof that was already shown
is not repeated: its line ends with ``(see above)``. Glyphs are data (``GLYPHS``).

By default the tree is the reader's view (:func:`explain.view.compact`): labelled rule
steps and what they rest on; ``full=True`` shows every node the engine recorded. A
``networkx.DiGraph`` or the lighter :class:`~liuren_logic.datalog.digraph.Digraph` (the command line's
text output, which imports no networkx) reads the same.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from liuren_logic.datalog.labels import ids_shown
from liuren_logic.domain.books import cite

from .view import compact, ordered_children

if TYPE_CHECKING:
    import networkx as nx

KB_FILE = re.compile(r"\.dl:\d+$")  # where a fact was read: a KB file's line
GLYPHS = {"branch": "├─ ", "last": "└─ ", "pipe": "│  ", "space": "   "}
MARKS = {"atom": "", "fact": "▪ ", "rule": "⇐ ", "not": "", "compare": "", "aggregate": "Σ ",
         "absent": "✗ ", "fail": "✗ ", "holds": "✗ "}


WORDS = {
    "absent": {"zh": "  不成立：{label}", "en": "  does not hold: {label}"},
    "not": {"zh": "  無此事：{label}", "en": "  holds because this fails: {label}"},
    "holds": {"zh": "  卻成立：{label}", "en": "  but this holds: {label}"},
    "fires_not": {"zh": "{rule}未成立", "en": "{rule} does not fire"},
    "again": {"zh": "（見上）", "en": "  (see above)"},
    "below": {"zh": "… 其下尚有 {n} 項", "en": "… {n} more below"},
    "given": {"zh": "所給"},
    "rule": {"zh": "「{label}」", "en": "the rule “{label}”"},
}


def children(graph: "nx.DiGraph", node: str) -> list[str]:
    """A node's children in the order of the rule body, then by text."""
    return ordered_children(graph, node)


def describe(attrs: dict, lang: str = "zh") -> str:
    """One line for a node: its label in the language (a rule's with its book line), where it comes
    from; the relation, the rule id and the KB file only under :func:`~liuren_logic.datalog.labels.showing_ids`."""
    kind, ids = attrs["kind"], ids_shown()
    label = attrs.get(lang) or ""
    if kind == "rule":
        line = MARKS[kind] + (f"{attrs['rule']}: {label}" if ids and label else label or attrs["rule"])
        if attrs.get("source"):
            line += f"  «{cite(attrs['source'], lang)}»"
        return line
    if kind == "fail":
        said = attrs["rule"] + " " * (lang == "zh") if ids or not label else WORDS["rule"][lang].format(label=label)
        return MARKS[kind] + WORDS["fires_not"][lang].format(rule=said) + (f" ({label})" if ids and label else "")
    if kind == "compare":
        return ("✓ " if attrs.get("holds") else "✗ ") + (attrs["text"] if ids else label or attrs["text"])
    text = attrs["text"] if ids or not label else ""
    line = MARKS.get(kind, "") + text
    if kind in ("absent", "not", "holds"):
        line += WORDS[kind][lang].format(label=label or attrs["text"])[0 if text else 2:]
    elif label and label != text:
        line += f"  {label}" if text else label
    if kind == "fact":
        where = attrs["where"]
        if lang == "zh" and where.startswith("given:"):  # the label says what was given; the origin is English
            line += f"  [{WORDS['given'][lang]}]"
        elif ids or not KB_FILE.search(where):  # a KB file's line is a developer's
            line += f"  [{where}" + (f" {attrs['table']}" if attrs.get("table") else "") + "]"
        if attrs.get("source"):
            line += f"  «{cite(attrs['source'], lang)}»"
    if attrs.get("reason"):
        line += f"  ({attrs.get('reason_' + lang) or attrs['reason']})"
    return line


def render(graph: "nx.DiGraph", lang: str = "zh", depth: int | None = None, full: bool = False) -> str:
    """The derivation below the graph's root, one node a line (``full``: every node)."""
    if not full:
        graph = compact(graph)
    lines: list[str] = []
    shown: set[str] = set()

    def walk(node: str, prefix: str, glyph: str, level: int) -> None:
        attrs = graph.nodes[node]
        again = node in shown and graph.out_degree(node) > 0
        lines.append(prefix + glyph + describe(attrs, lang) + (WORDS["again"][lang] if again else ""))
        if again:
            return
        shown.add(node)
        kids = children(graph, node)
        if depth is not None and level >= depth:
            if kids:
                lines.append(prefix + _continuation(glyph) + GLYPHS["last"] + WORDS["below"][lang].format(n=len(kids)))
            return
        for i, child in enumerate(kids):
            last = i == len(kids) - 1
            walk(child, prefix + _continuation(glyph), GLYPHS["last" if last else "branch"], level + 1)

    walk(graph.graph["root"], "", "", 0)
    return "\n".join(lines)


def _continuation(glyph: str) -> str:
    if glyph == GLYPHS["branch"]:
        return GLYPHS["pipe"]
    if glyph == GLYPHS["last"]:
        return GLYPHS["space"]
    return ""
