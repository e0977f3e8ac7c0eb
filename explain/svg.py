"""A derivation as SVG drawn in Python: no Graphviz, no font on this machine.

The boxes stand layer under layer (:func:`graph_look.layered_layout`, sized by the columns
their text takes); the text stays text, set in the viewer's fonts (``FONT_FAMILY``, a list of
CJK families ending in ``sans-serif``), so a browser or notebook shows the Chinese labels
with whatever CJK font it has. Styles are the same data as the DOT output's.
"""
from __future__ import annotations

import math
from typing import Optional
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from liuren_logic.datalog.labels import ids_shown

from .graph_look import FONT_FAMILY, drawable, edge_style, layered_layout, node_lines, node_style, tooltip

SCALE = 80  # SVG units (px) per inch of the layout
FONT_SIZE = 11  # px; a CJK character is one em wide, two layout columns (LAYOUT["char"] × 2 × SCALE)
LINE = 16  # px between the baselines of a label's lines (LAYOUT["line"] × SCALE)


def _dash(style: dict) -> str:
    return ' stroke-dasharray="5,3"' if "dashed" in style.get("style", "") else ""


def _node(attrs: dict, lines: list[str], centre: tuple[float, float], size: tuple[float, float],
          styles: Optional[dict], lang: str) -> str:
    style = node_style(attrs, styles)
    (x, y), (w, h) = centre, size
    shape = style.get("shape", "box")
    radius = h / 2 if shape == "ellipse" else 8 if "rounded" in style.get("style", "") or shape == "hexagon" else 0
    paint = f'fill="{style.get("fillcolor", "white")}" stroke="{style.get("color", "black")}"{_dash(style)}'
    tip = tooltip(attrs, lang)
    first = y - (len(lines) - 1) * LINE / 2
    spans = "".join(f'<tspan x="{x:.1f}" y="{first + i * LINE:.1f}">{escape(line)}</tspan>'
                    for i, line in enumerate(lines))
    return (f"<g><title>{escape(tip)}</title>"
            f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{radius:.1f}" {paint}/>'
            f'<text fill="{style.get("fontcolor", "black")}" text-anchor="middle" dominant-baseline="central">'
            f"{spans}</text></g>")


def _edge(start: tuple[float, float], end: tuple[float, float], style: dict) -> str:
    (xa, ya), (xb, yb) = start, end
    colour, width = style.get("color", "#777777"), float(style.get("penwidth", 1))
    angle = math.atan2(yb - ya, xb - xa)
    tip = 7 + 2 * width
    head = [(xb, yb)] + [(xb - tip * math.cos(angle + s * 0.4), yb - tip * math.sin(angle + s * 0.4)) for s in (1, -1)]
    points = " ".join(f"{px:.1f},{py:.1f}" for px, py in head)
    shaft = (xb - tip * 0.8 * math.cos(angle), yb - tip * 0.8 * math.sin(angle))
    out = (f'<line x1="{xa:.1f}" y1="{ya:.1f}" x2="{shaft[0]:.1f}" y2="{shaft[1]:.1f}" stroke="{colour}" '
           f'stroke-width="{width:g}"{_dash(style)}/><polygon points="{points}" fill="{colour}"/>')
    if "label" in style:
        out += (f'<text x="{(xa + xb) / 2 + 4:.1f}" y="{(ya + yb) / 2:.1f}" font-size="{FONT_SIZE - 2}" '
                f'fill="{style.get("fontcolor", "#555555")}" dominant-baseline="central">{escape(style["label"])}</text>')
    return out


def draw_svg(graph: nx.DiGraph, lang: str = "zh", node_styles: Optional[dict] = None,
             edge_styles: Optional[dict] = None) -> bytes:
    """The graph as an SVG document, root on top, every edge from a box's foot to a box's head."""
    texts = {n: node_lines(graph.nodes[n], lang) for n in graph}
    pos, size, width, height = layered_layout(graph, texts)
    centre = {n: (x * SCALE, (height - y) * SCALE) for n, (x, y) in pos.items()}
    box = {n: (w * SCALE, h * SCALE) for n, (w, h) in size.items()}
    edges = []
    for a, b in sorted(graph.edges, key=lambda e: (centre[e[0]][1], centre[e[0]][0], centre[e[1]][0])):
        (xa, ya), (xb, yb) = centre[a], centre[b]
        down = 1 if yb >= ya else -1
        start, end = (xa, ya + down * box[a][1] / 2), (xb, yb - down * box[b][1] / 2)
        edges.append(_edge(start, end, edge_style(graph.edges[a, b], edge_styles, graph.nodes[a])))
    nodes = [_node(graph.nodes[n], texts[n], centre[n], box[n], node_styles, lang) for n in sorted(graph, key=centre.get)]
    w, h = width * SCALE, height * SCALE
    root = graph.nodes[graph.graph["root"]] if graph.graph.get("root") in graph else {}
    question = escape(drawable(str(graph.graph.get("question", ""))) if ids_shown() or not root else tooltip(root, lang))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}px" height="{h:.0f}px" '
            f'viewBox="0 0 {w:.1f} {h:.1f}" font-family={quoteattr(FONT_FAMILY)} font-size="{FONT_SIZE}">\n'
            f"<title>{question}</title>\n"
            f'<rect width="100%" height="100%" fill="white"/>\n'
            + "\n".join(edges + nodes) + "\n</svg>\n").encode("utf-8")
