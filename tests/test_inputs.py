"""What practitioners write: 月將 by name, 「戌加寅」, 日/時 suffixes, --at now, --tz as an offset."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from liuren_logic.domain.calendar import moment
from liuren_logic.faces.cli import main

PLAIN = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]


def board(capsys, *argv):
    code = main(["cast", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines()[0] if out else "", err


@pytest.mark.parametrize("argv", [
    ["--day", "辛巳日", "--jiang", "功曹", "--hour", "午時"],
    ["--day", "辛巳", "--jiang", "寅加午"],
    ["--day", "辛巳", "--jiang", "功曹加勝光"],
    ["--day", "辛巳日", "--jiang", "寅將", "--hour", "勝光"],
    ["--day", "辛巳", "--jiang", "功曹", "--hour", "午", "--simplified"],
])
def test_the_practitioners_forms_cast_the_same_chart(capsys, argv):
    _, expected, _ = board(capsys, *PLAIN, *(["--simplified"] if "--simplified" in argv else []))
    code, first, err = board(capsys, *argv)
    assert code == 0 and err == "" and first == expected and "寅" in first and "午" in first


def test_every_jiang_name_is_its_branch(session):
    names = dict(session.base.query("branch_name", [None, None]))
    assert len(names) == 12 and names["功曹"] == "寅" and names["河魁"] == "戌"
    for name, branch in names.items():
        assert session.cast("甲子", name, "子").id == session.cast("甲子", branch, "子").id


@pytest.mark.parametrize("argv, words", [
    (["--day", "辛巳", "--jiang", "寅加"], "as the 月將 over the hour"),
    (["--day", "辛巳", "--jiang", "功曹X", "--hour", "午"], "unknown branch '功曹X' for the 月將"),
    (["--day", "辛巳月", "--jiang", "寅", "--hour", "午"], "cannot read the day '辛巳月'"),
    (["--at", "1998-11-30 12:00", "--tz", "+15:00"], "not an offset from UTC"),
])
def test_a_bad_form_is_one_line_naming_it(capsys, argv, words):
    code, _, err = board(capsys, *argv, "--lang", "en")
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_tz_as_a_fixed_offset_and_the_note_when_it_is_missing(capsys):
    code, shanghai, err = board(capsys, "--at", "1998-11-30 12:00", "--tz", "Asia/Shanghai")
    assert code == 0 and err == ""
    for tz in ("+08:00", "UTC+8", "+0800"):
        code, first, err = board(capsys, "--at", "1998-11-30 12:00", "--tz", tz)
        assert code == 0 and err == "" and first == shanghai
    code, first, err = board(capsys, "--at", "1998-11-30 12:00")
    assert first == shanghai and err == "liuren: note: no --tz given: the moment is read in Asia/Shanghai (UTC+08:00)\n"
    assert moment("1998-11-30 12:00", "-05:00").local.utcoffset() == timedelta(hours=-5)


def test_at_now_is_the_moment_the_command_runs(capsys):
    before = datetime.now(timezone(timedelta(hours=8)))
    m = moment("now", "+08:00")
    assert before <= m.local <= datetime.now(timezone(timedelta(hours=8)))
    code, first, err = board(capsys, "--at", "now", "--tz", "+08:00")
    assert code == 0 and err == "" and "日" in first
