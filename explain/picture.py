"""A derivation as a picture: DOT text, and SVG or PNG bytes.

A derivation is a ``networkx.DiGraph``. :func:`to_dot` writes its DOT text here, because
networkx's bridges to Graphviz need pygraphviz (``nx_agraph``) or pydot (``nx_pydot``), neither
of which the project requires, and ``to_pydot`` breaks on a ``:`` in a node name: opaque ids
``n0 n1 …`` in the order of a walk from the root, the reader's text in ``label``.
:func:`render` lays the graph out with Graphviz ``dot`` when it is on ``PATH`` (a subprocess,
no shell). Without it, the layout is networkx's: layers are ``networkx.topological_generations``
(breadth-first distances from the root when the graph has a cycle), ordered by where each
node's parents stand; SVG is then drawn in Python (:mod:`explain.svg`, the text in the
viewer's fonts) and PNG by matplotlib where it finds a CJK font (labels are plain text there: a
``$`` in a KB label is not read as mathematics); failing both, one line says what to install.

Styling is data: ``NODE_STYLE`` (by node kind), ``FAILED``, ``EDGE_STYLE`` and ``FONT``
below; every function takes overrides. Chosen candidates (edge ``chosen=True``) are
drawn bold green; what does not hold (``absent``, ``fail``, ``holds``, a failing
comparison) is red and dashed.

>>> import networkx as nx
>>> g = nx.DiGraph(root="x:1"); g.add_node("x:1", kind="fact", text='p("a")', zh="甲", where="f.dl:1")
>>> print(to_dot(g).splitlines()[-2])
  n0 [label="甲", tooltip="甲", shape="box", style="filled", fillcolor="#eeeeee", color="#777777"];
>>> from liuren_logic.datalog.labels import showing_ids
>>> with showing_ids():  # a developer's view: the atom and its KB file
...     print(to_dot(g).splitlines()[-2])
  n0 [label="甲\\nf.dl:1", tooltip="p(\\"a\\")  [f.dl:1]", shape="box", style="filled", fillcolor="#eeeeee", color="#777777"];
"""
from __future__ import annotations

import io
import re
import shutil
import subprocess
from collections import deque
from typing import Optional

import networkx as nx

from liuren_logic.datalog.labels import ids_shown
from liuren_logic.domain.books import cite
from liuren_logic.domain.errors import LiurenError

from .text_width import columns
from .view import ordered_children

FONT = "Noto Sans CJK TC"
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
GRAPH_ATTRS = {"rankdir": "TB", "nodesep": "0.25", "ranksep": "0.45", "bgcolor": "white"}
MARKS = {"rule": "⇐ ", "absent": "✗ ", "fail": "✗ ", "holds": "✗ ", "not": "¬ ", "aggregate": "Σ "}
WRAP = 30  # columns a label line may take (a CJK character takes two)
FORMATS = ("svg", "png")


NO_PNG = ("PNG needs Graphviz, or matplotlib with a CJK font, and this machine has neither: apt-get install "
          "graphviz (or fonts-noto-cjk and pip install matplotlib), or use --format svg, which needs nothing")


class RenderError(LiurenError):
    """A picture could not be made (no renderer, or the renderer failed)."""


# text -------------------------------------------------------------------------

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


# Characters XML 1.0 does not allow (an SVG holding one is not XML): C0 controls but tab and line
# breaks, lone surrogates (a non-UTF-8 file name read with surrogateescape), U+FFFE and U+FFFF.
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
        return [("✓ " if attrs.get("holds") else "✗ ") + attrs.get("text", "")]
    if kind == "aggregate":
        return [f"Σ {attrs.get('func', '')} = {attrs.get('value', '')}"]
    lines = wrap(mark + (label or attrs.get("text", "")))
    if kind == "fact" and ids and attrs.get("where"):
        lines.append(str(attrs["where"]))
    elif ids and label and attrs.get("pred"):
        lines.append(attrs["pred"])
    if attrs.get("reason"):
        lines += wrap(attrs["reason"])
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


# DOT ------------------------------------------------------------------------------
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


def quote(text: str) -> str:
    """A DOT string: quotes and backslashes escaped, line breaks as ``\\n``."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attrs(attrs: dict) -> str:
    return ", ".join(f"{k}={quote(v)}" for k, v in attrs.items())


def to_dot(graph: nx.DiGraph, lang: str = "zh", node_styles: Optional[dict] = None,
           edge_styles: Optional[dict] = None, font: str = FONT) -> str:
    """The graph as DOT text (opaque ids, ``label`` attributes, styles by kind)."""
    ids = {node: f"n{i}" for i, node in enumerate(walk_order(graph))}
    question = drawable(str(graph.graph.get("question", "")).replace("\n", " "))
    lines = ["digraph derivation {"] + ([f"  // {question}"] if question else [])
    lines += [f"  graph [{_attrs({**GRAPH_ATTRS, 'fontname': font})}];",
              f"  node [{_attrs({'fontname': font, 'fontsize': '11', 'margin': '0.12,0.06'})}];",
              f"  edge [{_attrs({'fontname': font, 'fontsize': '9'})}];"]
    index = {node: i for i, node in enumerate(ids)}
    for a, b in sorted(graph.edges, key=lambda e: (index[e[0]], graph.edges[e].get("order", 0), index[e[1]])):
        style = edge_style(graph.edges[a, b], edge_styles, graph.nodes[a])
        lines.append(f"  {ids[a]} -> {ids[b]} [{_attrs(style)}];")
    for node, nid in ids.items():
        attrs = graph.nodes[node]
        label = "\n".join(node_lines(attrs, lang))
        lines.append(f"  {nid} [{_attrs({'label': label, 'tooltip': tooltip(attrs, lang), **node_style(attrs, node_styles)})}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# SVG and PNG --------------------------------------------------------------------
def render(graph: nx.DiGraph, fmt: str = "svg", lang: str = "zh", engine: Optional[str] = None,
           node_styles: Optional[dict] = None, edge_styles: Optional[dict] = None) -> bytes:
    """SVG or PNG bytes. ``engine``: ``dot`` (Graphviz, chosen when on PATH), ``python`` (SVG
    drawn here, needing nothing installed) or ``matplotlib`` (needs a CJK font)."""
    if fmt not in FORMATS:
        raise RenderError(f"cannot render {fmt!r}; expected one of {', '.join(FORMATS)}")
    engine = engine or default_engine(fmt)
    if engine == "dot":
        return run_dot(to_dot(graph, lang, node_styles, edge_styles), fmt)
    if engine == "python" and fmt == "svg":
        from .svg import draw_svg

        return draw_svg(graph, lang, node_styles, edge_styles)
    if engine == "matplotlib":
        try:
            return draw_matplotlib(graph, fmt, lang, node_styles, edge_styles)
        except RenderError:
            if fmt == "png" and not shutil.which("dot"):
                raise RenderError(NO_PNG) from None
            raise
    raise RenderError(f"engine {engine!r} cannot draw {fmt}; expected dot, python (svg only) or matplotlib")


def default_engine(fmt: str) -> str:
    """Graphviz where present; else SVG in Python, PNG by matplotlib (which needs a CJK font)."""
    if shutil.which("dot"):
        return "dot"
    return "python" if fmt == "svg" else "matplotlib"


def run_dot(dot_text: str, fmt: str) -> bytes:
    """Graphviz ``dot -T<fmt>`` on DOT text (a subprocess, no shell)."""
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError("Graphviz dot is not on PATH (apt-get install graphviz)")
    done = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, timeout=120)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"dot -T{fmt} failed: {message[0] if message else done.returncode}")
    return done.stdout


def cjk_font() -> str:
    """The first CJK font matplotlib knows, from ``CJK_FONTS`` or any family named CJK."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    for name in CJK_FONTS:
        if name in names:
            return name
    found = sorted(n for n in names if "CJK" in n)
    if not found:
        raise RenderError("matplotlib finds no CJK font (apt-get install fonts-noto-cjk)")
    return found[0]


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


def _box(style: dict) -> dict:
    shape = "round" if "rounded" in style.get("style", "") else "square"
    return {"boxstyle": f"{shape},pad=0.4", "facecolor": style.get("fillcolor", "white"),
            "edgecolor": style.get("color", "black"), "linestyle": "--" if "dashed" in style.get("style", "") else "-"}


def draw_matplotlib(graph: nx.DiGraph, fmt: str = "svg", lang: str = "zh", node_styles: Optional[dict] = None,
                    edge_styles: Optional[dict] = None) -> bytes:
    """A layered drawing (root on top) with matplotlib in a CJK font; text stays text in SVG."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise RenderError("matplotlib is not installed (pip install matplotlib)") from None
    texts = {n: node_lines(graph.nodes[n], lang) for n in graph}
    pos, _, width, height = layered_layout(graph, texts)
    rc = {"font.family": [cjk_font(), "DejaVu Sans"], "svg.fonttype": "none", "svg.hashsalt": "liuren", "font.size": 8}
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=(width, height))
        ax = fig.add_axes((0, 0, 1, 1), xlim=(0, width), ylim=(0, height))
        ax.axis("off")
        boxes = {}
        for n, (x, y) in pos.items():
            style = node_style(graph.nodes[n], node_styles)
            boxes[n] = ax.text(x, y, "\n".join(texts[n]), ha="center", va="center", zorder=2, parse_math=False,
                               color=style.get("fontcolor", "black"), bbox=_box(style))
        for a, b in graph.edges:
            style = edge_style(graph.edges[a, b], edge_styles, graph.nodes[a])
            ax.annotate("", xy=(0.5, 1), xycoords=boxes[b], xytext=(0.5, 0), textcoords=boxes[a], zorder=1,
                        arrowprops={"arrowstyle": "-|>", "color": style.get("color", "#777777"),
                                    "lw": float(style.get("penwidth", 1)), "shrinkA": 4, "shrinkB": 4,
                                    "linestyle": "--" if "dashed" in style.get("style", "") else "-"})
            if "label" in style:
                (xa, ya), (xb, yb) = pos[a], pos[b]
                ax.text((xa + xb) / 2, (ya + yb) / 2, style["label"], color=style.get("fontcolor", "#555555"),
                        ha="center", va="center", fontsize=7, zorder=3, parse_math=False)
        out = io.BytesIO()
        fig.savefig(out, format=fmt, metadata={"Date": None} if fmt == "svg" else {}, dpi=110)
    return out.getvalue()
