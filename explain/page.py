"""One self-contained HTML page: the chart as practitioners draw it, every conclusion clickable.

Nothing is fetched: the CSS and the few lines of JavaScript are inline, and each
derivation is precomputed in Python (``session.why``) and embedded as an inline SVG (from
:mod:`explain.picture`) in a ``<template>``, with its lesson steps and its text tree.
Clicking a conclusion (a lesson, a transmission, the method) copies its template into
the panel. ``page.html#click=initial`` clicks the initial transmission on load.

:func:`fragment` is the part inside ``<body>`` (a notebook's ``Chart._repr_html_``);
:func:`page` wraps it in a document with the whole lesson below.
"""
from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Optional

from .board import POSITION_NAMES, SQUARE, WORDS
from .lesson import CONCLUSION_STEPS, Step, cite, header, lesson_steps, number
from .picture import render
from .tree import render as render_tree
from .view import compact

if TYPE_CHECKING:
    import networkx as nx

    from liuren_logic.chart import Chart

CONCLUSIONS = ("lesson1", "lesson2", "lesson3", "lesson4", "method", "initial", "middle", "final")
PAGE_WORDS = {
    "zh": {"hint": "點選任一結論（四課、三傳、課法），即見其推導。", "tree": "推導樹（文字）", "lesson": "講解",
           "derivation": "推導", "method": "課法", "lesson_n": "第{n}課", "title": "大六壬 {chart}",
           "why": "何以{what}？"},
    "en": {"hint": "Click any conclusion (a lesson, a transmission, the method) to see its derivation.",
           "tree": "Derivation as text", "lesson": "Lesson", "derivation": "Derivation", "method": "method",
           "lesson_n": "lesson {n}", "title": "Da Liu Ren {chart}", "why": "Why {what}?"},
}
CSS = """
.liuren-page{font-family:"Noto Sans CJK TC","Noto Sans TC","PingFang TC","Microsoft JhengHei",sans-serif;
  color:#222;max-width:1100px;margin:0 auto;line-height:1.5}
.liuren-page h1{font-size:1.3em;margin:.4em 0}
.liuren-page .lr-head{color:#555;margin-bottom:.8em}
.liuren-page .lr-board{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
.liuren-page .lr-board h2{font-size:1em;color:#666;margin:.2em 0 .4em}
.liuren-page button{font:inherit;cursor:pointer;border:1px solid #c9d3e0;background:#f7f9fc;border-radius:6px;
  padding:.2em .5em;color:inherit}
.liuren-page button:hover{background:#e8f0fe}
.liuren-page button.lr-on{background:#fff1c7;border-color:#b07d00}
.liuren-page .lr-lessons{display:flex;gap:.4em}
.liuren-page .lr-lesson{display:flex;flex-direction:column;align-items:center;font-size:1.4em;line-height:1.3}
.liuren-page .lr-lesson small,.liuren-page .lr-cell small{font-size:.6em;color:#777}
.liuren-page .lr-trans button{display:block;width:100%;text-align:left;margin:.2em 0;font-size:1.1em}
.liuren-page .lr-trans .lr-pos{color:#777;font-size:.8em;margin-right:.6em}
.liuren-page .lr-method{font-size:1.1em;margin-bottom:.4em}
.liuren-page .lr-square{display:grid;grid-template-columns:repeat(4,3.4em);grid-auto-rows:3.6em;gap:2px}
.liuren-page .lr-cell{border:1px solid #ddd;display:flex;flex-direction:column;align-items:center;
  justify-content:center;line-height:1.15;font-size:1.2em}
.liuren-page .lr-cell.lr-void{border:none}
.liuren-page .lr-center{grid-column:2/4;grid-row:2/4;display:flex;align-items:center;justify-content:center;
  color:#999;font-size:.9em;border:none}
.liuren-page .lr-panel{margin-top:1.2em;border-top:2px solid #e4e8ee;padding-top:.8em}
.liuren-page .lr-panel figure{margin:.6em 0;overflow:auto;max-height:80vh;border:1px solid #eee}
.liuren-page .lr-panel svg{height:auto}
.liuren-page .lr-steps li{margin:.3em 0}
.liuren-page .lr-cite{color:#8a6d00;font-size:.85em}
.liuren-page pre{font-size:.8em;overflow:auto;background:#fafafa;padding:.6em}
"""
SCRIPT = """
(function(){
  var root = (document.currentScript && document.currentScript.parentElement)
             || document.querySelector('.liuren-page');
  function show(key){
    var t = root.querySelector('template[data-key="' + key + '"]');
    var panel = root.querySelector('.lr-panel');
    if(!t || !panel) return;
    panel.replaceChildren(t.content.cloneNode(true));
    panel.setAttribute('data-showing', key);
    root.querySelectorAll('button[data-key]').forEach(function(b){
      b.classList.toggle('lr-on', b.getAttribute('data-key') === key);
    });
  }
  root.addEventListener('click', function(e){
    var b = e.target.closest('button[data-key]');
    if(b) show(b.getAttribute('data-key'));
  });
  function fromHash(){
    var m = /click=([A-Za-z0-9_-]+)/.exec(window.location.hash);
    var b = m && root.querySelector('button[data-key="' + m[1] + '"]');
    if(b) b.click();
  }
  fromHash();
  window.addEventListener('hashchange', fromHash);
})();
"""


def esc(text) -> str:
    return html.escape(str(text), quote=True)


# SVG inside HTML ----------------------------------------------------------------
def inline_svg(svg: bytes | str) -> str:
    """An SVG document as an element to put inside HTML: no prolog, DOCTYPE, comments,
    metadata or namespace declarations (HTML needs none, and they name web addresses)."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    text = text[text.index("<svg"):]
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", text)
    text = re.sub(r'\s+[\w:-]+="[^"]*https?:[^"]*"', "", text)  # anything else that names an address

    def size(match: re.Match) -> str:
        tag = re.sub(r'\s(width|height)="[^"]*"', "", match.group(0))
        width = re.search(r'\swidth="([^"]*)"', match.group(0))
        return tag[:-1] + (f' style="max-width:{width.group(1)};width:100%"' if width else "") + ">"

    return re.sub(r"<svg\b[^>]*>", size, text, count=1).strip()


# the chart --------------------------------------------------------------------------
def _short(chart: "Chart", general: Optional[str]) -> str:
    from .board import _short as short

    return short(chart, general)


def _button(key: str, inner: str, cls: str = "") -> str:
    return f'<button type="button" class="{cls}" data-key="{key}">{inner}</button>'


def board_html(chart: "Chart", lang: str = "zh") -> str:
    """四課 right to left, 三傳 top to bottom, the 天地盤 square; conclusions are buttons."""
    w, p = WORDS[lang], PAGE_WORDS[lang]
    lessons = "".join(
        _button(f"lesson{l.number}", f"<small>{esc(_short(chart, l.general))}</small>{esc(l.upper)}<br>{esc(l.lower)}"
                f"<small>{esc(p['lesson_n'].format(n=number(l.number, lang)))}</small>", "lr-lesson")
        for l in reversed(chart.lessons))
    names = "·".join(n for n in chart.subnames if n != chart.method)
    method = _button("method", esc(" ".join(x for x in (chart.method or "—", names) if x)), "lr-method")
    rows = "".join(
        _button(("initial", "middle", "final")[t.position - 1],
                f'<span class="lr-pos">{esc(POSITION_NAMES[lang][t.position - 1])}</span>'
                f"{esc(t.kin or '')} {esc(t.hidden_stem or '')} <b>{esc(t.branch)}</b> {esc(t.general or '')}"
                + (f" ({esc(w['void'])})" if t.void else ""))
        for t in chart.transmissions)
    cells = []
    for row in SQUARE:
        for earth in row:
            if earth is None:
                continue
            heaven = chart.heaven.get(earth, "？")
            cells.append(f'<button type="button" class="lr-cell" data-q="general" data-value="{esc(heaven)}">'
                         f"<small>{esc(_short(chart, chart.generals.get(heaven)))}</small>"
                         f"{esc(heaven)}<small>{esc(earth)}</small></button>")
    # grid order: the top row, then each side row's left and right cells, then the bottom row
    square = "".join(cells[:4]) + cells[4] + f'<div class="lr-center">{esc(w["plates"])}</div>' + cells[5]
    square += "".join(cells[6:8]) + "".join(cells[8:])
    return (f'<div class="lr-board">'
            f'<section><h2>{esc(w["lessons"])}</h2><div class="lr-lessons">{lessons}</div></section>'
            f'<section class="lr-trans"><h2>{esc(w["transmissions"])}</h2>{method}{rows}</section>'
            f'<section><h2>{esc(w["plates"])}</h2><div class="lr-square">{square}</div></section></div>')


# the derivations ----------------------------------------------------------------------
def steps_html(steps: list[tuple[int, Step]], lang: str) -> str:
    items = "".join(f'<li value="{i}"><b>{esc(s.title)}</b> {esc(s.text)}<br>'
                    + "".join(f"· {esc(item['text'])}<br>" for item in s.items)
                    + f'<span class="lr-cite">{esc(cite(s, lang))}</span></li>' for i, s in steps)
    return f'<ol class="lr-steps">{items}</ol>'


def conclusion_title(chart: "Chart", key: str, graph: "nx.DiGraph", lang: str) -> str:
    root = graph.nodes[graph.graph["root"]]
    return PAGE_WORDS[lang]["why"].format(what=root.get(lang) or root.get("text", key))


def picture_html(graph: "nx.DiGraph", lang: str = "zh", engine: Optional[str] = None) -> str:
    """The reader's view of a derivation as an inline SVG figure."""
    return f"<figure>{inline_svg(render(compact(graph), 'svg', lang, engine=engine))}</figure>"


def derivation_html(chart: "Chart", key: str, steps: list[Step], lang: str = "zh", engine: Optional[str] = None,
                    value: Optional[str] = None) -> str:
    """What the panel shows for one conclusion (``key``, or a relation and its ``value``):
    its lesson steps, its graph, its text tree."""
    graph = chart.session.why(chart, key, value)
    p = PAGE_WORDS[lang]
    numbered = [(i, s) for i, s in enumerate(steps, 1) if s.key in CONCLUSION_STEPS.get(key, ())]
    return (f"<h3>{esc(conclusion_title(chart, key, graph, lang))}</h3>"
            f"{steps_html(numbered, lang)}"
            f"{picture_html(graph, lang, engine)}"
            f"<details><summary>{esc(p['tree'])}</summary><pre>{esc(render_tree(graph, lang))}</pre></details>")


def available(chart: "Chart", key: str) -> bool:
    """Whether the chart has this conclusion (an undecided chart has no method or transmissions)."""
    if key == "method":
        return chart.method is not None
    return bool(chart.lessons) if key.startswith("lesson") else bool(chart.transmissions)


def fragment(chart: "Chart", lang: str = "zh", engine: Optional[str] = None,
             steps: Optional[list[Step]] = None) -> str:
    """The chart, its clickable conclusions and their precomputed derivations, as an HTML fragment."""
    steps = steps if steps is not None else lesson_steps(chart, lang)
    keys = [k for k in CONCLUSIONS if available(chart, k)]
    templates = "".join(f'<template data-key="{k}">{derivation_html(chart, k, steps, lang, engine)}</template>'
                        for k in keys)
    return (f'<div class="liuren-page" lang="{"zh-Hant" if lang == "zh" else "en"}"><style>{CSS}</style>'
            f'<div class="lr-head">{esc(header(chart, lang))} · {esc(WORDS[lang]["school"])}: {esc(chart.session.name)}</div>'
            f"{board_html(chart, lang)}"
            f'<aside class="lr-panel"><p>{esc(PAGE_WORDS[lang]["hint"])}</p></aside>'
            f"{templates}<script>{SCRIPT}</script></div>")


def page(chart: "Chart", lang: str = "zh", engine: Optional[str] = None) -> str:
    """A whole HTML document (no network): the fragment, then the whole lesson."""
    steps = lesson_steps(chart, lang)
    p = PAGE_WORDS[lang]
    lesson = steps_html(list(enumerate(steps, 1)), lang)
    return ("<!DOCTYPE html>\n"
            f'<html lang="{"zh-Hant" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(p['title'].format(chart=chart.id))}</title></head><body>"
            f"<h1 style=\"font-family:sans-serif\">{esc(p['title'].format(chart=chart.id))}</h1>"
            f"{fragment(chart, lang, engine, steps)}"
            f'<section class="liuren-page"><h2>{esc(p["lesson"])}</h2>{lesson}</section>'
            "</body></html>\n")


__all__ = ["page", "fragment", "board_html", "inline_svg", "picture_html", "derivation_html", "CONCLUSIONS"]
