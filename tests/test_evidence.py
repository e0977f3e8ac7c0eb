"""Audits against evidence (issue 32): every topic's readings against the 《指南》's cases, and the
differences of other casters (tests/data/against: wlhyl/daliuren's and Damongu's, as the issue lists
them) each explained by a named shipped reading."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from liuren_logic import Session
from liuren_logic.cli import main
from liuren_logic.evidence import against, by_topic

AGAINST = Path(__file__).parent / "data" / "against"


@pytest.fixture(scope="module")
def default():
    return Session()


def test_every_topic_against_the_zhinan_cases(default, zhinan_cases):
    verdicts = {v.topic: v for v in by_topic(default, zhinan_cases)}
    assert verdicts["shehai"].agree == {"depth": 101, "shortcut": 103}  # 癸卯 10 and 癸酉 7: the 2 short-cut cases
    assert verdicts["shehai_biyong"].agree == {"none": 101, "daquan": 101}  # gains case 37, loses 105
    assert [label.split()[0] for label, _, _ in verdicts["shehai_biyong"].deciding] == ["37", "105"]
    assert verdicts["shehai_pool"].agree == {"polar": 101, "all": 101} and not verdicts["shehai_pool"].deciding
    assert verdicts["shehai_start"].agree == {"next": 101, "seat": 100}  # case 74 (己亥) decides for the default
    assert verdicts["fuyin_final"].agree == {"punish_back": 101, "clash": 100}  # case 11 辛卯 prints 卯子卯
    assert verdicts["punishment"].agree == {"common": 101, "seed000": 94}


def test_the_cases_table_and_its_html_on_the_command_line(capsys, tmp_path):
    page = tmp_path / "cases.html"
    assert main(["audit", "--cases", "tests/data/cases/zhinan_cases.json", "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "  shehai         depth 101  shortcut 103" in out
    assert "37 戊辰 戌將辰時         book 巳亥巳  none 亥巳亥  daquan 巳亥巳✓" in out
    assert "<h2>shehai_biyong</h2>" in page.read_text("utf-8")
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
    assert main(["audit", "--against", str(AGAINST / "wlhyl.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("16 answers: 1 agree; 15 differ, 15 explained by a shipped reading, 0 by none")
    assert "伏吟 (3):\n  丁卯 午將午時 (offset 0): sanchuan 卯子卯 → 卯子午  — fuyin_final=clash 伏吟末傳（取沖）" in out


def test_an_answer_that_says_nothing_comparable_is_named(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"day": "辛巳", "offset": 3}]), "utf-8")
    assert main(["audit", "--against", str(bad)]) == 2
    assert "answer 1: give the caster's sanchuan, method or noble" in capsys.readouterr().err
