"""How a derivation looks, whatever draws it: the fonts, each node's and edge's style (data, by
kind), what a node says line by line and on hover, and where each box stands (layers under the
root). :mod:`.picture` writes DOT and draws with Graphviz or matplotlib; :mod:`.svg` draws SVG in
Python; both read their look from here.
"""
from __future__ import annotations

import re
from collections import deque
from typing import Optional

import networkx as nx

from liuren_logic.datalog.labels import ids_shown
from liuren_logic.domain.books import cite

from .text_width import columns
from .view import ordered_children


CJK_FONTS = ("Noto Sans CJK TC", "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Serif CJK TC",
             "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Source Han Sans TC", "AR PL UMing TW")

# what a viewer's browser is asked for (SVG drawn in Python, the HTML pages): its own CJK fonts
FONT_FAMILY = ", ".join(f'"{name}"' for name in CJK_FONTS + ("Noto Sans TC", "PingFang TC", "Microsoft JhengHei")) \
    + ", sans-serif"

NODE_STYLE = {
    "atom": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dce9fb", "color": "#2f5d9e"},
    "fact": {"shape": "box", "style": "filled", "fillcolor": "#eeeeee", "color": "#777777"},
    "rule": {"shape": "box", "style": "filled", "fillcolor": "#fff1c7", "color": "#b07d00"},
    "not": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ebe1fa", "color": "#6a3fb0"},
    "compare": {"shape": "ellipse", "style": "filled", "fillcolor": "#e3f4e3", "color": "#3a8a3a"},
    "aggregate": {"shape": "hexagon", "style": "filled", "fillcolor": "#d9f2f2", "color": "#2b7a7a"},
    "absent": {"shape": "box", "style": "rounded,dashed,filled", "fillcolor": "#fde4e1", "color": "#c0392b",
               "fontcolor": "#8e1f14"},
    "fail": {"shape": "box", "style": "dashed,filled", "fillcolor": "#fbd3ce", "color": "#c0392b",
             "fontcolor": "#8e1f14"},
    "holds": {"shape": "box", "style": "rounded,dashed,filled", "fillcolor": "#fde4e1", "color": "#c0392b",
              "fontcolor": "#8e1f14"},
}


FAILED = {"style": "dashed,filled", "fillcolor": "#fde4e1", "color": "#c0392b", "fontcolor": "#8e1f14"}

EDGE_STYLE = {
    "plain": {"color": "#7a7a7a", "arrowsize": "0.7"},
    "chosen": {"color": "#1e8e3e", "penwidth": "2.5", "fontcolor": "#1e8e3e", "arrowsize": "0.9"},
    "passed": {"color": "#b0b0b0", "style": "dashed", "fontcolor": "#888888", "arrowsize": "0.7"},
}


MARKS = {"rule": "⇐ ", "absent": "✗ ", "fail": "✗ ", "holds": "✗ ", "not": "¬ ", "aggregate": "Σ "}

WRAP = 30  # columns a label line may take (a CJK character takes two)


def wrap(text: str, width: int = WRAP) -> list[str]:
    """Break a label into lines of at most ``width`` columns, after punctuation when it can."""
    lines, line = [], ""
    for ch in text:
        if columns(line + ch) > width:
            cut = max(line.rfind(p) for p in "，；：、 ,;")
            head, line = (line[:cut + 1], line[cut + 1:]) if cut > len(line) // 2 else (line, "")
            lines.append(head.rstrip())
        line += ch
    return lines + [line] if line else lines


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def drawable(text: str) -> str:
    """``text`` with the characters no SVG may hold written as ``\\uXXXX``."""
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def node_lines(attrs: dict, lang: str = "zh") -> list[str]:
    """What a node says in a picture, line by line (every character one an SVG may hold)."""
    return [drawable(str(line)) for line in _said(attrs, lang)]


def _said(attrs: dict, lang: str) -> list[str]:
    kind = attrs.get("kind", "atom")
    label = attrs.get(lang) or ""
    mark = MARKS.get(kind, "")
    ids = ids_shown()
    if kind in ("rule", "fail"):
        lines = [mark + attrs.get("rule", "")] + wrap(label) if ids or not label else wrap(mark + label)
        if attrs.get("source"):
            lines += wrap(f"«{cite(attrs['source'], lang)}»")
        return lines
    if kind == "compare":
        return wrap(("✓ " if attrs.get("holds") else "✗ ") + (attrs.get("text", "") if ids else label or attrs.get("text", "")))
    if kind == "aggregate":
        return [f"Σ {attrs.get('func', '')} = {attrs.get('value', '')}"]
    lines = wrap(mark + (label or attrs.get("text", "")))
    if kind == "fact" and ids and attrs.get("where"):
        lines.append(str(attrs["where"]))
    elif ids and label and attrs.get("pred"):
        lines.append(attrs["pred"])
    if attrs.get("reason"):
        lines += wrap(attrs.get("reason_" + lang) or attrs["reason"])
    return lines


def tooltip(attrs: dict, lang: str) -> str:
    """What hovering a node shows: its label; the atom or rule step and its KB file under ``--ids``
    (every character one an SVG may hold)."""
    if not ids_shown():
        return drawable(attrs.get(lang) or attrs.get("text", ""))
    return drawable(attrs.get("text", "") + (f"  [{attrs['where']}]" if attrs.get("where") else ""))


def node_style(attrs: dict, styles: Optional[dict] = None) -> dict:
    kind = attrs.get("kind", "atom")
    styles = {**NODE_STYLE, **(styles or {})}
    style = dict(styles.get(kind, styles["atom"]))
    if kind == "compare" and not attrs.get("holds", True):
        style.update(FAILED)
    return style


def edge_style(attrs: dict, styles: Optional[dict] = None, source: Optional[dict] = None) -> dict:
    """How an edge is drawn; ``chosen`` counts only below a max/min aggregate (``source``)."""
    styles = {**EDGE_STYLE, **(styles or {})}
    chosen = attrs.get("chosen")
    if source is not None and source.get("kind") == "aggregate" and source.get("func") not in ("max", "min"):
        chosen = None
    key = {True: "chosen", False: "passed"}.get(chosen, "plain")
    style = dict(styles[key])
    if attrs.get("counted") is not None:
        style["label"] = ("✓ " if attrs.get("chosen") else "") + str(attrs["counted"])
    return style


def walk_order(graph: nx.DiGraph) -> list[str]:
    """Every node once: a breadth-first walk from the root in body order, then the rest."""
    root = graph.graph.get("root")
    order, seen = [], set()
    queue = deque([root] if root in graph else [])
    while queue:
        node = queue.popleft()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        queue.extend(ordered_children(graph, node))
    return order + sorted((n for n in graph if n not in seen), key=str)


def layers(graph: nx.DiGraph) -> list[list[str]]:
    """Nodes in layers under the root: every edge points down (the topological generations,
    when acyclic), each layer ordered by where its parents stand (one barycentre sweep)."""
    order = walk_order(graph)
    root = graph.graph.get("root")
    if nx.is_directed_acyclic_graph(graph):
        depth = {node: k for k, generation in enumerate(nx.topological_generations(graph)) for node in generation}
    else:
        depth = nx.single_source_shortest_path_length(graph, root) if root in graph else {}
    bottom = max(depth.values(), default=-1) + 1
    rows: dict[int, list[str]] = {}
    for node in order:
        rows.setdefault(depth.get(node, bottom), []).append(node)
    place: dict[str, float] = {}
    out = []
    for k in sorted(rows):
        def centre(node, i):
            parents = [place[p] for p in graph.predecessors(node) if p in place]
            return (sum(parents) / len(parents) if parents else i / max(len(rows[k]), 1), i)

        row = [n for _, n in sorted((centre(n, i), n) for i, n in enumerate(rows[k]))]
        place.update({n: i / max(len(row) - 1, 1) for i, n in enumerate(row)})
        out.append(row)
    return out


LAYOUT = {"char": 0.075, "line": 0.2, "gap_x": 0.3, "gap_y": 0.45, "margin": 0.2}  # inches (fallback drawing)


def layered_layout(graph: nx.DiGraph, texts: dict) -> tuple[dict, dict, float, float]:
    """Centres and sizes (inches) of the boxes, layer under layer, and the drawing's size."""
    char, line, gap_x, gap_y, margin = (LAYOUT[k] for k in ("char", "line", "gap_x", "gap_y", "margin"))
    size = {n: (max(map(columns, t), default=1) * char + 0.25, len(t) * line + 0.15) for n, t in texts.items()}
    rows = layers(graph)
    widths = [sum(size[n][0] for n in row) + gap_x * (len(row) - 1) for row in rows]
    heights = [max(size[n][1] for n in row) for row in rows]
    width = max(widths, default=1) + 2 * margin
    height = sum(heights) + gap_y * (len(rows) - 1) + 2 * margin
    pos, y = {}, height - margin
    for row, row_width, row_height in zip(rows, widths, heights):
        x = (width - row_width) / 2
        for n in row:
            pos[n] = (x + size[n][0] / 2, y - row_height / 2)
            x += size[n][0] + gap_x
        y -= row_height + gap_y
    return pos, size, width, height
