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
import shutil
import subprocess
from typing import Optional

import networkx as nx

from liuren_logic.domain.errors import InputError

from .graph_look import CJK_FONTS, drawable, edge_style, layered_layout, node_lines, node_style, tooltip, walk_order
from .svg import draw_svg

FONT = "Noto Sans CJK TC"
GRAPH_ATTRS = {"rankdir": "TB", "nodesep": "0.25", "ranksep": "0.45", "bgcolor": "white"}
FORMATS = ("svg", "png")


NO_PNG = ("PNG needs Graphviz, or matplotlib with a CJK font, and this machine has neither: apt-get install "
          "graphviz (or fonts-noto-cjk and pip install matplotlib), or use --format svg, which needs nothing",
          "PNG 須有 Graphviz，或 matplotlib 與中日韓字型，本機皆無：請 apt-get install graphviz"
          "（或 fonts-noto-cjk 並 pip install matplotlib），或改用 --format svg，無須他物")


class RenderError(InputError):
    """A picture could not be made in the format asked (no renderer, or the renderer failed): the
    message, the same in Chinese; it is about ``--format``."""

    def __init__(self, message: str, zh: str):
        super().__init__(message, zh, "format")


# text -------------------------------------------------------------------------


# Characters XML 1.0 does not allow (an SVG holding one is not XML): C0 controls but tab and line
# breaks, lone surrogates (a non-UTF-8 file name read with surrogateescape), U+FFFE and U+FFFF.


# DOT ------------------------------------------------------------------------------


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
        raise RenderError(f"cannot render {fmt!r}; expected one of {', '.join(FORMATS)}",
                          f"畫不出「{fmt}」；可取：{'、'.join(FORMATS)}")
    engine = engine or default_engine(fmt)
    if engine == "dot":
        return run_dot(to_dot(graph, lang, node_styles, edge_styles), fmt)
    if engine == "python" and fmt == "svg":
        return draw_svg(graph, lang, node_styles, edge_styles)
    if engine == "matplotlib":
        try:
            return draw_matplotlib(graph, fmt, lang, node_styles, edge_styles)
        except RenderError:
            if fmt == "png" and not shutil.which("dot"):
                raise RenderError(*NO_PNG) from None
            raise
    raise RenderError(f"engine {engine!r} cannot draw {fmt}; expected dot, python (svg only) or matplotlib",
                      f"「{engine}」畫不出 {fmt}；可取：dot、python（僅 svg）、matplotlib")


def default_engine(fmt: str) -> str:
    """Graphviz where present; else SVG in Python, PNG by matplotlib (which needs a CJK font)."""
    if shutil.which("dot"):
        return "dot"
    return "python" if fmt == "svg" else "matplotlib"


def run_dot(dot_text: str, fmt: str) -> bytes:
    """Graphviz ``dot -T<fmt>`` on DOT text (a subprocess, no shell)."""
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError("Graphviz dot is not on PATH (apt-get install graphviz)",
                          "找不到 Graphviz 之 dot（請 apt-get install graphviz）")
    done = subprocess.run([exe, f"-T{fmt}"], input=dot_text.encode("utf-8"), capture_output=True, timeout=120)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        said = message[0] if message else done.returncode
        raise RenderError(f"dot -T{fmt} failed: {said}", f"dot -T{fmt} 出錯：{said}")
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
        raise RenderError("matplotlib finds no CJK font (apt-get install fonts-noto-cjk)",
                          "matplotlib 找不到中日韓字型（請 apt-get install fonts-noto-cjk）")
    return found[0]


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
        raise RenderError("matplotlib is not installed (pip install matplotlib)",
                          "未裝 matplotlib（請 pip install matplotlib）") from None
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
