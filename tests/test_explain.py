"""Explanations people read: the tree, the lesson, pictures, the page, the notebook hooks.

Lesson texts are reviewed snapshots in tests/snapshots/ (compared exactly; to rewrite
them after a deliberate change: ``UPDATE_SNAPSHOTS=1 pytest tests/test_explain.py`` and
read the diff). SVG is drawn in Python wherever Graphviz is absent; the tests that need
Graphviz, a CJK font or Chromium (system packages) skip, saying so, except under CI.
"""
from __future__ import annotations

import builtins
import doctest
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest

from conftest import CHROMIUM, has_cjk_font, needs_chromium, needs_cjk_font, needs_dot
from liuren_logic import Session
from liuren_logic.faces.cli import main
from liuren_logic.explain import Derivation, graph_look, lesson, page, picture, svg, tree, view
from liuren_logic.datalog.labels import showing_ids

SNAPSHOTS = Path(__file__).parent / "snapshots"
SEEDS = {"xinsi_yin_wu": ("辛巳", "寅", "午"), "dingwei_chou_xu": ("丁未", "丑", "戌")}


@pytest.fixture(scope="module")
def charts(session):
    return {name: session.cast(*inputs) for name, inputs in SEEDS.items()}


@pytest.fixture(scope="module")
def initial(session, charts):
    return session.why(charts["xinsi_yin_wu"], "initial")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def svg_texts(svg: bytes) -> str:
    """All the text an SVG shows, one string (text stays text: no glyph outlines)."""
    root = ET.fromstring(svg)
    return "\n".join("".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text"))


# the lesson -------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("name", sorted(SEEDS))
def test_lesson_matches_the_reviewed_snapshot(charts, name, lang):
    text = lesson.render_lesson(charts[name], lang) + "\n"
    path = SNAPSHOTS / f"lesson_{name}.{lang}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_lesson_goes_in_teaching_order_naming_rules_and_quoting_seed_lines(charts):
    for chart in charts.values():
        steps = lesson.lesson_steps(chart, "zh")
        assert [s.key for s in steps if s.key != "candidates"] == [
            "plate", "lessons", "ke", "method", "initial", "sequence", "carry", "generals", "keti", "patterns",
            "spirits", "marks", "strength"]  # 年命 and the month's 旺相 wait for a querent and a month
        assert all(s.rules and s.text for s in steps)
    steps = {s.key: s for s in lesson.lesson_steps(charts["xinsi_yin_wu"], "en")}
    assert "zeike.yuanshou" in steps["initial"].rules and "000: 如無下賊上剋初" in steps["initial"].sources
    assert "not 伏吟" in steps["method"].text and "not 返吟" in steps["method"].text
    bazhuan = {s.key: s for s in lesson.lesson_steps(charts["dingwei_chou_xu"], "zh")}
    assert "四課無剋，賊剋、比用、涉害無從取用" in bazhuan["method"].text
    assert bazhuan["method"].rules[:3] == ["unmet.fuyin", "unmet.fanyin", "unmet.no_ke"]


def test_teach_prints_every_step_when_stdin_is_not_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    code, out, _ = run(capsys, "teach", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--interactive")
    assert code == 0 and "一、天盤" in out and "九、天將" in out and "十四、旺相、長生" in out


def test_teach_interactive_waits_for_enter_between_steps(capsys, monkeypatch):
    class Terminal:
        def isatty(self):
            return True

    prompts = []
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(builtins, "input", lambda prompt="": prompts.append(prompt) or "")
    code, out, _ = run(capsys, "teach", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--interactive", "--lang", "en")
    assert code == 0 and len(prompts) == 13 and "9. The heavenly generals (天將)" in out

    def closed(prompt=""):
        raise EOFError

    monkeypatch.setattr(builtins, "input", closed)
    code, out, _ = run(capsys, "teach", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--interactive")
    assert code == 0 and "九、天將" in out


def test_teach_json_lists_the_steps(capsys):
    code, out, _ = run(capsys, "teach", "--day", "丁未", "--jiang", "丑", "--hour", "戌", "--json", "--simplified")
    import json

    steps = json.loads(out)["steps"]  # the lesson document (schemas/lesson.schema.json)
    assert code == 0 and steps[4]["rules"] == ["bazhuan.yin", "bazhuan.name"] and "八专" in steps[3]["text"]
    assert "initial(丁未日丑將戌時, 亥)" in steps[4]["atoms"]  # atoms keep the chart id as cast


# the text tree ---------------------------------------------------------------------
def test_tree_hides_plumbing_by_default_and_full_shows_everything(initial):
    short, full = tree.render(initial), tree.render(initial, full=True)
    assert "⇐ 無下賊，惟一上剋，午發用：元首" in short and "▪ 午屬火\n" in short
    assert "zeike.yuanshou" not in short and "element(" not in short and ".dl:" not in short
    with showing_ids():  # a developer's --ids: the rule ids, relations and KB files beside the names
        ids = tree.render(initial)
    assert "⇐ zeike.yuanshou: 無下賊" in ids and "▪ element(午, 火)  午屬火  [kb/core/symbols.dl:" in ids
    assert "✓ 8 = ((2 - 6) mod 12)" in full and "✓ 8 =" not in short
    assert "Σ K = count" in full and "Σ" not in short
    assert "✗ 不成立：丑剋酉" in short and "zeike.has_lower does not fire" not in short
    assert len(short.splitlines()) < len(full.splitlines())


def test_unlabelled_rule_steps_fold_into_the_nearest_shown_ancestor():
    g = nx.DiGraph(root="a")
    g.add_node("a", kind="atom", text="p(1)", zh="甲")
    g.add_node("r1", kind="rule", text="r1", rule="r.one", labelled=True, zh="一")
    g.add_node("b", kind="atom", text="q(1)", zh="乙")
    g.add_node("r2", kind="rule", text="r2", rule="r.two", labelled=False, zh="")
    g.add_node("f", kind="fact", text="s(1)", zh="丙", where="x.dl:3")
    g.add_node("c", kind="compare", text="1 < 2", holds=True)
    for a, b, k in (("a", "r1", 0), ("r1", "b", 0), ("b", "r2", 0), ("r2", "f", 0), ("r2", "c", 1)):
        g.add_edge(a, b, order=k)
    shown = view.compact(g)
    assert sorted(shown.edges) == [("a", "r1"), ("b", "f"), ("r1", "b")]
    text = tree.render(g)
    assert "r.two" not in text and "▪ 丙" in text and "s(1)" not in text
    assert "r.two" in tree.render(g, full=True)  # a step with no label is named by its id
    with showing_ids():
        assert "▪ s(1)  丙  [x.dl:3]" in tree.render(g)


def test_depth_counts_shown_levels(initial):
    lines = tree.render(initial, depth=2).splitlines()
    assert len(lines) == 6 and lines[-1].endswith("… 其下尚有 1 項")
    lines = tree.render(initial, "en", depth=2).splitlines()
    assert len(lines) == 6 and lines[-1].endswith("… 1 more below")


# pictures -----------------------------------------------------------------------------
@needs_dot
def test_dot_parses_even_with_colons_and_quotes_in_names(initial):
    g = nx.DiGraph(root='x:"1"')
    g.add_node('x:"1"', kind="atom", text='p("a:b")', zh='甲"乙', pred="p")
    g.add_node("y:2", kind="absent", text="q(c)", zh="丙")
    g.add_edge('x:"1"', "y:2", order=0)
    for graph in (g, initial, view.compact(initial)):
        done = subprocess.run(["dot", "-Tsvg"], input=picture.to_dot(graph).encode(), capture_output=True)
        assert done.returncode == 0, done.stderr


def test_dot_styles_by_kind_and_marks_chosen_and_rejected():
    g = nx.DiGraph(root="m")
    g.add_node("m", kind="aggregate", text="max", func="max", value=3)
    g.add_node("w", kind="atom", text="w(3)", zh="勝")
    g.add_node("l", kind="atom", text="w(1)", zh="負")
    g.add_node("x", kind="absent", text="v(1)", zh="無")
    g.add_edge("m", "w", order=0, chosen=True, counted="3")
    g.add_edge("m", "l", order=1, chosen=False, counted="1")
    g.add_edge("m", "x", order=2)
    dot = picture.to_dot(g)
    chosen = next(line for line in dot.splitlines() if 'label="✓ 3"' in line)
    assert graph_look.EDGE_STYLE["chosen"]["color"] in chosen and "penwidth" in chosen
    assert 'style="dashed"' in next(line for line in dot.splitlines() if 'label="1"' in line)
    absent = next(line for line in dot.splitlines() if "✗ 無" in line)
    assert "dashed" in absent and graph_look.NODE_STYLE["absent"]["color"] in absent
    assert "n0 [" in dot and "->" in dot and ":" not in re.sub(r'"[^"]*"', "", dot).replace("//", "")


@needs_dot
def test_svg_from_dot_keeps_the_chinese_labels_as_text(initial):
    texts = svg_texts(picture.render(view.compact(initial), "svg"))
    assert "初傳午" in texts and "⇐ 取賊剋，午發用" in texts and "zeike" not in texts
    with showing_ids():
        texts = svg_texts(picture.render(view.compact(initial), "svg"))
    assert "⇐ zeike.yuanshou" in texts and "無下賊，惟一上剋，午發用：元首" in texts


@needs_dot
def test_png_from_dot_is_a_png(initial):
    data = picture.render(view.compact(initial), "png")
    width, height = png_size(data)
    assert width > 200 and height > 200


def test_svg_drawn_in_python_keeps_the_labels_as_text_in_the_viewers_fonts(initial):
    shown = view.compact(initial)
    data = picture.render(shown, "svg", engine="python")
    texts = svg_texts(data)
    assert "初傳午" in texts and "⇐ 取賊剋，午發用" in texts and "method.zeike_initial" not in texts
    with showing_ids():
        assert "⇐ zeike.yuanshou" in svg_texts(picture.render(shown, "svg", engine="python"))
    root = ET.fromstring(data)
    assert "Noto Sans CJK TC" in root.get("font-family") and root.get("font-family").endswith("sans-serif")
    boxes = [el for el in root.iter() if el.tag.endswith("}rect")][1:]
    assert len(boxes) == shown.number_of_nodes()
    assert len([el for el in root.iter() if el.tag.endswith("}line")]) == shown.number_of_edges()
    assert data == picture.render(shown, "svg", engine="python")  # deterministic


def test_without_graphviz_svg_needs_nothing_and_png_says_what_to_install(initial, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert picture.default_engine("svg") == "python"
    assert "初傳午" in svg_texts(picture.render(view.compact(initial), "svg"))
    monkeypatch.setattr(picture, "cjk_font", lambda: (_ for _ in ()).throw(picture.RenderError("no CJK font", "無中日韓字型")))
    with pytest.raises(picture.RenderError) as error:
        picture.render(view.compact(initial), "png")
    assert "\n" not in str(error.value) and "apt-get install graphviz" in str(error.value)
    zh = error.value.said("zh")
    assert "\n" not in zh and zh.startswith("PNG 須有 Graphviz") and "apt-get install graphviz" in zh


def test_a_picture_that_cannot_be_made_is_said_in_the_language_asked(capsys, monkeypatch):
    """No Graphviz, no CJK font for matplotlib: one line about --format, in Chinese by default."""
    from liuren_logic.faces import cli

    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(picture, "cjk_font", lambda: (_ for _ in ()).throw(picture.RenderError("no CJK font", "無中日韓字型")))
    chart = ["why", "initial", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--format", "png"]
    assert cli.main(chart) == 2
    assert capsys.readouterr().err.startswith("liuren: PNG 須有 Graphviz")  # it names --format itself
    assert cli.main([*chart, "--lang", "en"]) == 2
    assert capsys.readouterr().err.startswith("liuren: PNG needs Graphviz")


@needs_cjk_font
def test_matplotlib_fallback_draws_svg_text_and_png(initial):
    shown = view.compact(initial)
    texts = svg_texts(picture.render(shown, "svg", engine="matplotlib"))
    assert "初傳午" in texts and "⇐ 取賊剋，午發用" in texts
    width, height = png_size(picture.render(shown, "png", engine="matplotlib"))
    assert width > 200 and height > 200


def test_why_formats_and_output_files(capsys, tmp_path):
    chart = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
    code, out, _ = run(capsys, "why", "initial", *chart, "--json")
    assert code == 0 and '"directed": true' in out
    code, out, _ = run(capsys, "why", "initial", *chart, "--format", "dot", "--full")
    assert code == 0 and out.startswith("digraph derivation {") and "✓ 8 = ((2 - 6) mod 12)" in out
    code, out, _ = run(capsys, "why", "initial", *chart, "--format", "dot")
    assert "✓ 8 =" not in out
    code, _, _ = run(capsys, "why-not", "initial", "丑", *chart, "--format", "svg", "-o", str(tmp_path / "n.svg"),
                     "--simplified")
    assert code == 0 and "贼克" in svg_texts((tmp_path / "n.svg").read_bytes())
    code, _, err = run(capsys, "why", "initial", *chart, "--format", "png", "--output", str(tmp_path / "i.png"))
    if shutil.which("dot") or has_cjk_font():
        assert code == 0 and png_size((tmp_path / "i.png").read_bytes())[0] > 0
    else:
        assert code == 2 and "apt-get install graphviz" in err and err.count("\n") == 1
    code, _, err = run(capsys, "why", "initial", *chart, "--format", "svg", "-o", str(tmp_path / "no" / "x.svg"),
                       "--lang", "en")
    assert code == 2 and "cannot write" in err


# derivations are networkx graphs --------------------------------------------------------
SNIPPET = ("import networkx as nx; from liuren_logic import Session; s=Session(); "
           "g=s.why(s.cast('辛巳', jiang='寅', hour='午'), 'initial'); "
           "print(isinstance(g, nx.DiGraph), len(nx.descendants(g, next(iter(g))))); nx.write_graphml(g, 'g.graphml')")


def scalar_attributes(graph) -> bool:
    """Whether every attribute of the graph, its nodes and edges is a text, a number or a truth value."""
    values = [*graph.graph.values(), *(v for _, a in graph.nodes(data=True) for v in a.values()),
              *(v for _, _, a in graph.edges(data=True) for v in a.values())]
    return all(isinstance(v, (str, int, float, bool)) for v in values)


def test_the_readme_snippet_gives_a_networkx_graph_that_graphml_writes_and_reads_back(initial, tmp_path):
    done = subprocess.run([sys.executable, "-c", SNIPPET], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", str(len(initial) - 1)] and len(initial) > 40  # the root reaches every node
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert list(back.nodes(data=True)) == list(initial.nodes(data=True))
    assert list(back.edges(data=True)) == list(initial.edges(data=True))
    assert {k: back.graph[k] for k in initial.graph} == initial.graph


def test_every_derivation_handed_out_is_a_digraph_with_scalar_attributes(session, charts, initial):
    from liuren_logic.domain.audit import explain
    from liuren_logic.explain.contrast import answer
    from liuren_logic.datalog.provenance import arguments, bindings

    chart, other = charts["xinsi_yin_wu"], Session(readings={"punishment": "seed000"})
    other.cast(*SEEDS["xinsi_yin_wu"])
    short = answer(charts["dingwei_chou_xu"], "pattern", "貴人入獄")
    graphs = {"why": initial, "why_not": session.why_not(chart, "initial", "丑"), "compact": Derivation(initial).shown,
              "contrast": answer(chart, "initial", "丑").graph, "closest": short.graph, "picture": short.picture(),
              **{f"audit {k}": g for k, g in explain(session, other, chart.id, "initial").items()}}
    for name, graph in graphs.items():
        assert type(graph) is nx.DiGraph and scalar_attributes(graph), name
        assert "\n".join(nx.generate_graphml(graph)).count("<node ") == len(graph), name
    kinds = {a["kind"] for g in graphs.values() for _, a in g.nodes(data=True)}
    assert {"atom", "fact", "rule", "not", "compare", "aggregate", "absent", "fail"} <= kinds
    rule = next(a for _, a in initial.nodes(data=True) if a.get("rule") == "zeike.yuanshou")
    assert bindings(rule) and all(isinstance(v, (str, int)) for v in bindings(rule).values())
    assert arguments(initial.nodes[initial.graph["root"]]) == [chart.id, "午"]


def test_the_same_question_writes_the_same_graphml(session, charts, initial):
    from liuren_logic.datalog.provenance import Explainer

    chart = charts["xinsi_yin_wu"]
    again = Explainer(session.source(chart.id)).why("initial", (chart.id, "午"))
    assert list(again) == list(initial)
    assert list(nx.generate_graphml(again)) == list(nx.generate_graphml(initial))


def test_why_graphml_is_the_json_derivation(capsys):
    import io
    import json

    from liuren_logic.datalog.provenance import arguments, bindings

    chart = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
    code, out, _ = run(capsys, "why-not", "initial", "丑", *chart, "--format", "graphml")
    graph = nx.read_graphml(io.BytesIO(out.encode("utf-8")))
    _, text, _ = run(capsys, "why-not", "initial", "丑", *chart, "--json")
    data = json.loads(text)
    assert code == 0 and list(graph) == [n["id"] for n in data["nodes"]] and len(graph.edges) == len(data["edges"])
    for node in data["nodes"]:
        attrs = graph.nodes[node["id"]]
        assert attrs["kind"] == node["kind"] and attrs["text"] == node["text"]
        assert arguments(attrs) == node.get("args", []) and bindings(attrs) == node.get("bindings", {})
    _, text, _ = run(capsys, "why-not", "initial", "丑", *chart, "--format", "graphml", "--simplified")
    simple = nx.read_graphml(io.BytesIO(text.encode("utf-8")))  # the prose simplified, never an id or a value
    root = simple.nodes[simple.graph["root"]]
    assert list(simple) == list(graph) and arguments(root) == arguments(graph.nodes[graph.graph["root"]])
    assert "將" in arguments(root)[0] and "将" in root["text"] and "將" in graph.nodes[graph.graph["root"]]["text"]


# the page -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def page_file(charts, tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "chart.html"
    path.write_text(page.page(charts["xinsi_yin_wu"]), encoding="utf-8")
    return path


def test_page_is_one_self_contained_file(page_file, capsys, tmp_path):
    text = page_file.read_text(encoding="utf-8")
    assert "http" not in text and "<link" not in text and " src=" not in text
    assert text.count("<template data-key=") == 8 and text.count("<svg") == 8
    for key in page.CONCLUSIONS:
        assert f'data-key="{key}"' in text
    assert "第一課" in text and "天地盤" in text and "無下賊，惟一上剋，午發用：元首" in text and "zeike" not in text
    code, _, _ = run(capsys, "page", "--day", "丁未", "--jiang", "丑", "--hour", "戌", "--lang", "en", "--ids",
                     "--output", str(tmp_path / "p.html"))
    other = (tmp_path / "p.html").read_text(encoding="utf-8")
    assert code == 0 and "http" not in other and "bazhuan.yin" in other


@needs_chromium
def test_page_in_a_headless_browser_shows_the_clicked_derivation(page_file, tmp_path):
    argv = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
            f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", page_file.as_uri() + "#click=initial"]
    done = subprocess.run(argv, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    dom = done.stdout.decode("utf-8")
    assert done.returncode == 0, done.stderr[-2000:]
    panel = re.search(r'<aside class="lr-panel" data-showing="initial">(.*?)</aside>', dom, re.S)
    assert panel, "the click did not fill the panel"
    shown = panel.group(1)
    assert "無下賊，惟一上剋，午發用" in shown and "zeike" not in shown and "<svg" in shown and "初傳午" in shown
    assert '<button type="button" class="lr-on" data-key="initial">' in dom


# notebooks ----------------------------------------------------------------------------
def test_notebook_hooks(charts, initial):
    wrapped = Derivation(initial)
    assert "初傳午" in svg_texts(wrapped._repr_svg_().encode())
    assert "http" not in wrapped._repr_html_() and "<svg" in wrapped._repr_html_()
    assert "⇐ 無下賊，惟一上剋，午發用：元首" in str(wrapped) and "nodes>" in repr(wrapped)
    html = charts["dingwei_chou_xu"]._repr_html_()
    assert html.startswith('<div class="liuren-page"') and "http" not in html and 'data-key="method"' in html


def test_doctests_of_the_view_and_picture_modules():
    for module in (view, picture, svg):
        assert doctest.testmod(module).failed == 0
