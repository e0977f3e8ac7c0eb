"""Audits against evidence (issue 32): every topic's readings against the 《指南》's cases, and the
differences of other casters (tests/data/against: wlhyl/daliuren's and Damongu's, as the issue lists
them, each explained by a named shipped reading; kinliuren's, as benchmarks/kinliuren_against.py
took them from its own output, mostly explained by none)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from liuren_logic import Session
from liuren_logic.faces.cli import main
from liuren_logic.domain.evidence import against, by_topic
from liuren_logic.explain.evidence_view import parting

AGAINST = Path(__file__).parent / "data" / "against"


@pytest.fixture(scope="module")
def default():
    return Session()


def test_a_deciding_case_shows_where_the_two_derivations_part(default, zhinan_cases):
    """Each deciding case carries, per reading, the steps of its lesson that the readings state
    differently, up to the first transmission they part on: in the lesson's words, not both lessons whole."""
    verdicts = {v.topic: v for v in by_topic(default, [c for c in zhinan_cases if c["seq"] in (11, 37, 67)])}
    case37 = {r: dict(steps) for r, steps in parting(verdicts["shehai_biyong"].deciding[0], "zh").items()}
    assert list(case37["none"]) == list(case37["daquan"]) == ["定法", "取用", "初傳"]
    assert "依涉害法亥發用" in case37["none"]["取用"] and "依比用法巳發用" in case37["daquan"]["取用"]
    assert "比用格，巳發用" in case37["daquan"]["初傳"]
    case67 = parting(verdicts["shehai"].deciding[0], "en")
    assert set(case67) == {"depth", "shortcut"} and case67["depth"] != case67["shortcut"]
    case11 = {r: dict(steps) for r, steps in parting(verdicts["fuyin_final"].deciding[0], "zh").items()}
    assert list(case11["clash"]) == ["中傳、末傳"]  # the initial, the same under both, is not shown
    assert "卯為末傳" in case11["punish_back"]["中傳、末傳"] and "改取子之沖午" in case11["clash"]["中傳、末傳"]


def test_every_topic_against_the_zhinan_cases(default, zhinan_cases):
    verdicts = {v.topic: v for v in by_topic(default, zhinan_cases)}
    assert verdicts["shehai"].agree == {"depth": 101, "shortcut": 103}  # 癸卯 10 and 癸酉 7: the 2 short-cut cases
    assert verdicts["shehai_biyong"].agree == {"none": 101, "daquan": 101}  # gains case 37, loses 105
    assert [d.label.split()[0] for d in verdicts["shehai_biyong"].deciding] == ["37", "105"]
    assert verdicts["shehai_pool"].agree == {"polar": 101, "all": 101} and not verdicts["shehai_pool"].deciding
    assert verdicts["shehai_start"].agree == {"next": 101, "seat": 100}  # case 74 (己亥) decides for the default
    assert verdicts["fuyin_final"].agree == {"punish_back": 101, "clash": 100}  # case 11 辛卯 prints 卯子卯
    assert verdicts["punishment"].agree == {"common": 101, "seed000": 94}


def test_the_cases_table_and_its_html_on_the_command_line(capsys, tmp_path):
    page = tmp_path / "cases.html"
    assert main(["audit", "--cases", "tests/data/cases/zhinan_cases.json", "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "  涉害      計深淺 101  孟仲季徑取 103\n" in out and "shehai" not in out
    assert "  諸案從孟仲季徑取：103案合書，計深淺101案，多2案；決之者第67、73案。" in out
    # 21: the readings share the initial and part on the middle: the step shown is 中傳、末傳
    assert "      四鏈：中傳、末傳：初傳申刑亥，亥為中傳" in out and "四鏈：初傳：" not in out
    assert "  37 戊辰 戌將辰時  書 巳亥巳  不用 亥巳亥  大全 巳亥巳✓" in out
    html = page.read_text("utf-8")
    assert "<h2>比用格：可決之案</h2>" in html and "shehai_biyong" not in html
    assert "<td>諸案從孟仲季徑取：103案合書，計深淺101案，多2案；決之者第67、73案。</td>" in html
    two = tmp_path / "two.html"  # with --vs the page says which of the two each case follows
    assert main(["audit", "--vs", "shehai=shortcut", "--cases", "tests/data/cases/zhinan_cases.json",
                 "--html", str(two)]) == 0
    assert "<td>67 癸卯 戌將子時</td>" in two.read_text("utf-8")


@pytest.mark.parametrize("caster, expected", [
    ("wlhyl", {("fuyin_final", "clash"): 3, ("bieze_yin", "heaven"): 6, ("shehai_start", "seat"): 6}),
    ("damongu", {("shehai_pool", "all"): 6, ("bieze_yin", "heaven"): 6}),
])
def test_every_difference_of_another_caster_is_explained_by_a_named_reading(default, caster, expected):
    entries = json.loads((AGAINST / f"{caster}.json").read_text("utf-8"))
    agreed, differences = against(default, entries)
    assert agreed == 1 and len(differences) == sum(expected.values())
    assert all(d.explained_by for d in differences)
    counts = {}
    for d in differences:
        reading = next(r for r in d.explained_by if r in expected)
        counts[reading] = counts.get(reading, 0) + 1
    assert counts == expected
    methods = {d.method for d in differences}
    assert methods == ({"伏吟", "別責", "涉害"} if caster == "wlhyl" else {"別責", "涉害"})


def test_against_on_the_command_line_groups_by_method(capsys):
    assert main(["audit", "--against", str(AGAINST / "wlhyl.json"), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("16 answers: 1 agree; 15 differ, 15 explained by a shipped reading, 0 by none\n"
                          "chart (offset)  ours → theirs")
    assert "伏吟 (3):\n  丁卯 午將午時 (offset 0)  三傳 卯子卯 → 卯子午  — 伏吟's final (the clash)\n" in out
    assert main(["audit", "--against", str(AGAINST / "wlhyl.json")]) == 0  # the reader's language: zh by default
    out = capsys.readouterr().out
    assert out.startswith("16答：1答與本派同；15答不同，其中15答有某一異說可解，0答無\n盤（轉數）  本派 → 彼答")
    assert "伏吟（3）：\n  丁卯 午將午時（轉0）  三傳 卯子卯 → 卯子午  — 伏吟末傳（取沖）\n" in out
    assert main(["audit", "--against", str(AGAINST / "wlhyl.json"), "--ids"]) == 0
    assert "— fuyin_final=clash 伏吟末傳（取沖）" in capsys.readouterr().out


def test_against_writes_its_html_page_and_never_over_the_answers(capsys, tmp_path):
    page = tmp_path / "against.html"
    assert main(["audit", "--against", str(AGAINST / "wlhyl.json"), "--html", str(page), "--lang", "en"]) == 0
    html = page.read_text("utf-8")
    assert "<h1>16 answers: 1 agree; 15 differ, 15 explained by a shipped reading, 0 by none</h1>" in html
    assert "<h2>伏吟 (3)</h2>" in html and "<td>2</td><td>丁卯 午將午時 (offset 0)</td><td>三傳 卯子卯 → 卯子午</td>" in html
    assert main(["audit", "--against", str(AGAINST / "wlhyl.json"), "--html", str(page)]) == 0
    html = page.read_text("utf-8")
    assert "<th>本派 → 彼答</th>" in html and "<h2>伏吟（3）</h2>" in html and "sanchuan" not in html
    answers = tmp_path / "answers.json"
    answers.write_bytes((AGAINST / "wlhyl.json").read_bytes())
    capsys.readouterr()
    assert main(["audit", "--against", str(answers), "--html", str(answers)]) == 2
    assert answers.read_bytes() == (AGAINST / "wlhyl.json").read_bytes()
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["audit", "--against", str(answers), "--cases", str(answers), "--lang", "en"]) == 2
    assert "give --cases or --against, not both" in capsys.readouterr().err


def test_an_answer_that_says_nothing_comparable_is_named(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"day": "辛巳", "offset": 3}]), "utf-8")
    assert main(["audit", "--against", str(bad), "--lang", "en"]) == 2
    assert "answer 1: give the caster's sanchuan, method or noble" in capsys.readouterr().err


KINLIUREN_SHORTCUT = ["庚午 寅將午時 (offset 8)", "庚午 辰將午時 (offset 10)", "庚辰 辰將午時 (offset 10)",
                      "癸未 寅將午時 (offset 8)", "甲午 辰將午時 (offset 10)", "癸卯 辰將午時 (offset 10)",
                      "甲辰 辰將午時 (offset 10)", "乙卯 辰將午時 (offset 10)"]


def test_kinliuren_eight_short_cut_charts_are_named_and_the_rest_counted_by_method(default):
    """kinliuren's modal 三傳 differs from ours on 114 of the 720 charts (it agrees on 606): 8 are the
    孟仲季 short-cut, 8 more the 涉害 readings added since the issue, the other 98 no shipped reading."""
    agreed, differences = against(default, json.loads((AGAINST / "kinliuren.json").read_text("utf-8")))
    assert agreed == 0 and len(differences) == 114
    assert [d.label for d in differences if ("shehai", "shortcut") in d.explained_by] == KINLIUREN_SHORTCUT
    others = {d.label: d.explained_by for d in differences
              if d.explained_by and ("shehai", "shortcut") not in d.explained_by}
    assert others == {
        "戊辰 丑將午時 (offset 7)": [("shehai_biyong", "daquan")], "甲申 申將午時 (offset 2)": [("shehai_biyong", "daquan")],
        "戊申 丑將午時 (offset 7)": [("shehai_biyong", "daquan")],
        "乙卯 戌將午時 (offset 4)": [("shehai_biyong", "daquan"), ("shehai_start", "seat")],
        "己卯 戌將午時 (offset 4)": [("shehai_start", "seat")], "辛卯 戌將午時 (offset 4)": [("shehai_start", "seat")],
        "辛巳 丑將午時 (offset 7)": [("shehai_pool", "all")], "丁巳 丑將午時 (offset 7)": [("shehai_pool", "all")]}
    unexplained = Counter(d.method for d in differences if not d.explained_by)
    assert unexplained == {"返吟": 31, "比用": 23, "涉害": 19, "伏吟": 12, "八專": 9, "別責": 2, "遙剋": 1, "賊剋": 1}


def test_kinliuren_second_noble_table_is_noble_jia_yang_exactly(default):
    """kinliuren_noble.json: its second table's 貴人 on every chart it answers, by day and night."""
    entries = json.loads((AGAINST / "kinliuren_noble.json").read_text("utf-8"))
    agreed, differences = against(default, entries)
    assert (len(entries), agreed, len(differences)) == (1439, 719, 720)
    assert all(d.explained_by == [("noble", "jia_yang")] for d in differences)
    assert against(Session(readings={"noble": "jia_yang"}), entries) == (1439, [])


def test_against_as_json_groups_each_difference_by_method(capsys):
    assert main(["audit", "--against", str(AGAINST / "kinliuren.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    counts = (data["answers"], data["agree"], data["differ"], data["explained"], data["unexplained"])
    assert counts == (114, 0, 114, 16, 98)
    groups = {g["method"]: g for g in data["by_method"]}
    assert {m: (g["differ"], g["unexplained"]) for m, g in groups.items()} == {
        "比用": (23, 23), "返吟": (31, 31), "遙剋": (1, 1), "涉害": (35, 19), "別責": (2, 2), "伏吟": (12, 12),
        "賊剋": (1, 1), "八專": (9, 9)}
    first = next(d for d in groups["涉害"]["differences"] if d["entry"] == 15)
    assert first == {"entry": 15, "chart": {"id": "庚午日寅將午時", "day": "庚午", "jiang": "寅", "hour": "午", "offset": 8},
                     "method": "涉害", "theirs": {"sanchuan": "戌午寅"}, "ours": {"sanchuan": "子申辰"},
                     "explained_by": [{"topic": "shehai", "reading": "shortcut", "name": "涉害（孟仲季徑取）"}]}


def test_an_answer_is_read_as_the_command_line_reads_branches_and_methods(default):
    """A branch by its name (勝光 for 午), a method in simplified characters: the same answer as 午寅戌 賊剋."""
    given = [{"day": "辛巳", "jiang": "寅", "hour": "午", "sanchuan": ["勝光", "功曹", "河魁"], "method": "贼克"},
             {"day": "辛巳", "jiang": "寅", "hour": "午", "sanchuan": "午寅戌", "method": "比用"}]
    agreed, differences = against(default, given)
    assert agreed == 1 and [(d.entry, d.theirs, d.ours) for d in differences] == [
        (2, {"sanchuan": "午寅戌", "method": "比用"}, {"sanchuan": "午寅戌", "method": "賊剋"})]


@pytest.mark.parametrize("entry, message", [
    ([1], "answer 1: expected an object with day, and jiang and hour or offset"),
    ({"offset": 3, "sanchuan": "子丑寅"}, "answer 1: day is missing or not text"),
    ({"day": "辛巳", "offset": 3, "sanchuan": ["子", "丑"]}, 'answer 1 (辛巳): sanchuan ["子", "丑"] is not three branches'),
    ({"day": "辛巳", "offset": 3, "sanchuan": "子丑X"}, "answer 1 (辛巳): unknown branch 'X' for sanchuan"),
    ({"day": "辛巳", "offset": 3, "method": "元首"}, "answer 1 (辛巳): '元首' is not a method but a keti"),
    ({"day": "辛巳", "offset": 3, "method": "賊尅"}, "answer 1 (辛巳): unknown method '賊尅' for method"),
    ({"day": "辛巳", "offset": 3, "noble": 3}, "answer 1 (辛巳): noble 3 is not text"),
    ({"day": "辛巳", "offset": True, "noble": "子"}, "answer 1 (辛巳): offset True is not a whole number from 0 to 11"),
    ({"day": "辛巳", "offset": 3, "night": "yes", "noble": "子"}, 'answer 1 (辛巳): night "yes" is not true or false'),
    ({"day": "辛巳", "jiang": "寅", "noble": "子"}, "answer 1 (辛巳): give jiang and hour, or offset"),
])
def test_a_bad_answer_is_one_line_naming_it_and_the_field(capsys, tmp_path, entry, message):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([entry] if isinstance(entry, dict) else entry, ensure_ascii=False), "utf-8")
    assert main(["audit", "--against", str(bad), "--json", "--lang", "en"]) == 2
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1 and message in err


def test_the_cases_table_as_json(capsys):
    assert main(["audit", "--cases", "tests/data/cases/zhinan_cases.json", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == 104
    shehai = {t["topic"]: t for t in data["topics"]}["shehai_biyong"]
    assert shehai["readings"] == [{"reading": "none", "name": "不用", "agree": 101},
                                  {"reading": "daquan", "name": "大全", "agree": 101}]
    case37 = shehai["deciding"][0]
    assert {k: case37[k] for k in ("case", "book", "answers")} == {
        "case": "37 戊辰 戌將辰時", "book": "巳亥巳", "answers": {"none": "亥巳亥", "daquan": "巳亥巳"}}
    assert [s["title"] for s in case37["steps"]["daquan"]] == ["定法", "取用", "初傳"]
