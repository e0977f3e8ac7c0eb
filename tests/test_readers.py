"""What every reader gets (issue 38): names, never internal ids, unless a developer asks (``--ids``);
text that fits the terminal; questions and readings asked by the names shown."""
from __future__ import annotations

import re

import pytest

from liuren_logic.faces.cli import main
from liuren_logic.explain.text_width import columns, terminal_width, wrap

CHART = ("--day", "辛巳", "--jiang", "寅", "--hour", "午")
# An internal id as the project's pre-stop hook finds one: a lowercase ASCII word of three or more
# characters, dotted parts allowed, that does not continue a word or a --flag.
ASCII_ID = re.compile(r"(?:^|[^-A-Za-z0-9_])([a-z][a-z_0-9]{2,}(?:\.[a-z_0-9]+)*)", re.M)
OUTPUTS = {"teach": ("teach", *CHART), "cast --matter 家宅": ("cast", *CHART, "--matter", "家宅"),
           "why-not keti 斬關": ("why-not", "keti", "斬關", *CHART), "why initial": ("why", "initial", *CHART)}


@pytest.fixture(autouse=True)
def piped(monkeypatch):
    """Standard output is no terminal and COLUMNS is unset: text is wrapped to 100 columns."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr("os.get_terminal_size", lambda *a: (_ for _ in ()).throw(OSError("not a terminal")))


def run(capsys, *argv) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("name", OUTPUTS)
def test_the_chinese_outputs_carry_no_internal_id_and_ids_shows_them(capsys, name):
    plain = run(capsys, *OUTPUTS[name])
    assert ASCII_ID.findall(plain) == []
    if name != "why-not keti 斬關":  # its three lines name the rule by its label and book alone
        shown = run(capsys, *OUTPUTS[name], "--ids")
        # the board's only ids are its school's and the 斷's reasons' (two on this chart); the others cite many
        assert len(ASCII_ID.findall(shown)) > (2 if name.startswith("cast") else 5), shown[:400]
        if name.startswith("cast"):
            assert "weigh." in shown


def test_ids_name_the_rules_their_files_and_the_readings(capsys):
    lesson = run(capsys, "teach", *CHART, "--ids")
    assert "〔規則 zeike.upper、zeike.mode_upper｜《福山堂》" in lesson
    assert "〔本門派於daynight取 fixed 之讀法：daynight.day_hour 出自 kb/variants/daynight/fixed.dl〕" in lesson
    plain = run(capsys, "teach", *CHART)
    assert "〔《福山堂》「如無下賊上剋初」〕" in plain and "〔本門派於晝夜取「卯至申為晝」之讀法〕" in plain
    board = run(capsys, "cast", *CHART, "--reading", "punishment=seed000")
    assert "門派：通行、三刑（四鏈）" in board


def test_books_are_named_never_seed_numbers(capsys):
    assert "seed" not in run(capsys, "teach", *CHART, "--lang", "en")


@pytest.mark.parametrize("argv", [("why", "initial", *CHART), ("teach", *CHART), ("teach", *CHART, "--lang", "en"),
                                  ("teach", *CHART, "--matter", "家宅"),
                                  ("audit", "--cases", "tests/data/cases/zhinan_cases.json")])
def test_text_fits_100_columns_when_piped(capsys, argv):
    text = run(capsys, *argv)
    assert terminal_width() == 100
    assert max(map(columns, text.splitlines())) <= 100
    assert len(text.splitlines()) > 20


def test_columns_set_the_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert max(map(columns, run(capsys, "why", "initial", *CHART).splitlines())) <= 80


def test_wrapping_keeps_the_text_and_breaks_between_items():
    line = "   · " + "、".join(f"{b}上{c}" for b, c in zip("子丑寅卯辰巳午未申酉戌亥" * 3, "申酉戌亥子丑寅卯辰巳午未" * 3))
    lines = wrap(line, 40).splitlines()
    assert all(columns(l) <= 40 for l in lines) and all(l.startswith("     ") for l in lines[1:])
    assert all(l.endswith("、") for l in lines[:-1])  # each break falls after a separator
    assert "".join(l.strip() for l in lines) == line.strip()
    tree = "│  └─ ⇐ " + "甲乙丙丁戊己庚辛壬癸" * 6
    assert all(l.startswith("│     ") for l in wrap(tree, 50).splitlines()[1:])  # the tree's pipe carried down


def test_the_audit_table_keeps_its_columns_with_chinese_headers(capsys):
    text = run(capsys, "audit", "--vs", "punishment=seed000", "--limit", "3")
    head, *rows = text.split("\n\n")[1].splitlines()
    starts = [columns(head[:head.index(word)]) for word in ("結論", "變化")]
    for row in rows[:3]:
        cells = re.split(r"(?<=\S)  +", row)
        assert [columns(row[:row.index(c)]) for c in cells[1:3]] == starts


def test_questions_and_readings_are_taken_by_the_names_shown(capsys):
    assert run(capsys, "why", "初傳", *CHART).startswith("初傳午\n")
    assert "末傳午" in run(capsys, "why-not", "末傳", "午", *CHART)
    assert run(capsys, "why-not", "断", "雪", *CHART, "--matter", "天时").startswith("斷：雪：不成立")
    by_id = run(capsys, "audit", "--vs", "punishment=seed000", "--limit", "1")
    assert run(capsys, "audit", "--vs", "punishment=四鏈", "--limit", "1") == by_id
    assert run(capsys, "audit", "--vs", "三刑=四链", "--limit", "1") == by_id


def test_a_why_not_says_the_failed_condition_as_a_negation_and_a_definition_as_one(capsys):
    zh = run(capsys, "why-not", "keti", "斬關", *CHART)
    assert "斬關之定義：魁罡臨日辰：斬關" in zh and "此盤不合：丑非魁罡。" in zh and "某" not in zh
    en = " ".join(run(capsys, "why-not", "keti", "斬關", *CHART, "--lang", "en").split())
    assert "“魁罡 stands over the stem or the branch: 斬關”" in en and " any " not in en
    assert "On this chart it fails: it is not so that 丑 is 魁 (戌) or 罡 (辰)." in en
    three = run(capsys, "why-not", "keti", "三光", *CHART)
    assert "三光之定義：用神、日干、日支皆旺相，用神乘吉將" in three.replace("\n", "")


def test_the_apps_why_not_names_the_form_field_for_a_missing_input():
    from liuren_logic import Session
    from liuren_logic.explain.app import refutation

    chart = Session().cast("辛巳", "寅", "午")  # no month: 三光 needs one
    assert refutation(chart, "keti", "三光", "zh")["lines"][-1] == "此盤未給月份：需 〔月建〕 或 〔時刻〕。"
    assert refutation(chart, "keti", "三光", "en")["lines"][-1] == "This chart lacks the month: needs “month” or “moment”."
