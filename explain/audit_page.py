"""An audit as one self-contained HTML page: the summary, every difference, and for the
charts asked about, the derivation under each reading side by side (inline SVG, no network)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping, Optional

from liuren_logic.domain.audit import LISTS

from .page import esc, inline_svg
from .picture import render
from .tree import render as render_tree
from .view import compact

if TYPE_CHECKING:
    import networkx as nx

    from liuren_logic.domain.audit import Audit, Difference

CSS = """
body{font-family:"Noto Sans CJK TC","Noto Sans TC","PingFang TC",sans-serif;color:#222;max-width:1200px;margin:1em auto}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ddd;padding:.2em .6em;text-align:left}
th{background:#f3f5f8}.lr-pair{display:flex;gap:1em}.lr-pair>div{flex:1;min-width:0;overflow:auto}
pre{font-size:.8em;background:#fafafa;padding:.6em;overflow:auto}
del{color:#a00;text-decoration:none}ins{color:#070;text-decoration:none}
"""


def change_html(d: "Difference") -> str:
    """What changed: for a list (spirits, patterns) the names lost (−) and gained (+), not both
    lists; else the one value and the other."""
    if d.conclusion in LISTS:
        return " ".join([f'<del>−{esc(n)}</del>' for n in d.lost()] + [f"<ins>+{esc(n)}</ins>" for n in d.gained()])
    return f"<del>{esc(d.before)}</del> → <ins>{esc(d.after)}</ins>"


def audit_html(audit: "Audit", explained: Optional[Mapping[str, Mapping[str, "nx.DiGraph"]]] = None,
               lang: str = "zh") -> Iterator[str]:
    """The page, in pieces to be written as they are made (a long dated audit lists hundreds of
    thousands of differences): ``explained`` maps a chart id to {reading: derivation graph}."""
    rows = "".join(f"<tr><td>{esc(c)}</td><td>{n}</td></tr>" for c, n in audit.summary().items() if n)
    yield (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(audit.a)} → {esc(audit.b)}</title>"
           f"<style>{CSS}</style></head><body><h1>{esc(audit.a)} → {esc(audit.b)}</h1>"
           f"<p>{len(audit.changed())} of {audit.charts} charts change.</p>"
           f"<table><tr><th>conclusion</th><th>charts</th></tr>{rows}</table>"
           f"<table><tr><th>chart</th><th>conclusion</th><th>{esc(audit.a)} → {esc(audit.b)}</th></tr>")
    for d in audit.differences:
        yield f"<tr><td>{esc(d.chart)}</td><td>{esc(d.conclusion)}</td><td>{change_html(d)}</td></tr>"
    yield "</table>"
    for chart_id, graphs in (explained or {}).items():
        yield f"<h2>{esc(chart_id)}</h2><div class=\"lr-pair\">"
        for reading, graph in graphs.items():
            shown = compact(graph)
            yield (f"<div><h3>{esc(reading)}: {esc(graph.graph.get('question', ''))}</h3>"
                   f"{inline_svg(render(shown, 'svg', lang))}<pre>{esc(render_tree(graph, lang))}</pre></div>")
        yield "</div>"
    yield "</body></html>"
