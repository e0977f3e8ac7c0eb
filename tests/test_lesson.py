"""Lessons that run the whole chart, built from KB relations: every stated atom has a derivation."""
from __future__ import annotations

import re

import pytest

from liuren_logic import Session
from liuren_logic.explain import lesson
from liuren_logic.datalog.labels import showing_ids

METHODS = {"伏吟", "返吟", "賊剋", "比用", "涉害", "八專", "遙剋", "昴星", "別責"}
# one chart of each way to the initial (day charts, DAY/OFFSET)
SAMPLES = [("甲子", 1), ("甲子", 5), ("丁卯", 10), ("乙亥", 8), ("丁卯", 1), ("甲子", 0), ("乙亥", 0),
           ("甲子", 6), ("辛未", 6), ("丙寅", 9), ("戊辰", 3), ("庚午", 1), ("己巳", 1), ("戊辰", 1), ("己未", 2)]


def steps_of(chart, lang="zh"):
    return {s.key: s for s in lesson.lesson_steps(chart, lang)}


def test_shehai_lesson_counts_each_candidate_palace_by_palace(session):
    chart = session.cast_offset("丁卯", 10)
    zh = steps_of(chart)["candidates"].text
    assert "亥臨丑，歸本家亥，途經寅、卯、辰、巳、午、未、申、酉、戌；逢辰宮辰、巳宮戊、未宮未、己、戌宮戌剋之，共五重" in zh
    assert "丑臨卯，歸本家丑，途經辰、巳、午、未、申、酉、戌、亥、子；逢辰宮乙剋之，共一重" in zh
    assert "丑深一、亥深五：最深五" in zh
    en = steps_of(chart, "en")["candidates"].text
    assert "it meets what overcomes it at 辰 (辰), 巳 (戊), 未 (未, 己), 戌 (戌): 5 in all" in en
    assert "丑 1, 亥 5: the deepest is 5" in en


def test_fanyin_with_a_ke_quotes_the_repaired_verse_and_names_the_chart_fanyin(session):
    steps = steps_of(session.cast_offset("甲子", 6))
    assert "000: 返吟有〔剋〕亦為用" in steps["candidates"].sources
    assert steps["candidates"].text.startswith("返吟有剋，依涉害法寅發用。")
    assert "是為返吟課，名涉害" in steps["initial"].text
    assert "the chart is a 返吟 chart, named 涉害" in steps_of(session.cast_offset("甲子", 6), "en")["initial"].text


def test_verses_gloss_the_names_of_the_branches(session):
    steps = steps_of(session.cast_offset("辛未", 6))
    assert steps["initial"].glosses == [("登明", "亥"), ("太乙", "巳")]
    assert "（登明即亥、太乙即巳）" in lesson.cite(steps["initial"])


def test_the_seed_chart_lesson_reaches_its_patterns_and_spirits(session):
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai")
    steps = steps_of(chart)
    assert any(item["text"] == "貴人乘午臨地盤戌，辰戌為獄：貴人入獄" for item in steps["patterns"].items)
    assert "鬼：傳鬼盜氣、天網、鬼呼" in steps["patterns"].text  # the seed's 斷: 課得天網
    assert "支上丑：" in steps["spirits"].text and "天目" in steps["spirits"].text.partition("支上丑：")[2].split("；")[0]
    carry = steps["carry"].text
    assert "初傳午，於日干辛為官鬼，遁壬" in carry and "旬空申、酉：三傳無落空者" in carry


@pytest.mark.parametrize("day, offset", SAMPLES)
def test_every_atom_a_lesson_states_has_a_derivation(session, day, offset):
    chart = session.cast_offset(day, offset)
    for step in lesson.lesson_steps(chart, "en"):
        assert step.atoms, step.key
        for atom in step.atoms:
            if atom.startswith("not "):
                assert session.why_not(chart, atom[4:]).graph["root"]
            else:
                assert session.why(chart, atom).graph["root"]


@pytest.mark.parametrize("day, offset", SAMPLES)
def test_lessons_have_no_placeholders_and_say_which_general(session, day, offset):
    chart = session.cast_offset(day, offset)
    zh, en = lesson.render_lesson(chart, "zh"), lesson.render_lesson(chart, "en")
    assert "？" not in zh + en and "None" not in zh + en
    # "general" alone would leave the reader guessing between 月將 and 天將
    assert not re.search(r"(?<![.\w])(?<!monthly )(?<!heavenly )generals?\b(?!\.)", en)


def test_a_method_is_either_applicable_or_unmet_on_every_chart(session):
    for daytime in (True, False):
        for chart in session.table(daytime):
            applicable = {m for (m,) in chart.rows("applicable")}
            unmet = {m for (m,) in chart.rows("unmet")}
            assert not applicable & unmet and applicable | unmet == METHODS, chart.id


def test_what_the_transmissions_carry_are_relations_with_derivations(session, table):
    for chart in table[::11]:
        void = set(chart.void)
        for tr in chart.transmissions:
            kin = session.source(chart.id).query("kin", [chart.inputs.stem, tr.branch, None])
            assert [k for _, _, k in kin] == [tr.kin]
            assert tr.void == (tr.branch in void) and (tr.hidden_stem is None) == tr.void
    chart = session.cast("辛巳", "寅", "午")
    graph = session.why(chart, f"transmission_kin({chart.id}, 1, 官鬼)")
    rules = {a.get("rule") for _, a in graph.nodes(data=True)}
    assert {"transmission.kin", "kin.ghost"} <= rules


def test_a_step_resting_on_a_reading_says_which(session):
    default = steps_of(session.cast_offset("丁卯", 10))
    assert [(r["topic"], r["reading"]) for r in default["candidates"].readings] == [("shehai", "depth")]
    shortcut = Session(readings={"shehai": "shortcut"})
    steps = steps_of(shortcut.cast_offset("丁卯", 10))
    assert [(r["topic"], r["reading"]) for r in steps["candidates"].readings] == [("shehai", "shortcut")]
    assert "不計深淺，丑、亥逕入孟仲季之比" in steps["candidates"].text
    assert "〔本門派於涉害取「孟仲季徑取」之讀法〕" in lesson.render_step(steps["candidates"], 5)
    with showing_ids():  # a developer's --ids: the reading's id, its rules and file
        assert "〔本門派於shehai取 shortcut 之讀法：shehai.shortcut 出自" in lesson.render_step(steps["candidates"], 5)


@pytest.mark.parametrize("day, offset", SAMPLES[:8])
def test_no_method_tried_earlier_is_the_kb_saying_so(session, day, offset):
    """定法's 'no method tried earlier applies' is the label of the chosen(…) rule (not outranked), not a template."""
    chart = session.cast_offset(day, offset)
    for lang in ("zh", "en"):
        step = steps_of(chart, lang)["method"]
        graph = session.why(chart, "method")
        root = graph.nodes[graph.graph["root"]]
        rule = next(graph.nodes[c] for c in graph.successors(graph.graph["root"]))
        assert rule["rule"] == "method.chosen" and rule[lang] in step.text, (step.text, rule[lang])
        assert root["text"] in step.atoms and "method.chosen" in step.rules


@pytest.fixture(scope="module")
def querent_chart(session):
    """The seed chart (1998-11-30 12:00) for a man born in 1970: month, year and 年命 known."""
    return session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born=1970, sex="m")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_dated_lesson_with_a_querent_runs_to_keti_marks_strength_and_life(session, querent_chart, lang):
    steps = steps_of(querent_chart, lang)
    assert list(steps)[-6:] == ["keti", "patterns", "spirits", "marks", "strength", "life"]
    for key in ("keti", "marks", "strength", "life"):
        step = steps[key]
        assert step.atoms and step.rules, key
        for atom in step.atoms:  # each sentence states relations `why` answers
            graph = session.why(querent_chart, atom)
            rule = next((graph.nodes[c] for c in graph.successors(graph.graph["root"])
                         if graph.nodes[c]["kind"] == "rule"), None)
            assert rule is None or rule["rule"] in step.rules, (key, atom)
    keti = steps["keti"]
    assert [i["atom"].rpartition(", ")[2][:-1] for i in keti.items] == querent_chart.keti
    assert any(s.startswith("大全: 凡課占時，與用神同剋日，為天網課") for s in keti.sources)
    strength = steps["strength"].text
    life = steps["life"].text
    if lang == "zh":
        assert "水旺、木相、金休、土囚、火死" in strength and "午屬火，火死，故午死" in strength
        assert "日干辛沐浴於午" in strength
        assert "生年庚戌，本命戌" in life and "第二十九歲至甲午" in life and "本命上神午乘貴人" in life
        assert "日干辛祿在酉，酉臨丑" in steps["marks"].text and "旬中丁神在丑，丑臨巳，見於支上" in steps["marks"].text
    else:
        assert "水 旺 (thriving: the month's own element), 木 相 (ministering" in strength  # glossed once each
        assert "the day stem 辛 is at 沐浴 (bathing) in 午" in strength and strength.count("(thriving") == 1
        assert "the natal branch is 戌" in life and "year 29 is 甲午" in life
    assert "tuwang.month_element" in steps["strength"].rules
    assert [(r["topic"], r["reading"]) for r in steps["strength"].readings] == [("tuwang", "months")]


def test_the_life_labels_write_a_year_in_digits_and_every_other_number_in_numerals(session, querent_chart):
    """As the other zh labels count (第三課, 序數十四): a year stays a date (1998年), no sum is written
    half in digits, half in numerals; the zh labels of kb/chart/life.dl as the lesson and the why of
    the 行年 (through the 虛歲 and the cycle's count) read them."""
    life = steps_of(querent_chart)["life"]
    preds = {p for p, d in session.kb.program.preds.items() if d.pos.path == "kb/chart/life.dl"}
    graph = session.why(querent_chart, "xingnian")
    shown = [graph.nodes[n]["zh"] for n in graph
             if graph.nodes[n].get("rule", "").startswith("life.") or graph.nodes[n].get("pred") in preds]
    assert "虛歲二十九" in life.text and "以六十甲子計，時年第二十九歲" in shown and len(shown) > 8
    for text in [life.text, *shown]:
        assert not re.search(r"[0-9+=]", re.sub(r"[0-9]{4}年", "", text)), text


def test_without_a_querent_or_a_month_the_lesson_says_only_what_the_day_gives(session):
    steps = steps_of(session.cast("辛巳", "寅", "午"))
    assert "life" not in steps and "月建" not in steps["strength"].text
    assert steps["strength"].rules == ["stage.day"]
    given = steps_of(session.cast("辛巳", "寅", "午", month="亥"))
    assert given["strength"].text.startswith("月建亥；月建亥屬水，水當令")


def test_under_a_reading_the_lesson_marks_the_steps_it_changes(session, capsys):
    shortcut = Session(readings={"shehai": "shortcut"})
    chart, own = shortcut.cast_offset("丁卯", 10), session.cast_offset("丁卯", 10)
    steps, before = lesson.lesson_steps(chart), lesson.lesson_steps(own)
    follows = lesson.compare(steps, chart, before, own)
    assert follows == {"shehai": ("shortcut", "depth")}
    by_key = {s.key: s for s in steps}
    assert all(by_key[k].differs is None for k in ("plate", "lessons", "ke", "method"))
    candidates = by_key["candidates"].differs
    assert candidates["readings"] == {"shehai": "shortcut"} and "共五重" in candidates["text"]
    assert any(a.startswith("shehai_depth(C, 亥, 5)") for a in candidates["only_default"])
    assert "shehai.shortcut" in candidates["rules_here"]
    assert "三傳亥酉未" in by_key["sequence"].differs["text"]  # the default's 三傳, from its own lesson
    text = lesson.render_lesson(chart, "zh", steps, follows)
    assert text.splitlines()[1].startswith("本課依異說涉害取孟仲季徑取（原取計深淺）；與本門派原讀法之同一課相較，第五、六、")
    assert "〔異：依涉害（孟仲季徑取），此步與原讀法不同；原讀法作：亥涉害獨深，發用。" in text
    with showing_ids():
        text = lesson.render_lesson(chart, "zh", steps, follows)
    assert "本課依異說涉害取孟仲季徑取 (shortcut)（原取計深淺 (depth)）" in text
    assert "〔異：依涉害（孟仲季徑取） (shehai=shortcut)，此步" in text
    # a reading that changes nothing on a chart marks no step
    same = Session(readings={"shehai": "shortcut"}).cast("辛巳", "寅", "午")
    steps = lesson.lesson_steps(same)
    assert lesson.compare(steps, same, lesson.lesson_steps(session.cast("辛巳", "寅", "午")), session.cast("辛巳", "寅", "午"))
    assert not any(s.differs for s in steps)
    from liuren_logic.faces.cli import main
    assert main(["teach", "--day", "丁卯", "--offset", "10", "--reading", "shehai=shortcut", "--lang", "en"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the text as wrapped to the terminal, lines joined
    assert "This lesson follows the reading 涉害: the 孟仲季 short-cut (the school's own: the depth count)" in out
    assert "[differs: " in out


def test_a_clicked_pattern_spirit_or_general_shows_its_lesson_step(session):
    from liuren_logic.explain.app import derivation

    chart = session.cast("辛巳", "寅", "午")
    numbers = {s.key: i for i, s in enumerate(lesson.lesson_steps(chart), 1)}
    for question, value, key in (("pattern", "天網", "patterns"), ("spirit", "天目", "spirits"),
                                 ("general", "午", "generals"), ("keti", "天網", "keti")):
        html = derivation(chart, question, value)["html"]
        assert f'<li value="{numbers[key]}"><b>{lesson.TEXT["zh"]["titles"][key]}</b>' in html, (question, value)


def test_the_strength_and_life_steps_name_the_patterns_resting_on_them(session, querent_chart):
    steps = steps_of(querent_chart)
    life = steps["life"]
    assert life.text.endswith("課格之繫於此者：年命坐墓、伏殃卦。")
    assert [i["rule"] for i in life.items] == ["pattern.nianming_zuo_mu", "pattern.soul_life"]
    assert "003: 飛魂臨年命或日辰發用為飛魂卦" in life.sources
    strength = steps_of(session.cast_offset("甲子", 0, month="申"))["strength"]  # 鬼申 in the 金 month
    assert strength.text.endswith("課格之繫於此者：鬼當時。") and "pattern.gui_dang_shi" in strength.rules
    assert "000: 凡鬼宜衰敗，不宜生旺。若鬼當時，亦不為凶" in strength.sources


def test_the_lesson_benchmark_runs():
    """benchmarks/lesson_cpu.py, one run: it tells every chart's lesson (its figures are not judged here)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "lesson_cpu.py"
    spec = importlib.util.spec_from_file_location("lesson_cpu", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.measure(1)
    assert [row["steps"] for row in figures.values()] == [14, 14, 15]
    assert all(row["cpu_median_s"] > 0 for row in figures.values())


def test_switching_a_reading_in_the_app_lists_the_steps_it_changes(session):
    from liuren_logic.explain.app import comparison

    shortcut = Session(readings={"shehai": "shortcut"})
    result = comparison(session.cast_offset("丁卯", 10), shortcut.cast_offset("丁卯", 10))
    keys = [s["key"] for s in result["steps"]]
    assert keys[:3] == ["candidates", "initial", "sequence"] and "plate" not in keys and "method" not in keys
    assert "本課依異說涉害取孟仲季徑取（原取計深淺）" in result["html"]
    assert "原讀法作：亥涉害獨深，發用。" in result["html"]


def test_a_method_that_gives_way_is_told_in_the_kbs_words(session):
    chart = session.cast_offset("甲子", 6)  # 返吟, where 涉害 would also apply
    step = steps_of(chart)["method"]
    graph = session.why(chart, f"outranked({chart.id}, 涉害)")
    rule = next(graph.nodes[c] for c in graph.successors(graph.graph["root"]))
    assert rule["zh"] == "涉害雖可用，返吟先取（第二先於第五）" and rule["zh"] in step.text
    assert "method.outranked" in step.rules
    first = steps_of(session.cast_offset("甲子", 0))["method"]  # 伏吟, the first tried
    assert first.text.startswith("伏吟居諸法之首。") and "method_order(伏吟, 1)" in first.atoms


def test_the_readme_shows_the_seed_charts_lesson_as_teach_prints_it(capsys, monkeypatch):
    from pathlib import Path

    from liuren_logic.faces.cli import main
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    excerpt = readme.split("```text\n3. Overcoming", 1)[1].split("```", 1)[0]
    monkeypatch.delenv("COLUMNS", raising=False)  # piped: wrapped to 100 columns
    assert main(["teach", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--lang", "en"]) == 0
    assert "3. Overcoming" + excerpt in capsys.readouterr().out
