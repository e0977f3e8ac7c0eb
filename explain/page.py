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

from .board import sections
from .cells import Cell, Section
from .lesson import CONCLUSION_STEPS, Step, cite, lesson_steps
from .picture import render
from .tree import render as render_tree
from .view import compact

if TYPE_CHECKING:
    import networkx as nx

    from liuren_logic.domain.chart import Chart

ZOOM = 1.2  # the picture's scale on screen: node text of 11 px (explain/svg.py) is 13.2 px
PRESENT = 2.0  # its scale in 「放映」 (Present): an edge's 9 px label is 18 px, a node's 11 px text 22 px
PRINT = 1.34  # its scale on a handout: an edge's 9 px label is 12 px (9 pt), on a landscape page if need be
CONCLUSIONS = ("lesson1", "lesson2", "lesson3", "lesson4", "method", "initial", "middle", "final")
PAGE_WORDS = {
    "zh": {"hint": "點選任一結論（四課、三傳、課法），即見其推導。", "tree": "推導樹（文字）", "lesson": "講解", "title": "大六壬 {chart}",
           "why": "何以{what}？", "steps_of": "講解共{n}步，此為第{which}步：", "sep": "、", "whole": "全部講解",
           "smaller": "縮小", "larger": "放大", "whole_picture": "全圖", "present": "放映", "end": "結束放映"},
    "en": {"hint": "Click any conclusion (a lesson, a transmission, the method) to see its derivation.",
           "tree": "Derivation as text", "lesson": "Lesson", "title": "Da Liu Ren {chart}", "why": "Why {what}?",
           "steps_of": "Steps {which} of the lesson's {n}:", "sep": ", ", "whole": "the whole lesson",
           "smaller": "smaller", "larger": "larger", "whole_picture": "whole", "present": "present",
           "end": "end presenting"},
}
CSS = """
.liuren-page{font-family:"Noto Sans CJK TC","Noto Sans TC","PingFang TC","Microsoft JhengHei",sans-serif;
  color:#222;max-width:1100px;margin:0 auto;line-height:1.5}
.liuren-page h1{font-size:1.3em;margin:.4em 0}
.liuren-page .lr-head{color:#555;margin-bottom:.8em}
.liuren-page .lr-board{display:grid;grid-template-columns:auto minmax(0,1fr);gap:.4em 1.6em;align-items:start}
.liuren-page .lr-plates{grid-row:span 2}
.liuren-page button{font:inherit;cursor:pointer;border:1px solid #c9d3e0;background:#f7f9fc;border-radius:6px;
  padding:.2em .5em;color:inherit}
.liuren-page button:hover{background:#e8f0fe}
.liuren-page button.lr-on{background:#fff1c7;border-color:#b07d00}
.liuren-page .lr-sec{min-width:0}
.liuren-page .lr-board>.lr-sec{grid-column:1/-1}
.liuren-page .lr-board>.lr-plates{grid-column:1}
.liuren-page .lr-board>.lr-lessons,.liuren-page .lr-board>.lr-transmissions{grid-column:2}
.liuren-page .lr-sec h2{font-size:.9em;color:#666;margin:.3em 0 .2em}
.liuren-page .lr-sec p{margin:.15em 0}
.liuren-page .lr-sec p button{padding:0 .25em;margin:.1em 0}
.liuren-page .lr-header p:first-child{font-size:1.15em}
.liuren-page .lr-grid{display:grid;gap:3px;align-items:center;justify-items:center;justify-content:start}
.liuren-page .lr-grid small{font-size:.6em;color:#777;margin-right:.1em}
.liuren-page .lr-plates .lr-grid{font-size:1.6em}
.liuren-page .lr-plates .lr-grid button{width:2.5em;height:2.1em;padding:0}
.liuren-page .lr-plates .lr-grid span{min-width:2.5em;text-align:center}
.liuren-page .lr-plates .lr-grid span.lr-faint{color:#999;font-size:.75em;min-width:0}
.liuren-page .lr-plates .lr-grid span:empty{min-width:0}
.liuren-page .lr-lessons .lr-grid{font-size:1.4em}
.liuren-page .lr-lessons .lr-grid button{line-height:1.25;padding:.1em .45em}
.liuren-page .lr-transmissions .lr-grid{font-size:1.1em;gap:2px .5em;justify-items:start}
.liuren-page .lr-transmissions .lr-grid button{border-color:transparent;background:none;padding:0 .1em}
.liuren-page .lr-label{font-size:.75em;color:#777}
.liuren-page .lr-grid>*{white-space:nowrap}
@media (max-width:560px){.liuren-page .lr-board{grid-template-columns:minmax(0,1fr)}
  .liuren-page .lr-plates{grid-row:auto}
  .liuren-page .lr-board>.lr-lessons,.liuren-page .lr-board>.lr-transmissions{grid-column:1}}
.liuren-page .lr-panel{margin-top:1.2em;border-top:2px solid #e4e8ee;padding-top:.8em}
.liuren-page .lr-deriv{display:flex;flex-wrap:wrap;gap:.8em;align-items:flex-start}
.liuren-page .lr-told{flex:1 1 16em;min-width:0}
.liuren-page .lr-figure{flex:2 1 20em;min-width:0}
.liuren-page .lr-figure figure{margin:.2em 0;overflow:auto;max-height:75vh;border:1px solid #eee;cursor:grab}
.liuren-page .lr-figure svg{height:auto;display:block}
.liuren-page .lr-zoom button{font-size:.8em;padding:0 .5em;margin-right:.3em}
.liuren-page .lr-which{color:#555;font-size:.9em;margin:.2em 0}
.liuren-page .lr-steps li{margin:.3em 0}
.liuren-page .lr-cite{color:#8a6d00;font-size:.85em}
.liuren-page summary{cursor:pointer;color:#1a56b0}
.liuren-page summary:hover{text-decoration:underline}
.liuren-page pre{font-size:.8em;overflow:auto;background:#fafafa;padding:.6em}
.liuren-page .lr-present{position:fixed;inset:0;z-index:100;display:block;margin:0;padding:.6em 1.2em;
  overflow:auto;background:#fff;font-size:24px;line-height:1.45}
.liuren-page .lr-present .lr-figure figure{max-height:none;overflow-x:auto;border:none}
.liuren-page .lr-present .lr-zoom{position:sticky;top:0;background:#fff;z-index:1}
"""
ZOOM_SCRIPT = """
(function(){
  if(window.lrZoom) return; window.lrZoom = true;
  window.lrCentre = function(box){  // a picture opens on its root: the top of it, in the middle
    box.querySelectorAll('.lr-figure figure').forEach(function(f){ f.scrollLeft = (f.scrollWidth - f.clientWidth) / 2; });
  };
  document.addEventListener('click', function(e){  // 「放映」: the derivation on the whole screen, text >= 18 px
    var p = e.target.closest('button[data-present]'), stage = p && (p.closest('.lr-deriv') || p.closest('.lr-figure'));
    if(!stage) return;
    var on = !stage.classList.contains('lr-present'), box = p.closest('.lr-figure');
    stage.classList.toggle('lr-present', on);
    if(on) box.setAttribute('data-zoom-was', box.style.getPropertyValue('--lr-zoom') || '%s');
    box.style.setProperty('--lr-zoom', on ? '%s' : box.getAttribute('data-zoom-was'));
    p.textContent = p.getAttribute(on ? 'data-end' : 'data-present');
    if(on){ stage.scrollTop = 0; window.lrCentre(stage); }
  });
  document.addEventListener('keydown', function(e){
    var on = e.key === 'Escape' && document.querySelector('.lr-present button[data-present]');
    if(on) on.click();
  });
  document.addEventListener('click', function(e){
    var b = e.target.closest('button[data-zoom]');
    var box = b && b.closest('.lr-figure'), svg = box && box.querySelector('svg[data-width]');
    if(!svg) return;
    var figure = svg.parentElement, now = parseFloat(box.style.getPropertyValue('--lr-zoom')) || %s;
    var z = b.getAttribute('data-zoom');
    var next = z === 'fit' ? figure.clientWidth / parseFloat(svg.getAttribute('data-width')) : now * parseFloat(z);
    box.style.setProperty('--lr-zoom', Math.max(0.2, Math.min(4, next)).toFixed(3));
    window.lrCentre(box);
  });
  var drag = null;
  document.addEventListener('pointerdown', function(e){
    var figure = e.target.closest('.lr-figure figure');
    if(figure && e.button === 0) drag = {f: figure, x: e.clientX, y: e.clientY, l: figure.scrollLeft, t: figure.scrollTop};
  });
  document.addEventListener('pointermove', function(e){
    if(drag){ drag.f.scrollLeft = drag.l - (e.clientX - drag.x); drag.f.scrollTop = drag.t - (e.clientY - drag.y); }
  });
  document.addEventListener('pointerup', function(){ drag = null; });
})();
""" % (ZOOM, PRESENT, ZOOM)
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
    if(window.lrCentre) window.lrCentre(panel);
    var top = panel.getBoundingClientRect().top;  // the derivation brought into view
    if(top < 0 || top > window.innerHeight * 0.6) panel.scrollIntoView({block: 'start'});
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

    def size(match: re.Match) -> str:  # drawn at ZOOM times its size (text of 11 px at 13), zoomable
        tag = re.sub(r'\s(width|height)="[^"]*"', "", match.group(0))
        width = re.search(r'\swidth="([\d.]+)(px|pt)?"', match.group(0))
        if not width:
            return tag
        px = float(width.group(1)) * (4 / 3 if width.group(2) == "pt" else 1)
        return tag[:-1] + f' data-width="{px:.0f}" style="width:calc(var(--lr-zoom, {ZOOM}) * {px:.0f}px)">'

    return re.sub(r"<svg\b[^>]*>", size, text, count=1).strip()


# the chart --------------------------------------------------------------------------
def _inner(cell: Cell) -> str:
    return (f"<small>{esc(cell.note)}</small>" if cell.note else "") + esc(cell.text)


def _cell_html(cell: Cell, every: bool) -> str:
    return f'<span class="lr-faint">{_inner(cell)}</span>' if cell.faint else _asking(cell.ask, _inner(cell), every)


def _asking(ask: Optional[tuple], inner: str, every: bool) -> str:
    """``inner`` in a button that asks for a derivation (a conclusion of the page's templates by
    ``data-key``; with ``every``, any question by ``data-q``), else as plain text."""
    question, value = ask or (None, None)
    if question in CONCLUSIONS:
        return f'<button type="button" class="" data-key="{question}">{inner}</button>'
    if question and every:
        return f'<button type="button" class="" data-q="{esc(question)}" data-value="{esc(value or "")}">{inner}</button>'
    return f"<span>{inner}</span>"


def _grid_html(section: Section, every: bool) -> str:
    """A grid section as a CSS grid: each column of ``stack`` rows one cell (a lesson: its
    general, upper and lower), labels above."""
    width = max(len(row) for row in section.rows)
    cells = [f'<span class="lr-label">{esc(x)}</span>' for x in ("", *section.labels)] if section.labels else []
    for top in range(0, len(section.rows), section.stack):
        block = section.rows[top:top + section.stack]
        for i in range(width):
            stacked = [row[i] for row in block if i < len(row) and row[i] is not None]
            if not stacked:
                cells.append("<span></span>")
            else:
                cells.append(_asking(stacked[0].ask, "<br>".join(map(_inner, stacked)), every)
                             if len(stacked) > 1 else _cell_html(stacked[0], every))
    return (f'<div class="lr-grid" style="grid-template-columns:repeat({width},auto)">{"".join(cells)}</div>')


def section_html(section: Section, every: bool = False) -> str:
    """One section of the board (:func:`board.sections`) as HTML, in the text board's words."""
    title = f"<h2>{esc(section.title)}</h2>" if section.title else ""
    if section.grid:
        body = _grid_html(section, every)
    else:
        body = _rows_html(section.rows, section.sep, every)
    if section.fold:  # opens in place
        body += (f'<details class="lr-more"><summary>{esc(section.fold.summary)}</summary>'
                 f"{_rows_html(section.fold.rows, section.sep, every)}</details>")
    return f'<section class="lr-sec lr-{section.key}">{title}{body}</section>'


def _rows_html(rows: list, sep: str, every: bool) -> str:
    return "".join("<p>" + esc(sep).join(_cell_html(c, every) for c in row if c) + "</p>" for row in rows)


def board_html(chart: "Chart", lang: str = "zh", every: bool = False, **options) -> str:
    """The board's sections in the text board's order, each conclusion a button (every cell
    that names a question with ``every``, as the app does)."""
    return f'<div class="lr-board">{"".join(section_html(s, every) for s in sections(chart, lang, **options))}</div>'


# the derivations ----------------------------------------------------------------------
def steps_html(steps: list[tuple[int, Step]], lang: str) -> str:
    items = "".join(f'<li value="{i}"><b>{esc(s.title)}</b> {esc(s.text)}<br>'
                    + "".join(f"· {esc(item['text'])}<br>" for item in s.items)
                    + (f'<span class="lr-cite">{esc(cite(s, lang))}</span>' if cite(s, lang) else "") + "</li>"
                    for i, s in steps)
    return f'<ol class="lr-steps">{items}</ol>'


def conclusion_title(chart: "Chart", key: str, graph: "nx.DiGraph", lang: str) -> str:
    root = graph.nodes[graph.graph["root"]]
    return PAGE_WORDS[lang]["why"].format(what=root.get(lang) or root.get("text", key))


def picture_html(graph: "nx.DiGraph", lang: str = "zh", engine: Optional[str] = None) -> str:
    """The reader's view of a derivation as an inline SVG figure at a readable size, in a box
    that scrolls (drag to pan) with buttons to zoom out, in and to the whole picture."""
    p = PAGE_WORDS[lang]
    tools = "".join(f'<button type="button" data-zoom="{z}">{esc(p[name])}</button>'
                    for z, name in (("0.8", "smaller"), ("1.25", "larger"), ("fit", "whole_picture")))
    tools += (f'<button type="button" data-present="{esc(p["present"])}" data-end="{esc(p["end"])}">'
              f'{esc(p["present"])}</button>')
    return (f'<div class="lr-figure"><div class="lr-zoom">{tools}</div>'
            f"<figure>{inline_svg(render(compact(graph), 'svg', lang, engine=engine))}</figure></div>")


def derivation_html(chart: "Chart", key: str, steps: list[Step], lang: str = "zh", engine: Optional[str] = None,
                    value: Optional[str] = None, whole: bool = False) -> str:
    """What the panel shows for one conclusion (``key``, or a relation and its ``value``): its
    steps of the lesson, numbered as in the lesson (and, with ``whole``, the whole lesson
    folded), beside its picture; its text tree."""
    graph = chart.session.why(chart, key, value)
    p = PAGE_WORDS[lang]
    numbered = [(i, s) for i, s in enumerate(steps, 1) if s.key in CONCLUSION_STEPS.get(key, ())]
    which = p["sep"].join(str(i) for i, _ in numbered)
    caption = (f'<p class="lr-which">{esc(p["steps_of"].format(which=which, n=len(steps)))}</p>' if numbered else "")
    lesson = (f'<details class="lr-whole"><summary>{esc(p["whole"])}</summary>'
              f"{steps_html(list(enumerate(steps, 1)), lang)}</details>" if whole else "")
    return (f"<h3>{esc(conclusion_title(chart, key, graph, lang))}</h3>"
            f'<div class="lr-deriv"><div class="lr-told">{caption}{steps_html(numbered, lang)}{lesson}</div>'
            f"{picture_html(graph, lang, engine)}</div>"
            f"<details><summary>{esc(p['tree'])}</summary><pre>{esc(render_tree(graph, lang))}</pre></details>")


def available(chart: "Chart", key: str) -> bool:
    """Whether the chart has this conclusion (an undecided chart has no method or transmissions)."""
    if key == "method":
        return chart.method is not None
    return bool(chart.lessons) if key.startswith("lesson") else bool(chart.transmissions)


def fragment(chart: "Chart", lang: str = "zh", engine: Optional[str] = None,
             steps: Optional[list[Step]] = None, question: Optional[str] = None) -> str:
    """The chart, its clickable conclusions and their precomputed derivations, as an HTML fragment
    (``question``: the querent's words, shown with the 斷 of a chart cast with a matter)."""
    steps = steps if steps is not None else lesson_steps(chart, lang)
    keys = [k for k in CONCLUSIONS if available(chart, k)]
    templates = "".join(f'<template data-key="{k}">{derivation_html(chart, k, steps, lang, engine)}</template>'
                        for k in keys)
    return (f'<div class="liuren-page" lang="{"zh-Hant" if lang == "zh" else "en"}"><style>{CSS}</style>'
            f"{board_html(chart, lang, question=question)}"
            f'<aside class="lr-panel"><p>{esc(PAGE_WORDS[lang]["hint"])}</p></aside>'
            f"{templates}<script>{ZOOM_SCRIPT}{SCRIPT}</script></div>")


def page(chart: "Chart", lang: str = "zh", engine: Optional[str] = None, question: Optional[str] = None) -> str:
    """A whole HTML document (no network): the fragment, then the whole lesson."""
    steps = lesson_steps(chart, lang)
    p = PAGE_WORDS[lang]
    lesson = steps_html(list(enumerate(steps, 1)), lang)
    return ("<!DOCTYPE html>\n"
            f'<html lang="{"zh-Hant" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(p['title'].format(chart=chart.id))}</title></head><body>"
            f"<h1 style=\"font-family:sans-serif\">{esc(p['title'].format(chart=chart.id))}</h1>"
            f"{fragment(chart, lang, engine, steps, question)}"
            f'<section class="liuren-page"><h2>{esc(p["lesson"])}</h2>{lesson}</section>'
            "</body></html>\n")


__all__ = ["page", "fragment", "board_html", "inline_svg", "picture_html", "derivation_html", "CONCLUSIONS"]
