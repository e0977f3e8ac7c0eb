"""Disputes on the chart (issue 32): every conclusion another shipped reading would change carries
the reading's name and its alternative, on the board and in --json; the readings cast for a chart are
only those that can touch it, and that loses none of the disputes casting every reading finds."""
from __future__ import annotations

import json

import pytest

from liuren_logic import Session
from liuren_logic.domain import disputes as D
from liuren_logic.faces.cli import main
from liuren_logic.explain.board import columns

HOROSA_62 = "2026-06-22 14:00"  # 丁卯 day, 伏吟: 卯子卯 by default, Horosa's users ask for 卯子午


@pytest.fixture(scope="module")
def default():
    return Session()


def test_the_horosa_chart_marks_its_final_with_the_clash_reading(capsys):
    assert main(["cast", "--at", HOROSA_62]) == 0
    board = capsys.readouterr().out
    final = next(line for line in board.splitlines() if line.lstrip().startswith("末傳"))
    assert final.split()[:7] == ["末傳", "父母", "丁", "卯", "勾陳", "休", "沐浴"]  # the mark trails the row
    assert final.endswith("沐浴  末傳 卯 ⚠ 伏吟末傳（取沖） → 午")
    assert "\n" + " " * columns(final[:final.index("末傳 卯")]) + "末傳 卯 ⚠ 三刑（四鏈） → 酉\n" in board  # seed 000's chains:
    # 子 punishes 酉 on the way from 卯; under it, in the same column
    assert "課體: 伏吟 自信 · 三交 · 殃咎 · 龍虎 · ⚠ 伏吟末傳（取沖） +盤珠 · ⚠ 三交課（課經） −三交" in board
    assert "異說: 伏吟末傳（取沖）: 課格 +4 · 三刑（四鏈）: 課格 +發用刑月建 衝辰 神煞 +三刑午" in board
    assert board.count("⚠") == 5  # the hidden stems 丁甲庚 and 丁甲癸 go with the finals 午 and 酉
    assert main(["cast", "--at", HOROSA_62, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["disputes"]
    assert {"conclusion": "final", "value": "卯", "topic": "fuyin_final", "reading": "clash", "alternative": "午"} in found
    assert main(["cast", "--at", HOROSA_62, "--lang", "en"]) == 0
    assert "final 卯 ⚠ 伏吟's final (the clash) → 午" in capsys.readouterr().out


def test_zhinan_case_37_shows_the_biyong_ge_reading(default):
    found = D.disputes(default.cast("戊辰", "戌", "辰"))
    initial = [(d.topic, d.reading, d.alternative) for d in found if d.conclusion == "initial"]
    assert initial == [("shehai_biyong", "daquan", "巳")]
    assert ("names", "涉害", "shehai", "shortcut", "複等") in {(d.conclusion, d.value, d.topic, d.reading, d.alternative)
                                                             for d in found}


@pytest.mark.parametrize("day", [pytest.param("丁卯", marks=pytest.mark.complete), "戊辰",
                                 pytest.param("癸酉", marks=pytest.mark.complete)])
def test_the_readings_left_uncast_change_nothing(default, monkeypatch, day):
    """On every chart of a day, by day and by night, the disputes found by casting only the readings
    that can touch the chart are those found by casting every shipped reading (戊辰 by default; the
    three days under ``-m complete``)."""
    charts = default.cast_many([default.offset_input(day, o, t) for t in (True, False) for o in range(12)])
    school = default.kb.school
    chosen = [D._disputes(c, school) for c in charts]
    monkeypatch.setattr(D, "_touches", lambda *_: True)
    assert [D._disputes(c, school) for c in charts] == chosen
    assert any(chosen)


def test_a_chart_no_reading_touches_has_no_disputes_and_the_board_no_section(default, monkeypatch):
    from liuren_logic.explain import board, dispute_view

    chart = default.cast("辛巳", "寅", "午")
    drawn = board.render_chart(chart)
    assert "貴人 午 逆行 ⚠ 甲羊 → 寅 ⚠ 晝順夜逆 → 順 · " in drawn.splitlines()[0]  # marks in the header
    assert "\n異說: 天將順逆（晝順夜逆）: 課格 −13 +11 · 貴人（甲羊）: 課格 −15 +12 · 干墓（十干墓）: 課格 −3\n" in drawn
    monkeypatch.setattr(D, "_touches", lambda *_: False)
    assert D._disputes(chart, default.kb.school) == []
    monkeypatch.setattr(dispute_view, "disputes", lambda _: [])  # not through the cache, which keeps the real ones
    assert "異說" not in board.render_chart(chart) and "⚠" not in board.render_chart(chart)


def test_the_page_carries_the_disputes(default):
    from liuren_logic.explain.page import fragment

    html = fragment(default.cast_at(HOROSA_62), "zh")
    drawn = html[html.index('class="lr-sec lr-transmissions"'):]
    assert '<span>沐浴</span><button type="button" class="" data-key="final">末傳 卯 ⚠ 伏吟末傳（取沖） → 午</button>' \
        in drawn[:drawn.index("</section>")]
    assert '<section class="lr-sec lr-disputes"><h2>異說</h2><p><span>伏吟末傳（取沖）:</span> <span>課格 +4</span>' in html


def test_the_app_shows_the_disputes_and_its_why_not_names_the_reading_first(default):
    from liuren_logic.explain import app

    chart = default.cast_at(HOROSA_62)
    assert 'data-key="final">末傳 卯 ⚠ 伏吟末傳（取沖） → 午</button>' in app.board(chart, "zh")["html"]
    lines = app.refutation(chart, "final", "午", "zh")["lines"]
    assert lines[0] == "依伏吟末傳（取沖），末傳午：中傳子刑回初傳卯，改取子之沖午。" and lines[1] == "末傳午：不成立。"
