"""The contrastive why-not: the decisive reason first, true of the chart, on all 720 charts."""
from __future__ import annotations

import re

import networkx as nx
import pytest

from scopes import SCOPES
from liuren_logic.faces.cli import main
from liuren_logic.explain.contrast import answer
from liuren_logic.domain.inputs import members
from liuren_logic.datalog.labels import ASIDE, showing_ids


@pytest.fixture(autouse=True)
def unwrapped(monkeypatch):
    """The command's sentences compared whole, one a line: a terminal wide enough not to wrap them."""
    monkeypatch.setenv("COLUMNS", "1000")


RULE_ID = re.compile(r"(?<![/\w])[a-z_]+\.[a-z_0-9]+(?!\w)", re.ASCII)  # fuyin.final_clash; not a path's x.md


def says_rule(rule, lang: str, text: str) -> bool:
    """``text`` says the rule by its label: every piece of the label's template between its slots
    (a plural may have agreed with a count of one: 'places' → 'place')."""
    singular = re.compile(r"(?<=[a-z])s\b")
    label = ASIDE.sub("", rule.label(lang))  # an unbound slot in brackets is left out with them
    label = re.sub(r"第(?=\{)", "", label)  # and an ordinal's 第 with its number
    pieces = [piece.strip() for piece in re.split(r"\{\w+\}", label)]
    if len(pieces) > 1 and not pieces[-1]:  # an unbound slot that ends the label takes the separator before it
        pieces[-2] = pieces[-2].rstrip(",，、:：;；")
    if len(pieces) > 1 and not pieces[0]:  # and one that starts it the separator after it
        pieces[1] = pieces[1].lstrip(",，、:：;； ")
    return all(singular.sub("", piece) in singular.sub("", text)  # an unbound slot left out takes its spaces
               for piece in pieces if piece)


def test_why_not_initial_answers_in_at_most_three_lines(capsys):
    code = main(["why-not", "initial", "丑", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--lang", "en"])
    out = capsys.readouterr().out.strip().splitlines()
    assert code == 0 and len(out) <= 3
    assert out == ["賊剋 (overcoming: a 剋 in the lessons) decides this chart; its candidates are 午 alone.",
                   "丑: in lesson 3, 丑 over 巳 has no 剋, so it is no candidate."]
    assert "？" not in "".join(out)


@pytest.mark.parametrize("daytime", [True, False])
def test_every_branch_but_the_initial_has_a_reason_true_of_the_chart(session, daytime):
    charts = session.table(daytime)
    branches = members(session.base, "branch")
    for chart in charts:
        initial = chart.transmissions[0].branch
        rejected = {x for (x,) in chart.rows("rejected")}
        assert rejected == set(branches) - {initial}, chart.id
        source = session.source(chart.id)
        for x in sorted(rejected)[:: 1 if daytime else 5]:
            short = answer(chart, "initial", x, "en")
            assert len(short.lines) <= 3 and x in short.lines[1]
            assert f"rejected({chart.id}, {x})" in short.atoms
            for atom in short.atoms:  # each stated atom holds in this chart
                pred, _, rest = atom.partition("(")
                args = [a.strip() for a in rest.rstrip(")").split(",")]
                assert source.holds(pred, [int(a) if a.isdigit() else a for a in args]), atom


def test_the_reasons_agree_with_the_chart_they_are_about(session, table):
    for chart in table[::7]:
        lessons = {l.upper for l in chart.lessons}
        for (x,) in chart.rows("rejected"):
            rule = answer(chart, "initial", x, "en").rules[0]
            if rule == "contrast.not_upper":
                assert x not in lessons
            if rule in ("contrast.no_ke", "contrast.upper_behind_lower", "contrast.not_upper"):
                assert (x,) not in chart.rows("candidate")


def test_why_not_method_says_unmet_or_outranked(session):
    chart = session.cast_offset("甲子", 6)  # 返吟, where 涉害 would also apply
    short = answer(chart, "method", "涉害", "en")
    assert short.lines == ["返吟 decides this chart.",
                           "涉害: 涉害 applies, but 返吟 is tried first (2 before 5)."]
    short = answer(session.cast("辛巳", "寅", "午"), "method", "涉害", "zh")
    assert short.lines[1] == "涉害：惟午一神為候選，賊剋已取，不待涉害。"


def test_why_not_a_pattern_names_its_defining_rule_without_placeholders(session):
    chart = session.cast("丁未", "丑", "戌")
    short = answer(chart, "pattern", "貴人入獄", "en")
    assert short.lines[0].endswith("not on this chart.") and short.lines[1].startswith("貴人入獄 is defined by ")
    rule = next(r for r in chart.session.program.rules if r.id == short.rules[0])
    assert says_rule(rule, "en", short.lines[1]) and "貴人入獄" in short.lines[1]
    assert rule.id not in "".join(short.lines)  # named by its label, not its id
    assert "？" not in "".join(short.lines)
    graph = short.graph
    assert graph.graph["question"].startswith("why not") and len(graph) <= 12


GLANCE = 16  # nodes a why-not picture may draw: read at a glance (the largest on the sample below is 14)


def glance_questions(chart):
    """Every branch but the initial, every method but the deciding one, a pattern and a spirit the chart lacks."""
    initial = chart.transmissions[0].branch
    methods = [m for (m, _) in chart.session.source(chart.id).query("method_order", [None, None]) if m != chart.method]
    patterns = {p for _, p in chart.patterns}
    spirits = {s for _, _, s in chart.spirits}
    extra = [("pattern", p) for p in ("天網", "貴人入獄") if p not in patterns]
    extra += [("spirit_present", s) for s in ("天目", "天醫") if s not in spirits]
    return [("initial", b) for b in members(chart.session.base, "branch") if b != initial] + \
        [("method", m) for m in methods] + extra


def test_the_why_not_picture_reads_at_a_glance(session):
    """The picture drawn for a why-not (not --full): few nodes, every one labelled in words without a
    '？' placeholder, the decisive rule among them with its label, the question at the root. On 22
    charts by day and night (every 67th: the offsets vary, so do the methods) and a 比用, ~3 s."""
    from liuren_logic.explain.picture import node_lines, to_dot

    charts = session.table(True)[::67] + session.table(False)[33::67] + [session.cast_offset("甲子", 5)]  # and a 比用
    assert {c.method for c in charts} >= {"賊剋", "比用", "涉害", "返吟", "伏吟"}
    for n, chart in enumerate(charts):
        for question, value in glance_questions(chart):
            for lang in (("zh", "en")[n % 2],):
                short = answer(chart, question, value, lang)
                picture = short.picture()
                where = (chart.id, question, value, lang)
                assert 3 <= picture.number_of_nodes() <= GLANCE, where
                root = picture.nodes[picture.graph["root"]]
                assert root["kind"] in ("atom", "absent") and value in root["text"], where
                for node, attrs in picture.nodes(data=True):
                    lines = node_lines(attrs, lang)
                    assert lines and all(line.strip() for line in lines), (where, attrs)
                    if attrs["kind"] in ("atom", "absent", "not", "rule", "fail"):
                        assert attrs.get(lang), (where, attrs)  # words, not only the atom's text
                    assert "？" not in "".join(lines), (where, lines)
                decisive = [a for _, a in picture.nodes(data=True) if a.get("rule") == short.rules[0]]
                assert decisive and decisive[0].get(lang), where
                assert decisive[0][lang].split("：")[0] in to_dot(picture, lang)  # by its label
                with showing_ids():
                    assert decisive[0]["rule"] in to_dot(picture, lang)
                assert all_reached(picture), where


def all_reached(graph) -> bool:
    """Every node is reached from the root."""
    return nx.descendants(graph, graph.graph["root"]) | {graph.graph["root"]} == set(graph)


def test_why_not_names_first_the_reading_under_which_the_value_holds(capsys):
    # the Horosa-62 chart (丁卯 伏吟, 卯子卯): 午 is the final under 伏吟末傳取沖, then the school's reason
    assert main(["why-not", "final", "午", "--at", "2026-06-22 14:00"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "依伏吟末傳（取沖），末傳午：中傳子刑回初傳卯，改取子之沖午。"
    assert out[1:] == ["末傳午：不成立。", "最接近的規則：中傳子自刑，取其沖午為末：杜傳；所缺：伏吟中傳子遞刑子。"]
    # 《指南》 case 37: 巳 is the initial under 《大全》's 比用格, not under the school's 涉害
    assert main(["why-not", "initial", "巳", "--day", "戊辰", "--jiang", "戌", "--hour", "辰", "--lang", "en"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0].startswith("Under the reading 比用格 (the 大全), the initial transmission is 巳:")
    assert out[1] == "返吟 decides this chart; its candidates are 巳 and 亥."
    # a value no reading gives: the school's reason alone
    assert main(["why-not", "initial", "丑", "--day", "辛巳", "--jiang", "寅", "--hour", "午"]) == 0
    assert capsys.readouterr().out.startswith("此課以賊剋定")


NAMED = ("keti", "pattern", "bifa", "spirit")


def test_why_not_a_name_answers_from_the_rule_that_defines_it(session):
    """斬關 from its own rule (not the trine rule that names 炎上), 三光 asks for the month, a 畢法
    line the KB leaves out says so, a method's 課體 gives the method's own reason."""
    chart = session.cast("辛巳", "寅", "午")
    zhanguan = answer(chart, "keti", "斬關", "zh")
    assert zhanguan.rules[0].startswith("keti.zhanguan_") and "trine" not in "".join(zhanguan.lines)
    rule = next(r for r in session.program.rules if r.id == zhanguan.rules[0])
    assert zhanguan.lines[1].startswith("斬關之定義：") and says_rule(rule, "zh", zhanguan.lines[1])
    assert "《" in zhanguan.lines[1]  # the book by name
    sanguang = answer(chart, "keti", "三光", "en")
    assert sanguang.lines[2] == "This chart lacks the month: needs --month or --at."
    assert "某" not in "".join(answer(chart, "keti", "三光", "zh").lines[2:])
    given = session.cast("辛巳", "寅", "午", month="亥")
    assert "needs" not in "".join(answer(given, "keti", "三光", "en").lines)
    assert answer(chart, "bifa", "前後逼迫難進退", "en").lines[1] == "Not encoded (see docs/coverage_bifa.md)."
    shehai = answer(chart, "keti", "涉害", "zh")
    assert shehai.rules == ["keti.method"] and shehai.lines[-1] == "涉害：惟午一神為候選，賊剋已取，不待涉害。"


def named_questions(charts, twice=True):
    """Every name of every named conclusion, each asked on two of the charts (one in zh, one in en),
    or, not ``twice``, on one of them (zh and en by turns)."""
    from liuren_logic.explain.named import names

    for pred in NAMED:
        for n, name in enumerate(names(charts[0], pred)):
            asked = ((n, "zh"), (n + len(charts) // 2, "en"))
            for k, lang in asked if twice else asked[n % 2:n % 2 + 1]:
                yield charts[k % len(charts)], pred, name, lang


@pytest.mark.parametrize("complete", SCOPES)
def test_every_name_of_every_kind_on_50_charts_names_its_defining_rule(session, complete):
    """Over 50 charts by day and night (every 29th), each name of 課體, pattern, 畢法 and spirit twice
    (once by default, in zh and en by turns; ~1,800 questions of which ~1,300 fail on their chart, ~13 s): the answer names the rule that
    defines the name, with the name in its words, then the condition that fails or the input the
    chart lacks, never a placeholder; a name no rule defines is pointed to its coverage page, which
    lists it."""
    from pathlib import Path

    from liuren_logic.explain.named import COVERAGE
    from liuren_logic.datalog.provenance import Derivable

    charts = session.table(True)[::29][:25] + session.table(False)[14::29][:25]
    assert len(charts) == 50
    rules = {r.id: r for r in session.program.rules}
    asked = 0
    for chart, pred, name, lang in named_questions(charts, twice=complete):
        try:
            short = answer(chart, pred, name, lang)
        except Derivable:
            continue
        asked += 1
        text, where = "\n".join(short.lines), (chart.id, pred, name, lang)
        assert name in short.lines[0] and not any(p in text for p in ("？", "{", "None", "缺：")), where
        if short.rules:
            rule = short.rules[0]
            assert rule in rules and says_rule(rules[rule], lang, short.lines[1]), (where, text)
            assert name in short.lines[1] and not RULE_ID.search(text), (where, text)
            assert len(short.lines) >= 3 and short.lines[2].strip(), (where, text)
            if "needs" in text or "需 --" in text:
                assert not chart.rows("month") and not chart.rows("given_month"), where
        else:
            doc = COVERAGE[pred]
            assert doc in short.lines[1] and name in Path(doc).read_text("utf-8"), where
            assert not any(r.head.pred == pred and name in map(str, r.head.args) for r in rules.values()), where
    assert asked > (1200 if complete else 600)  # the rest hold on their chart (ask why)


def test_a_name_only_another_reading_defines_names_that_reading_and_its_rule(capsys):
    """比用格 is defined by kb/variants/shehai_biyong/daquan.dl alone: not 'not encoded', but the
    reading by its Chinese name, its rule and book; on 《指南》 case 37 it holds under that reading."""
    day = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
    assert main(["why-not", "keti", "比用格", *day]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == "課體比用格：此盤不見。"
    assert out[1].startswith("本派不定此名；比用格（大全）定之：") and "shehai." not in out[1]
    assert "《六壬大全》" in out[1] and "docs/coverage_keti.md" in out[1] and "未編" not in out[1]
    assert main(["why-not", "keti", "比用格", *day, "--lang", "en"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[1].startswith("The school does not define it; the reading 比用格 (the 大全) does, by "
                             "the rule “") and "(《六壬大全》: 皆用比，不用涉害，故名比用)" in out[1]
    assert main(["why-not", "keti", "比用格", "--day", "戊辰", "--jiang", "戌", "--hour", "辰"]) == 0
    assert capsys.readouterr().out.startswith("依比用格（大全），課體比用格：")


def test_an_unknown_name_points_to_its_kind_or_the_nearest_names(capsys):
    day = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]
    assert main(["why-not", "pattern", "斬關", *day, "--lang", "en"]) == 2
    assert capsys.readouterr().err.strip() == "liuren: '斬關' is not a pattern but a keti: ask keti 斬關"
    assert main(["why-not", "keti", "凝陰", *day, "--lang", "en"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("liuren: unknown keti '凝陰'") and "nearest: " in err and "陰" in err.split("nearest: ")[1]
    assert main(["why-not", "method", "元首", *day, "--lang", "en"]) == 2
    assert "not a method but a keti and a subname" in capsys.readouterr().err


@pytest.mark.parametrize("complete", SCOPES)
def test_the_short_answers_name_rules_by_their_labels_on_50_charts(session, complete):
    """The app's why-not questions (初傳 中傳 末傳 貴人 over every branch, 課法 over every method) on
    50 charts by day and night, as the command prints them (another reading first): ~2,600 answers
    in zh, every fifth chart's also in en (~20 s; by default every tenth chart alone, in both
    languages): none says a rule by its id (ids: ``Answer.rules``)."""
    from liuren_logic.explain.dispute_view import readings_first

    charts = session.table(True)[::29][:25] + session.table(False)[14::29][:25]
    charts = charts if complete else charts[::10]
    ids = {r.id for r in session.program.rules}
    branches = members(session.base, "branch")
    asked = 0
    for n, chart in enumerate(charts):
        methods = [m for (m, _) in session.source(chart.id).query("method_order", [None, None])]
        for question in ("initial", "middle", "final", "noble", "method"):
            for value in methods if question == "method" else branches:
                if session.source(chart.id).holds(*session.resolve(chart, question, value)):
                    continue
                for lang in ("zh", "en") if n % 5 == 0 or not complete else ("zh",):
                    short = answer(chart, question, value, lang)
                    text = "\n".join(readings_first(chart, question, value, lang) + short.lines)
                    found = RULE_ID.findall(text)
                    assert not found and short.rules and set(short.rules) <= ids, (chart.id, question, value, text)
                    asked += 1
    assert asked > (2500 if complete else 450)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_app_says_a_why_not_as_the_command_does(capsys, session, lang):
    """The app's why-not box: the command's lines, English glossed at first use, zh without rule ids."""
    from liuren_logic.explain.app import refutation

    day = ["--day", "辛巳", "--jiang", "寅", "--hour", "午", "--lang", lang]
    chart = session.cast("辛巳", "寅", "午")
    for question, value in (("method", "涉害"), ("middle", "子"), ("keti", "斬關")):
        assert main(["why-not", question, value, *day]) == 0
        said = capsys.readouterr().out.strip().splitlines()
        assert refutation(chart, question, value, lang)["lines"] == said
        assert not RULE_ID.search("\n".join(said)), said
    if lang == "en":
        assert said[0] == "The 課體 斬關 (breaking through the pass): not on this chart."


def test_a_given_value_the_chart_lacks_is_said_in_the_answers_language(session):
    """占時卯 on a 午 chart: the hour is given, not derived; the reason in the language asked."""
    chart = session.cast("辛巳", "寅", "午")
    assert answer(chart, "hour", "卯", "zh").lines == ["占時卯：不成立。", "非所給之事。"]
    assert answer(chart, "hour", "卯", "en").lines[1] == "not among what was given."


def test_a_relation_only_given_or_only_facts_is_never_named_by_its_id(session):
    """The 斷's failed premise 所問有字 (asked_word, given by the question's words) and a branch's
    element no fact gives: the reason names no relation id."""
    chart = session.cast("辛巳", "寅", "午", matter="疾病")
    graph = session.why_not(chart, "asked_word(_, 病)")
    reasons = [(data["reason"], data["reason_zh"]) for _, data in graph.nodes(data=True) if "reason_zh" in data]
    assert reasons == [("not among what was given", "非所給之事")]
    graph = session.why_not(chart, "element(子, 火)")
    reasons = [(data["reason"], data["reason_zh"]) for _, data in graph.nodes(data=True) if "reason_zh" in data]
    assert reasons and all("element" not in r and "element" not in zh for r, zh in reasons), reasons


def test_a_name_resting_on_the_month_the_chart_lacks_asks_for_it(session):
    """卯將 straddles 春分 and implies no season: without a month 天目 (placed by the season) and the
    month spirit 天虎 ask for --month, where they said 「時值某」 / "falls on any"; 交車, which the
    chart's own plates decide, still names its failing condition; given the month, no input is asked."""
    chart = session.cast("甲子", "卯", "午")
    assert not chart.rows("season")
    for pred, name in (("spirit", "天目"), ("spirit", "天虎"), ("pattern", "螣蛇當臥")):
        lines = answer(chart, pred, name, "zh").lines
        assert lines[-1] == "此盤未給月份：需 --month 或 --at。" and "某" not in lines[-1], (name, lines)
    assert "需 --" not in answer(chart, "keti", "交車", "zh").lines[-1]
    given = session.cast("甲子", "卯", "午", month="卯")
    assert not any("needs" in "".join(answer(given, pred, name, "en").lines)
                   for pred, name in (("spirit", "天目"), ("spirit", "天虎")) if not given.session.source(given.id)
                   .holds(*given.session.resolve(given, pred, name)))
