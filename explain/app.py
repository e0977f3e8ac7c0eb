"""The teaching app's page and the answers it shows (``liuren serve``).

:func:`app_page` is one HTML document with its CSS and script inline (nothing fetched
from elsewhere). The script asks the server's API; each answer's HTML is built here,
from the same pieces as ``liuren page``: :func:`board` (the board, every conclusion a
button), :func:`derivation` (lesson steps, picture, text tree), :func:`refutation` (a
why-not) and :func:`comparison` (what another reading changes, both derivations).
"""
from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Sequence

from .board import render_chart, spirits_section
from .contrast import answer
from .dispute_view import readings_first
from .glossary import glossed_lines
from .page import CSS, PRINT, ZOOM_SCRIPT, board_html, derivation_html, esc, picture_html, section_html
from .lesson import compare, differs_note, follows_line, header, lesson_steps
from .tree import render as render_tree
from liuren_logic.datalog.script import simplified

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart
    from liuren_logic.domain.errors import Notice

APP_WORDS = {
    "zh": {"title": "大六壬 推導課堂", "by_date": "以時刻起課", "by_pillars": "以干支起課", "at": "時刻",
           "tz": "時區", "longitude": "經度", "latitude": "緯度", "day": "日干支", "jiang": "月將", "hour": "占時",
           "offset": "或 轉數 0–11", "night": "夜", "month": "月建（可省）", "year": "年（可省）", "querent": "年命（可省）", "born": "生年或生日",
           "sex": "男女", "male": "男", "female": "女", "matter": "占事（可省，即斷）", "asked": "所問（可省）", "cast": "起課", "readings": "異說（點選即比較）",
           "whynot": "何以不是", "ask": "問", "as": "為", "text_board": "文字盤（同命令列）",
           "compare": "改用此說，本課有何不同", "unchanged": "此說不改本課任何結論。", "use": "以此說起課",
           "lang": "English", "hint": "點選四課、三傳、課法、天地盤之一格、神煞或課格，即見其推導。",
           "all_spirits": "全部神煞（連干陰、支陰）", "print": "列印講義", "now": "此刻", "browser_zone": "用瀏覽器時區：", "ids": "顯示內部代號（開發用）", "field_error": "〔{label}〕{message}",
           "questions": {"initial": "初傳", "middle": "中傳", "final": "末傳", "method": "課法", "noble": "貴人"},
           "quiz": "練習", "any_method": "任一課法", "with_keti": "兼問課體", "draw": "出題", "again": "再出一題", "score": "得分：{right}／{asked}", "full": "凡可得此結論之規則，各止於何處"},
    "en": {"title": "Da Liu Ren: derivations for teaching", "by_date": "cast from a moment", "by_pillars": "cast from pillars",
           "at": "moment", "tz": "time zone", "longitude": "longitude", "latitude": "latitude", "day": "day pillar",
           "jiang": "monthly general", "hour": "hour", "offset": "or offset 0–11", "night": "night", "month": "month (optional)", "year": "year (optional)", "querent": "the querent (optional)",
           "born": "born (year or date)", "sex": "sex", "male": "male", "female": "female",
           "matter": "the matter asked (optional: the 斷)", "asked": "the question (optional)", "cast": "cast",
           "readings": "disputed readings (pick one to compare)", "whynot": "why not", "ask": "ask", "as": "as",
           "text_board": "the board as text (as the command line prints it)",
           "compare": "what this reading changes on this chart", "unchanged": "This reading changes no conclusion of this chart.",
           "use": "cast with this reading", "lang": "中文",
           "hint": "Click a lesson, a transmission, the method, a palace, a spirit or a pattern to see its derivation.",
           "all_spirits": "every spirit (with those on 干陰 and 支陰)", "print": "print a handout", "now": "now", "browser_zone": "use the browser's zone: ", "ids": "show internal ids (for developers)", "field_error": "[{label}] {message}",
           "questions": {"initial": "initial", "middle": "middle", "final": "final", "method": "method", "noble": "noble"},
           "quiz": "practice", "any_method": "any method", "with_keti": "and a 課體", "draw": "ask me", "again": "another chart",
           "score": "score: {right}/{asked}",
           "full": "every rule that could have derived it, and where each stops"},
}
BRANCHES = "子丑寅卯辰巳午未申酉戌亥"
ENGINE = "python"  # pictures drawn here: about 7 times quicker than Graphviz, text in the viewer's fonts
WHY_NOT_QUESTIONS = ("initial", "middle", "final", "method", "noble")
FORM_FIELDS = ("at", "tz", "longitude", "latitude", "day", "jiang", "hour", "offset", "night", "month", "year",
               "born", "sex", "matter")


def board(chart: "Chart", lang: str = "zh", question: Optional[str] = None, notices: Sequence["Notice"] = ()) -> dict:
    """The chart as the app shows it: the board with its buttons (the 斷 last, for a chart cast with a
    matter; ``question``: the querent's words), and the text board; ``notices`` (a coordinate that
    changes nothing, the zone assumed) in ``lang`` above the board."""
    a = APP_WORDS[lang]
    notes = [notice.said(lang) for notice in notices]
    return {"id": chart.id, "school": chart.session.name, "header": header(chart, lang), "notes": notes,
            "html": "".join(f'<p class="lr-note">{esc(note)}</p>' for note in notes)
                    + (f'<div class="lr-head">{esc(header(chart, lang))}</div>'
                     f'{board_html(chart, lang, every=True, question=question)}'
                     f"<details class=\"lr-all\"><summary>{esc(a['all_spirits'])}</summary>"
                     f"{section_html(spirits_section(chart, lang, {'all_spirits': True}), every=True)}</details>"
                     f"<details><summary>{esc(a['text_board'])}</summary><pre>{esc(render_chart(chart, lang, question=question))}</pre>"
                     "</details>")}


@lru_cache(maxsize=64)
def _lesson(chart: "Chart", lang: str) -> list:
    """A chart's lesson, told once for the questions asked of it in a row."""
    return lesson_steps(chart, lang)


def derivation(chart: "Chart", question: str, value: Optional[str] = None, lang: str = "zh") -> dict:
    """What the panel shows for one conclusion: its lesson steps, picture and text tree."""
    return {"question": question, "value": value,
            "html": derivation_html(chart, question, _lesson(chart, lang), lang, ENGINE, value=value, whole=True)}


def refutation(chart: "Chart", question: str, value: str, lang: str = "zh") -> dict:
    """Why a conclusion is not ``value``: the decisive reason in a few lines and its
    derivation drawn; every rule that could have derived it folded below (as ``--full``)."""
    short = answer(chart, question, value, lang)
    short.lines[:0] = readings_first(chart, question, value, lang)  # another reading under which it holds
    if lang == "en":  # each term glossed at its first use, as the command says it
        short.lines = glossed_lines(chart.session, short.lines)
    short.lines = [_FLAG.sub(lambda m: _named_field(m.group(1), lang, m.group(0)), line) for line in short.lines]
    full = chart.session.why_not(chart, question, value)
    a = APP_WORDS[lang]
    lines = "".join(f"<p class=\"lr-short\">{esc(line)}</p>" for line in short.lines)
    return {"question": question, "value": value, "lines": short.lines,
            "html": f"<h3>{esc(a['whynot'])} {esc(value)}?</h3>{lines}{picture_html(short.picture(), lang, ENGINE)}"
                    f"<details><summary>{esc(a['full'])}</summary><pre>{esc(render_tree(full, lang))}</pre></details>"}


def comparison(before: "Chart", after: "Chart", question: str = "initial", lang: str = "zh") -> dict:
    """What the second chart's reading changes: each conclusion that differs, and the
    derivation of ``question`` under both readings (a why-not where one derives nothing)."""
    from liuren_logic.domain.audit import Difference, conclusion_name, conclusions, explain
    from liuren_logic.domain.disputes import school_name

    from .audit_page import change_html

    left, right = conclusions(before), conclusions(after)
    differ = [Difference(before.id, before.day, before.hour, before.offset, c, left[c], right.get(c, "—"))
              for c in left if left[c] != right.get(c, "—")]
    changes = [{"conclusion": d.conclusion, "before": d.before, "after": d.after, "lost": d.lost(),
                "gained": d.gained()} for d in differ]
    graphs = explain(before.session, after.session, before.id, question)
    columns = "".join(f'<div class="lr-side"><h3>{esc(school_name(reading, lang))}</h3>{picture_html(graph, lang, ENGINE)}'
                      f"<pre>{esc(render_tree(graph, lang))}</pre></div>" for reading, graph in graphs.items())
    rows = "".join(f"<tr><th>{esc(conclusion_name(d.conclusion, lang))}</th><td>{change_html(d)}</td></tr>"
                   for d in differ)
    table = (f'<table class="lr-changes"><tr><th></th><th>{esc(school_name(before.session.name, lang))} → '
             f"{esc(school_name(after.session.name, lang))}</th></tr>{rows}</table>") if changes else \
        f"<p>{esc(APP_WORDS[lang]['unchanged'])}</p>"
    steps = lesson_steps(after, lang)  # told afresh: the marks are set on these steps only
    follows = compare(steps, after, lesson_steps(before, lang), before)
    marked = [(i, s) for i, s in enumerate(steps, 1) if s.differs]
    items = "".join(f'<li value="{i}"><b>{esc(s.title)}</b> {esc(s.text)}<br>'
                    f'<span class="lr-cite">{esc(differs_note(s, lang))}</span></li>' for i, s in marked)
    lesson = (f'<p class="lr-follows">{esc(follows_line(steps, follows, lang))}</p>'
              + (f'<ol class="lr-steps">{items}</ol>' if marked else "")) if follows else ""
    return {"a": before.session.name, "b": after.session.name, "changes": changes,
            "steps": [{"number": i, "key": s.key, "differs": s.differs} for i, s in marked],
            "html": f'{table}{lesson}<div class="lr-sides">{columns}</div>'}


APP_CSS = """
body{margin:0;background:#fbfbfd}
.lr-app{padding:.6em 1em}
.lr-app form{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:flex-end;background:#f1f4f9;padding:.6em;border-radius:8px}
.lr-app fieldset{border:1px solid #d8dee8;border-radius:6px;display:flex;flex-wrap:wrap;gap:.4em;align-items:flex-end}
.lr-app label{display:flex;flex-direction:column;font-size:.8em;color:#555}
.lr-app input,.lr-app select{font:inherit;font-size:1.1em;padding:.15em .3em;max-width:14em}
.lr-app .lr-error{color:#a00;font-weight:bold;margin:.5em 0}
.lr-app .lr-note{color:#8a5a00;margin:.2em 0}
.lr-app .lr-readings{display:flex;flex-wrap:wrap;gap:.3em 1em;font-size:.9em}
.lr-app .lr-whynot{margin-top:.8em;display:flex;gap:.4em;flex-wrap:wrap;align-items:center}
.lr-app .lr-sides{display:flex;flex-wrap:wrap;gap:1em}
.lr-app .lr-side{flex:1 1 28em;min-width:0;border:1px solid #e4e8ee;padding:.4em}
.lr-app .lr-changes td,.lr-app .lr-changes th{border:1px solid #ddd;padding:.2em .5em;text-align:left}
.lr-app del{color:#a00;text-decoration:none}.lr-app ins{color:#070;text-decoration:none}
.lr-app .lr-main{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.5em;align-items:start}
.lr-app #lr-board{min-width:0;overflow-x:auto}
.lr-app .lr-right .lr-plates .lr-grid{font-size:1.2em}
.lr-app .lr-right{position:sticky;top:0;max-height:100vh;overflow:auto}
.lr-app .lr-right .lr-panel{margin-top:.4em}
.lr-app.liuren-page{max-width:1600px}
.lr-app .lr-bad{outline:2px solid #c00;background:#fff0f0}
.lr-app .lr-trainer{margin-top:.5em;display:flex;gap:.4em;flex-wrap:wrap;align-items:center}
.lr-app .lr-choices button{min-width:2.4em;margin:.15em}
.lr-app .lr-verdict{border-left:4px solid #999;padding:.1em .6em;margin:.4em 0}
.lr-app .lr-verdict.lr-correct{border-color:#2a8a2a}
.lr-app .lr-verdict.lr-wrong{border-color:#c33;background:#fff7f5}
.lr-app .lr-score{font-weight:bold}
.lr-app label.lr-inline{flex-direction:row;align-items:center;gap:.2em;font-size:.9em}
.lr-app h1 small button{font-size:.6em;vertical-align:middle}
@page lr-wide{size:A4 landscape}
@media print{
  .lr-app form,.lr-app .lr-options,.lr-app .lr-whynot,.lr-app .lr-trainer,.lr-app h1 small,.lr-app .lr-zoom,
  .lr-app .lr-error{display:none}
  .lr-app .lr-main,.lr-app .lr-deriv{display:block}
  .lr-app .lr-right{position:static;max-height:none;overflow:visible}
  .lr-app .lr-figure figure{max-height:none;overflow:visible;border:none}
  .lr-app .lr-figure{--lr-zoom:PRINT_ZOOM !important;break-before:page;page:lr-wide}
  .lr-app button{border:none;background:none;padding:0}
  .lr-app details.lr-whole>*{display:block}
  .lr-app details.lr-whole::details-content{content-visibility:visible;display:block}
  body{background:white}}
@media (max-width:900px){.lr-app .lr-main{grid-template-columns:minmax(0,1fr)}
  .lr-app .lr-right{position:static;max-height:none}}
@media (max-width:600px){.lr-app{padding:.3em}.liuren-page .lr-board{gap:.8em}}
""".replace("PRINT_ZOOM", str(PRINT))  # the handout's scale of the picture

APP_SCRIPT = """
(function(){
  var root = document.querySelector('.lr-app'), form = root.querySelector('form');
  var boardBox = root.querySelector('#lr-board'), panel = root.querySelector('.lr-panel');
  var errorBox = root.querySelector('.lr-error'), lang = root.getAttribute('data-lang');
  var simple = root.getAttribute('data-simplified') === '1';
  var last = null, selected = null, store = window.sessionStorage;
  var score = JSON.parse((store && store.getItem('lr-score')) || '{"asked":0,"right":0}');
  function fields(){
    var data = new FormData(form), out = new URLSearchParams();
    var mode = data.get('mode');
    (mode === 'date' ? ['at','tz','longitude','latitude'] : ['day','jiang','hour','offset','night','month','year'])
      .concat(['born','sex','matter','asked'])
      .forEach(function(k){ var v = data.get(k); if(v) out.set(k, k === 'at' ? v.replace('T',' ') : v); });
    var readings = [];
    root.querySelectorAll('select[data-topic]').forEach(function(s){
      if(s.value !== s.getAttribute('data-chosen')) readings.push(s.getAttribute('data-topic') + '=' + s.value);
    });
    if(readings.length) out.set('reading', readings.join(','));
    out.set('lang', lang);
    if(simple) out.set('simplified', '1');
    if(root.querySelector('#lr-ids').checked) out.set('ids', '1');
    return out;
  }
  // the address holds the chart, the readings and what the panel shows: a reload or the other
  // language shows the same
  function remember(){
    var state = new URLSearchParams(last || '');
    if(selected) state.set('show', selected);
    history.replaceState(null, '', '?' + state.toString());
    var other = new URLSearchParams(state); other.set('lang', lang === 'zh' ? 'en' : 'zh'); other.delete('simplified');
    root.querySelector('#lr-lang').setAttribute('href', '?' + other.toString());
    var script = new URLSearchParams(state); script.set('lang', 'zh');  // 简体 ↔ 繁體, the chart kept
    if(simple) script.delete('simplified'); else script.set('simplified', '1');
    var link = root.querySelector('#lr-script'); if(link) link.setAttribute('href', '?' + script.toString());
  }
  function ask(path, params){
    errorBox.textContent = '';
    form.querySelectorAll('.lr-bad').forEach(function(x){ x.classList.remove('lr-bad'); });
    return fetch(path + '?' + params.toString()).then(function(r){
      return r.json().then(function(data){
        if(!r.ok){
          errorBox.textContent = data.error;
          var field = data.field && form.elements[data.field];
          if(field && field.classList){ field.classList.add('lr-bad'); }
          throw new Error(data.error);
        }
        return data;
      });
    });
  }
  function show(html, showing){
    panel.innerHTML = html; panel.setAttribute('data-showing', showing);
    if(window.lrCentre) window.lrCentre(panel);
    if(showing && panel.getBoundingClientRect().top > window.innerHeight) panel.scrollIntoView();
  }
  function cast(){
    last = fields(); selected = null; remember();
    return ask('/api/cast', last).then(function(data){
      boardBox.innerHTML = data.html; boardBox.setAttribute('data-chart', data.id);
      show('<p>' + root.getAttribute('data-hint') + '</p>', '');
    });
  }
  function mark(q, value){
    boardBox.querySelectorAll('button.lr-on').forEach(function(x){ x.classList.remove('lr-on'); });
    var b = boardBox.querySelector(value ? 'button[data-q="' + q + '"][data-value="' + value + '"]'
                                         : 'button[data-key="' + q + '"]');
    if(b) b.classList.add('lr-on');
  }
  function why(q, value){
    var p = new URLSearchParams(last); p.set('q', q); if(value) p.set('value', value);
    selected = 'why:' + q + (value ? ':' + value : ''); remember(); mark(q, value);
    return ask('/api/why', p).then(function(d){ show(d.html, q + (value ? ':' + value : '')); });
  }
  function whyNot(q, value){
    var p = new URLSearchParams(last); p.set('q', q); p.set('value', value);
    selected = 'whynot:' + q + ':' + value; remember();
    return ask('/api/whynot', p).then(function(d){ show(d.html, 'whynot'); });
  }
  function restore(shown){
    var parts = (shown || '').split(':');
    if(parts[0] === 'why') return why(parts[1], parts[2]);
    if(parts[0] === 'whynot'){
      root.querySelector('#lr-whynot-q').value = parts[1]; root.querySelector('#lr-whynot-value').value = parts[2];
      return whyNot(parts[1], parts[2]);
    }
    if(parts[0] === 'quiz') return quiz(parts[1]);
  }
  // the trainer: the chart's plates and lessons, one question at a time, a score per session
  var drill = null;
  function quiz(method){
    var p = new URLSearchParams(); p.set('lang', lang); if(method) p.set('method', method);
    if(simple) p.set('simplified', '1');
    if(root.querySelector('#lr-quiz-keti').checked) p.set('keti', '1');
    selected = 'quiz:' + (method || ''); remember();
    return ask('/api/quiz', p).then(function(d){ drill = d; d.at = 0; show(d.html, 'quiz'); next(); });
  }
  function next(){
    var box = panel.querySelector('.lr-question'), q = drill.questions[drill.at];
    if(!q){ box.innerHTML = '<button type="button" id="lr-quiz-again">' + root.getAttribute('data-again') + '</button>'; return; }
    box.innerHTML = '<p><b>' + q.prompt + '</b></p><p class="lr-choices">' + q.choices.map(function(c){
      return '<button type="button" data-choice="' + c + '">' + c + '</button>'; }).join(' ') + '</p>';
  }
  function answer(choice){
    var q = drill.questions[drill.at], p = new URLSearchParams(drill.chart);
    p.set('lang', lang); p.set('question', q.key); p.set('choice', choice);
    if(simple) p.set('simplified', '1');
    return ask('/api/quiz/answer', p).then(function(d){
      score.asked += 1; score.right += d.right ? 1 : 0;
      if(store) store.setItem('lr-score', JSON.stringify(score));
      var said = document.createElement('div'); said.className = 'lr-verdict ' + (d.right ? 'lr-correct' : 'lr-wrong');
      said.innerHTML = d.html; panel.querySelector('.lr-verdicts').appendChild(said);
      panel.querySelector('.lr-score').textContent = root.getAttribute('data-score')
        .replace('{right}', score.right).replace('{asked}', score.asked);
      drill.at += 1; next();
    });
  }
  form.addEventListener('submit', function(e){ e.preventDefault(); cast().catch(function(){}); });
  boardBox.addEventListener('click', function(e){
    var b = e.target.closest('button[data-q], button[data-key]');
    if(!b || !last) return;
    why(b.getAttribute('data-q') || b.getAttribute('data-key'), b.getAttribute('data-value')).catch(function(){});
  });
  root.querySelector('#lr-whynot').addEventListener('click', function(){
    if(!last) return;
    whyNot(root.querySelector('#lr-whynot-q').value, root.querySelector('#lr-whynot-value').value).catch(function(){});
  });
  root.querySelector('#lr-quiz').addEventListener('click', function(){
    quiz(root.querySelector('#lr-quiz-method').value).catch(function(){});
  });
  root.querySelector('#lr-print').addEventListener('click', function(){ window.print(); });
  var closed = [];  // the handout holds every step of the lesson: the folded whole lesson opened to print
  window.addEventListener('beforeprint', function(){
    closed = Array.from(panel.querySelectorAll('details.lr-whole:not([open])'));
    closed.forEach(function(d){ d.open = true; });
  });
  window.addEventListener('afterprint', function(){ closed.forEach(function(d){ d.open = false; }); });
  root.querySelector('#lr-ids').addEventListener('change', function(){  // a developer's view: ids beside names
    if(!last) return;
    var shown = selected;
    cast().then(function(){ return restore(shown); }).catch(function(){});
  });
  root.querySelector('.lr-readings').addEventListener('change', function(e){
    var s = e.target.closest('select[data-topic]');
    if(!s || !last) return;
    var p = new URLSearchParams(last); p.delete('reading');
    p.set('vs', s.getAttribute('data-topic') + '=' + s.value);
    p.set('q', root.querySelector('#lr-whynot-q').value);
    var use = '<p><button type="button" id="lr-use">' + root.getAttribute('data-use') + '</button></p>';
    ask('/api/compare', p).then(function(d){ show(use + d.html, 'compare'); }).catch(function(){});
  });
  panel.addEventListener('click', function(e){
    if(e.target.id === 'lr-use') cast().catch(function(){});
    if(e.target.id === 'lr-quiz-again') quiz(root.querySelector('#lr-quiz-method').value).catch(function(){});
    var c = e.target.closest('button[data-choice]');
    if(c && drill){ c.parentElement.querySelectorAll('button').forEach(function(x){ x.disabled = true; });
      answer(c.getAttribute('data-choice')).catch(function(){}); }
  });
  function now(){  // the present moment in the chosen zone (Asia/Shanghai unless changed)
    var d = new Date(), local = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
    try {
      var got = {};
      new Intl.DateTimeFormat('en-CA', {timeZone: form.elements['tz'].value, hourCycle: 'h23', year: 'numeric',
        month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit'})
        .formatToParts(d).forEach(function(p){ got[p.type] = p.value; });
      local = got.year + '-' + got.month + '-' + got.day + 'T' + got.hour + ':' + got.minute + ':' + got.second;
    } catch(err){}  // a zone the browser does not know (an offset): the browser's own clock
    form.elements['at'].value = local;
  }
  var browserZone = '';
  try { browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch(err){}
  var zoneButton = root.querySelector('#lr-browser-zone');
  if(browserZone && browserZone !== form.elements['tz'].value){  // the browser's zone offered beside the chosen one
    zoneButton.textContent = zoneButton.getAttribute('data-label') + browserZone; zoneButton.hidden = false;
  }
  zoneButton.addEventListener('click', function(){ form.elements['tz'].value = browserZone; now(); });
  root.querySelector('#lr-now').addEventListener('click', function(){  // 「此刻」: cast the present moment
    form.elements['mode'][0].checked = true; now(); cast().catch(function(){});
  });
  ask('/api/readings', new URLSearchParams()).then(function(info){
    var box = root.querySelector('.lr-readings'), methods = root.querySelector('#lr-quiz-method');
    (info.methods || []).forEach(function(m){ var o = document.createElement('option'); o.value = o.textContent = m;
      methods.appendChild(o); });
    (info.matters || []).forEach(function(m){ var o = document.createElement('option'); o.value = m[0];
      o.textContent = lang === 'zh' ? m[0] : m[1] + ' (' + m[0] + ')'; form.elements['matter'].appendChild(o); });
    Object.keys(info.topics).forEach(function(topic){
      var t = info.topics[topic], label = document.createElement('label'), s = document.createElement('select');
      var named = t.names[lang] || t.names.zh;  // the topic's name, then each reading's, in the page's language
      label.textContent = named[0]; s.setAttribute('data-topic', topic); s.setAttribute('data-chosen', t.chosen);
      t.readings.forEach(function(r, i){ var o = document.createElement('option'); o.value = r; o.textContent = named[i + 1];
        if(r === t.chosen) o.selected = true; s.appendChild(o); });
      label.appendChild(s); box.appendChild(label);
    });
    var given = new URLSearchParams(location.search);
    given.forEach(function(v, k){ var input = form.elements[k];
      if(input && k !== 'mode'){ if(input.type === 'checkbox') input.checked = true;
        else input.value = k === 'at' ? v.replace(' ', 'T') : v; } });
    (given.get('reading') || '').split(',').forEach(function(pair){
      var kv = pair.split('='), s = root.querySelector('select[data-topic="' + kv[0] + '"]');
      if(s && kv[1]) s.value = kv[1];
    });
    if(given.get('day')) form.elements['mode'][1].checked = true;
    root.querySelector('#lr-ids').checked = given.get('ids') === '1';
    if(given.get('at') || given.get('day')) return cast().then(function(){ return restore(given.get('show')); });
    now(); remember();
    return restore(given.get('show'));
  }).catch(function(){});
})();
"""


def _field(name: str, words: dict, kind: str = "text", value: str = "", **attrs) -> str:
    extra = "".join(f' {k}="{esc(v)}"' for k, v in attrs.items())
    return (f'<label>{esc(words[name])}<input name="{name}" type="{kind}" value="{esc(value)}"{extra}></label>')


def _branch_select(name: str, words: dict) -> str:
    options = '<option value=""></option>' + "".join(f"<option>{b}</option>" for b in BRANCHES)
    return f'<label>{esc(words[name])}<select name="{name}">{options}</select></label>'


def app_page(lang: str = "zh", simple: bool = False) -> str:
    """The app: a form to cast from a moment (now in Asia/Shanghai, unless the address says otherwise;
    「此刻」 casts the present, the browser's zone offered) or from pillars, the board, the panel,
    why-not, the trainer, a print button and the developers' ids toggle; ``simple``: in simplified
    characters (简体), its answers too."""
    a = APP_WORDS[lang]
    other = "en" if lang == "zh" else "zh"
    questions = "".join(f'<option value="{q}">{esc(a["questions"][q])}</option>' for q in WHY_NOT_QUESTIONS)
    moment = ("<fieldset><label><input type=\"radio\" name=\"mode\" value=\"date\" checked>"
              f"{esc(a['by_date'])}</label>" + _field("at", a, "datetime-local", step="1")
              + _field("tz", a, value="Asia/Shanghai")
              + f'<button type="button" id="lr-now">{esc(a["now"])}</button>'
              + f'<button type="button" id="lr-browser-zone" hidden data-label="{esc(a["browser_zone"])}"></button>'
              + _field("longitude", a, size="6")
              + _field("latitude", a, size="6") + "</fieldset>")
    pillars = ("<fieldset><label><input type=\"radio\" name=\"mode\" value=\"pillars\">"
               f"{esc(a['by_pillars'])}</label>" + _field("day", a, size="3", placeholder="辛巳")
               + _branch_select("jiang", a) + _branch_select("hour", a) + _field("offset", a, "number", min="0", max="11")
               + f'<label>{esc(a["night"])}<input name="night" type="checkbox" value="1"></label>'
               + _field("month", a, size="3", placeholder="癸亥") + _field("year", a, size="4", placeholder="戊寅")
               + "</fieldset>")
    sexes = "".join(f'<option value="{v}">{esc(t)}</option>' for v, t in (("", ""), ("m", a["male"]), ("f", a["female"])))
    querent = (f"<fieldset><legend>{esc(a['querent'])}</legend>" + _field("born", a, size="10", placeholder="1970")
               + f'<label>{esc(a["sex"])}<select name="sex">{sexes}</select></label></fieldset>')
    matter = (f'<fieldset><label>{esc(a["matter"])}<select name="matter"><option value=""></option></select></label>'
              + _field("asked", a, size="12") + "</fieldset>")
    trainer = (f'<div class="lr-trainer">{esc(a["quiz"])} <select id="lr-quiz-method"><option value="">'
               f'{esc(a["any_method"])}</option></select><label class="lr-inline"><input type="checkbox" id="lr-quiz-keti">'
               f'{esc(a["with_keti"])}</label> <button type="button" id="lr-quiz">{esc(a["draw"])}</button></div>')
    data = {"lang": lang, "simplified": "1" if simple else "", "hint": a["hint"], "use": a["use"], "again": a["again"],
            "score": a["score"]}
    page = ("<!DOCTYPE html>\n"
            f'<html lang="{"zh-Hant" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(a['title'])}</title><style>{CSS}{APP_CSS}</style></head><body>"
            '<div class="lr-app liuren-page" ' + " ".join(f'data-{k}="{esc(v)}"' for k, v in data.items()) + ">"
            f'<h1>{esc(a["title"])} <small><a id="lr-lang" href="/?lang={other}">{esc(a["lang"])}</a> '
            + (f'<a id="lr-script" href="/?lang=zh{"" if simple else "&amp;simplified=1"}">'
               f'{"繁體" if simple else "简体"}</a> ' if lang == "zh" else "")
            + f'<button type="button" id="lr-print">{esc(a["print"])}</button> '
            f'<label class="lr-inline lr-dev"><input type="checkbox" id="lr-ids">{esc(a["ids"])}</label></small></h1>'
            f'<form>{moment}{pillars}{querent}{matter}<button type="submit" id="lr-cast">{esc(a["cast"])}</button></form>'
            f'<details class="lr-options"><summary>{esc(a["readings"])}</summary><div class="lr-readings"></div></details>'
            '<div class="lr-error" role="alert"></div><div class="lr-main"><div id="lr-board"></div><div class="lr-right">'
            f'<div class="lr-whynot">{esc(a["whynot"])} <input id="lr-whynot-value" size="3" placeholder="丑">'
            f' {esc(a["as"])} <select id="lr-whynot-q">{questions}</select>'
            f' <button type="button" id="lr-whynot">{esc(a["ask"])}</button></div>{trainer}'
            f'<aside class="lr-panel"><p>{esc(a["hint"])}</p></aside></div></div>'
            f"</div><script>{APP_SCRIPT}{ZOOM_SCRIPT}</script></body></html>\n")
    if not simple:
        return page
    return simplified(page).replace('lang="zh-Hant"', 'lang="zh-Hans"').replace(">繁体</a>", ">繁體</a>")  # 繁體 says itself


def quiz_page(chart: "Chart", lang: str = "zh", keti: bool = False, rng: Optional[random.Random] = None) -> dict:
    """A trainer's chart: its plates and lessons, the questions with their choices (a 課體 among
    four with ``keti``, drawn with ``rng``), the fields that name it again (``day`` and ``offset``)."""
    from .quiz import WORDS as QUIZ_WORDS, choices, questions, shown

    a, rng = APP_WORDS[lang], rng or random.Random()
    asked = [{"key": q, "prompt": QUIZ_WORDS[lang][q], "choices": choices(chart, q, rng)}
             for q in questions(chart, keti)]
    return {"chart": {"day": chart.day, "offset": str(chart.offset)}, "questions": asked,
            "html": f'<h3>{esc(a["quiz"])}</h3><div class="lr-board">' + "".join(section_html(s) for s in shown(chart, lang))
                    + "</div>"
                    + '<div class="lr-verdicts"></div><div class="lr-question"></div><p class="lr-score"></p>'}


def quiz_verdict(chart: "Chart", question: str, choice: str, lang: str = "zh") -> dict:
    """The trainer's answer to one choice: right or not, the why-not of a wrong choice and the
    lesson's steps that derive the right answer (numbered as in the lesson); its ``lines`` as the
    terminal says them (in English each term glossed at its first use in the verdict)."""
    from .quiz import check, said

    verdict = check(chart, question, choice, lang)
    lines = said(chart, verdict, lang)
    return {**verdict.as_dict(), "lines": lines, "html": f'<p><b>{esc(choice)}</b> — {esc(lines[0])}</p>'
            + "".join(f'<p class="lr-short">{esc(line)}</p>' for line in lines[1:])}


def field_of(error: Exception) -> Optional[str]:
    """The form field an error is about (the one it carries, else its first ``--option``), for the page to mark it."""
    found = getattr(error, "field", "") or next(iter(re.findall(r"--([a-z]+)", str(error))), None)
    return found if found in FORM_FIELDS else None


def form_error(error: Exception, lang: str = "zh") -> dict:
    """An error as the app shows it, in ``lang`` (an :class:`~liuren_logic.domain.errors.InputError`'s ``zh``
    on the Chinese page): the field's label first (〔占時〕未填 …), and the field."""
    field = field_of(error)
    said = _FLAG.sub(lambda m: _named_field(m.group(1), lang, m.group(0)),
                     _SEE.sub("", error.said(lang) if hasattr(error, "said") else str(error)))
    label = _HINT.sub("", APP_WORDS[lang][field]) if field else None
    return {"error": APP_WORDS[lang]["field_error"].format(label=label, message=said) if label else said,
            "field": field}


def _named_field(name: str, lang: str, flag: str) -> str:
    """A command-line option as the form names it (``--hour`` → “hour”, 〔占時〕), or as it was."""
    if name not in FORM_FIELDS:
        return flag
    label = _HINT.sub("", APP_WORDS[lang][name])
    return f"〔{label}〕" if lang == "zh" else f"“{label}”"


_FLAG = re.compile(r"--([a-z]+)")
_SEE = re.compile(r" *\(see: liuren [^)]*\)")  # the command line's pointer to its --help
_HINT = re.compile(r"^(?:或|or) | 0–11$|（.*）$| \(.*\)$")  # a label's hint: 「或 轉數 0–11」 names 轉數


__all__ = ["app_page", "board", "derivation", "refutation", "comparison", "quiz_page", "quiz_verdict", "form_error"]
