"""The board's spirit groups with 吉/凶 where the seeds say (spirit_omen), and nothing drawn twice."""
from __future__ import annotations

import re

import pytest

from conftest import seed_text
from liuren_logic.explain.board import render_chart


@pytest.fixture(scope="module")
def seed_chart(session):
    return session.cast_at("1998-11-30 12:00", "Asia/Shanghai")


def spirit_lines(board: str) -> list[str]:
    return board.split("神煞:\n")[1].split("\n\n")[0].splitlines()


def test_every_omen_is_a_seed_line_that_says_it(session):
    tables = [f for f in session.kb.program.facts if f.id and f.id.startswith("spirit.omen.")]
    assert len(tables) >= 10
    for table in tables:
        book, _, line = table.source.partition(": ")
        spirit, omen = (a.value for a in table.head.args)
        assert line in seed_text(book), table.id
        # the line names the spirit (or the 三煞 it belongs to) and says 吉 or 凶, as the fact does
        assert omen in line and (spirit in line or "三煞" in line), table.id
    omens = dict(session.base.query("spirit_omen", [None, None]))
    assert omens["月德"] == "吉" and omens["劫煞"] == "凶" and omens["白虎"] == "凶"
    assert "太陰" not in omens and "亡神" not in omens  # both, or only for one matter: left out


def test_the_spirit_groups_carry_the_seeds_omens(session, seed_chart):
    lines = spirit_lines(render_chart(seed_chart))
    shown = {m.group(1): m.group(2) for line in lines for m in re.finditer(r"(\S+?)[子丑寅卯辰巳午未申酉戌亥]\([^)]*\)(吉|凶)?", line)}
    omens = dict(session.base.query("spirit_omen", [None, None]))
    assert shown["月德"] == "吉" and shown["白虎"] == "凶" and shown["劫煞"] == "凶" and shown["太歲"] is None
    for spirit, mark in shown.items():
        assert mark == omens.get(spirit), spirit  # every mark from the relation, and every omen marked
    en = render_chart(seed_chart, "en")
    assert "月德寅(干陰·中傳)吉" in en


def test_nothing_is_drawn_twice(session, seed_chart):
    board = render_chart(seed_chart)
    lines = spirit_lines(board)
    marks = {m for m, _ in seed_chart.rows("day_mark")}
    assert marks >= {"日祿", "日德"} and "日祿 酉臨丑" in board  # the marks' own line ...
    assert not any(re.search(rf"(?<!\S){m}[子丑寅卯辰巳午未申酉戌亥]\(", line) for m in marks for line in lines)  # ... only
    generals = board.split("天將:\n")[1].split("\n\n")[0]
    patterns = board.split("課格:\n")[1].split("\n\n")[0]
    drawn = {s for line in generals.splitlines() for s in line.split(": ")[1].split()}
    assert "貴人入獄" in drawn and not drawn & set(patterns.split())
    assert "螣蛇交戰" in patterns  # a state of a general outside the lessons and 三傳 keeps its place
    everything = render_chart(seed_chart, all_generals=True)
    assert "螣蛇交戰" in everything.split("天將:\n")[1].split("\n\n")[0]
    assert "螣蛇交戰" not in everything.split("課格:\n")[1].split("\n\n")[0]
    # one table of 日德: the spirit, the mark and the patterns read stem_virtue
    graph = session.why(seed_chart, "spirit", "日德")
    assert {"spirit.day.de", "virtue.yin"} <= {a.get("rule") for _, a in graph.nodes(data=True)}
