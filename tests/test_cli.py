"""The liuren command: real output on good input, one clear line and exit 2 on bad input."""
from __future__ import annotations

import gc
import json
import re

import pytest

from liuren_logic.faces.cli import main


@pytest.fixture(autouse=True)
def unwrapped(monkeypatch):
    """What the commands say, compared a sentence at a time: a terminal wide enough not to wrap it
    (tests/test_readers.py holds the wrapping to 100 columns)."""
    monkeypatch.setenv("COLUMNS", "1000")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("run_command", ["main", "run"])
def test_a_command_called_as_a_function_leaves_the_collector_as_it_was(capsys, enabled, run_command):
    """The command pauses and freezes the collector while it runs; a caller that goes on gets it back
    as it was, and one that froze objects of its own keeps them frozen."""
    from liuren_logic.faces import cli

    was = gc.isenabled()
    kept = [object() for _ in range(3)]
    try:
        (gc.enable if enabled else gc.disable)()
        assert getattr(cli, run_command)(["cast", "--day", "辛巳", "--offset", "2"]) == 0
        assert gc.isenabled() is enabled and gc.get_freeze_count() == 0
        gc.freeze()
        frozen = gc.get_freeze_count()
        assert getattr(cli, run_command)(["cast", "--day", "辛巳", "--offset", "2"]) == 0
        assert gc.isenabled() is enabled and 0 < gc.get_freeze_count() <= frozen  # not thawed, nothing added
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
    capsys.readouterr()
    assert kept


def test_cast_prints_the_chart(capsys):
    code, out, _ = run(capsys, "cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午")
    assert code == 0
    initial = next(line.split() for line in out.splitlines() if line.startswith("  初傳"))
    assert "賊剋 元首" in out and initial[:5] == ["初傳", "官鬼", "壬", "午", "貴人"] and "旬空 申酉" in out


def test_cast_json_and_simplified_input(capsys):
    code, out, _ = run(capsys, "cast", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--json")
    data = json.loads(out)
    assert [t["branch"] for t in data["transmissions"]] == ["午", "寅", "戌"]
    assert data["lessons"][0] == {"number": 1, "upper": "午", "lower": "辛", "general": "貴人"}
    code, out, _ = run(capsys, "cast", "--day", "丁未", "--offset", "3", "--night", "--simplified")
    assert code == 0 and "八专" in out


def test_why_prints_a_tree_down_to_facts(capsys):
    code, out, _ = run(capsys, "why", "clashes(子, 午)", "--ids")
    assert code == 0 and "relation.clash" in out and "kb/core/symbols.dl:" in out
    code, out, _ = run(capsys, "why", "punishes(申, 寅)", "--ids")
    assert code == 0 and "kb/variants/punishment/common.dl:" in out
    code, out, _ = run(capsys, "why", "initial", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--lang", "en", "--ids")
    assert code == 0 and "zeike.yuanshou" in out and "the upper 午 overcomes the lower 辛" in out


def test_why_not_under_another_reading(capsys):
    code, out, _ = run(capsys, "why-not", "punishes(申, 寅)", "--reading", "punishment=seed000", "--lang", "en")
    assert code == 0 and "no such fact in kb/variants/punishment/seed000.dl" in out
    code, out, _ = run(capsys, "why-not", "punishes(申, 寅)", "--reading", "punishment=seed000")
    assert code == 0 and "無此事實（kb/variants/punishment/seed000.dl）" in out
    code, out, _ = run(capsys, "why-not", "initial", "丑", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--full",
                       "--lang", "en", "--ids")
    assert code == 0 and "zeike.yuanshou does not fire" in out  # --full: every rule that could have fired
    code, out, _ = run(capsys, "why-not", "initial", "丑", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--full")
    assert code == 0 and "「無下賊，惟一上剋，丑發用：元首」未成立" in out and "zeike" not in out


def test_why_json_is_node_link_data(capsys):
    code, out, _ = run(capsys, "why", "clashes(子, 午)", "--json")
    data = json.loads(out)
    assert code == 0 and data["directed"] and len(data["nodes"]) == 5


@pytest.mark.parametrize("argv, words", [
    (["cast", "--day", "甲丑", "--jiang", "寅", "--hour", "午"], "impossible pillar 甲丑"),
    (["cast", "--day", "辛巳", "--jiang", "X", "--hour", "午"], "unknown branch 'X'"),
    (["cast", "--day", "辛巳"], "missing --jiang and --hour"),
    (["cast", "--day", "辛巳", "--offset", "12"], "offset 12"),
    (["cast"], "missing --day"),
    (["why", "initial"], "missing --day"),
    (["why", "clashes(子, 丑)"], "does not hold; ask why-not"),
    (["why", "nosuch(子)"], "unknown predicate 'nosuch'"),
    (["why-not", "initial", "--day", "辛巳", "--offset", "8"], "needs the value"),
    (["cast", "--day", "辛巳", "--offset", "8", "--school", "nosuch"], "no school 'nosuch'"),
    (["cast", "--day", "辛巳", "--offset", "8", "--reading", "punishment=nosuch"], "no reading 'nosuch' of punishment"),
    (["cast", "--day", "辛巳", "--offset", "8", "--reading", "nosuch=x"], "unknown topic 'nosuch'"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out, err = run(capsys, *argv, "--lang", "en")  # the words are English (zh: test_errors_lang.py)
    assert code == 2 and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_kb_check_reports_problems_with_positions(capsys, tmp_path):
    bad = tmp_path / "bad.dl"
    bad.write_text("@pred mine(x: branch).\nmine(子).\nmine(X) :- clashes(X, Y), nosuch(Y).\nmine(甲).\n", "utf-8")
    code, _, err = run(capsys, "kb", "check", str(bad))
    assert code == 1
    assert f"{bad}:3:27: undeclared predicate nosuch" in err
    assert f"{bad}:4:6: 甲 is not a branch" in err
    good = tmp_path / "good.dl"
    good.write_text("@pred mine(x: branch) zh \"{x}\" en \"{x}\".\nmine(X) :- clashes(X, 子).\n", "utf-8")
    code, out, _ = run(capsys, "kb", "check", str(good))
    assert code == 0 and "ok" in out


def test_pwned_constant_runs_nothing(capsys, tmp_path):
    evil = tmp_path / "evil.dl"
    marker = tmp_path / "pwned"
    evil.write_text(f"@pred note(x: text).\nnote(\"__import__('os').system('touch {marker}')\").\n"
                    f"__import__('os').system('touch {marker}').\n", "utf-8")
    code, _, err = run(capsys, "kb", "check", str(evil))
    assert code == 1 and "evil.dl:3:1" in err and not marker.exists()


def test_cast_at_a_moment_states_the_calendar(capsys):
    code, out, _ = run(capsys, "cast", "--at", "1998-11-30 12:00", "--tz", "Asia/Shanghai")
    assert code == 0 and "辛巳日 寅將 午時" in out and "中氣 小雪" in out and "1998-11-22 20:34:12" in out
    code, out, _ = run(capsys, "why", "jiang", "--at", "1998-11-30 12:00")
    assert code == 0 and "⇐ 小雪之後，月將寅" in out and "calendar.jiang" not in out and "1998-11-22 20:34:12 UTC+8" in out


def test_audit_json_and_cases(capsys, tmp_path):
    code, out, _ = run(capsys, "audit", "--vs", "punishment=seed000", "--times", "day", "--json", "--explain", "庚午/0")
    data = json.loads(out)
    assert code == 0 and data["summary"]["三傳"] == 33 and data["charts"] == 720  # 30 walks through 申→寅 or 未→丑, 3 of 卯子卯
    assert set(data["explained"]["庚午日午將午時"]) == {"default", "default+punishment=seed000"}
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"seq": 1, "day": "癸卯", "yuejiang": "戌", "hour": "子", "sanchuan": "丑亥酉"}]), "utf-8")
    code, out, _ = run(capsys, "audit", "--vs", "shehai=shortcut", "--cases", str(cases), "--lang", "en")
    assert code == 0 and "mainstream, 涉害 (the 孟仲季 short-cut): 1" in out
    code, out, _ = run(capsys, "audit", "--vs", "shehai=shortcut", "--cases", str(cases))
    assert code == 0 and "通行、涉害（孟仲季徑取）：1" in out and "依從" in out
    page = tmp_path / "audit.html"
    code, _, _ = run(capsys, "audit", "--vs", "noble=jia_yang", "--times", "night", "--html", str(page), "--limit", "1")
    assert code == 0 and "http" not in page.read_text("utf-8") and "甲子日子將子時" in page.read_text("utf-8")


def test_kb_show_compiled(capsys):
    code, out, _ = run(capsys, "kb", "show", "clashes", "--compiled")
    assert code == 0 and "Fire_" in out and "clashes(A, B) :- Fire_" in out


def test_kb_show_lays_each_rule_out_within_the_width_breaking_only_between_literals(capsys, session, monkeypatch):
    from liuren_logic.explain.text_width import columns

    monkeypatch.setenv("COLUMNS", "100")
    code, out, _ = run(capsys, "kb", "show")
    clauses = [block.split("\n", 1)[1] for block in out.strip().split("% ")[1:]]
    assert code == 0 and max(map(columns, out.splitlines())) <= 100
    assert [" ".join(line.strip() for line in clause.splitlines()) for clause in clauses] == [
        str(compiled.rule) for compiled in session.kb.rules]
    assert any(clause.count("\n    ") >= 1 for clause in clauses)  # some rule needed a second line


@pytest.mark.parametrize("argv, words", [
    (["audit", "--vs", "nosuch"], "no school 'nosuch'"),
    (["audit", "--vs", "punishment=seed000", "--from", "2024-01-01"], "give both --from and --to"),
    (["cast", "--at", "1998-11-30 12:00", "--day", "辛巳"], "give either --at or the pillars"),
    (["cast", "--at", "1998-11-30 12:00", "--tz", "Mars/Olympus"], "Mars/Olympus"),
    (["cast", "--at", "1998-11-30 12:00", "--engine", "prolog"], "invalid choice"),
])
def test_more_bad_input(capsys, argv, words):
    code, _, err = run(capsys, *argv, "--lang", "en")
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_teach_and_page_for_a_chart_cast_from_a_moment(capsys, tmp_path):
    code, out, _ = run(capsys, "teach", "--at", "1998-11-30 12:00", "--lang", "en", "--ids")
    assert code == 0 and "午寅戌" in out and "zeike.upper" in out
    page = tmp_path / "chart.html"
    code, _, _ = run(capsys, "page", "--at", "1998-11-30 12:00", "--output", str(page), "--ids")
    assert code == 0 and "zeike.yuanshou" in page.read_text("utf-8")


def test_the_board_a_calendar_line_spirits_by_origin_generals_states_and_warnings(capsys):
    code, out, err = run(capsys, "cast", "--at", "1998-11-30 12:00", "--tz", "Asia/Shanghai")
    calendar = [line for line in out.splitlines()[1:] if line.startswith("  四柱")]
    assert code == 0 and err == "" and out.startswith("辛巳日 寅將 午時 ") and calendar == [
        "  四柱 戊寅 癸亥 辛巳 甲午 · 節 立冬 1998-11-07 23:08:23 · 中氣 小雪 1998-11-22 20:34:12 (UTC+8)"]
    assert "月柱 癸亥: month changes at each 節" not in out
    assert "神煞: 歲: 寅(干陰·中傳) 五鬼 太歲 奏書 · " in out  # by origin, then by branch
    assert "      日: " in out and "      季: " in out

    def generals(board: str) -> list[str]:
        section = board[board.index("天將: "):board.index("課體: ")]
        return re.findall(r"(\S+) \S臨\S:", section)

    assert out.split("\n天將: ")[1].startswith("貴人 午臨戌: 貴人入獄 · ")
    assert generals(out) == ["貴人", "勾陳", "太常", "玄武", "青龍"]  # 貴 勾 常 of the 三傳, 玄 龍 of the lessons
    code, out, _ = run(capsys, "cast", "--at", "1998-11-30 12:00", "--explain-calendar", "--all")
    assert "月柱 癸亥：逢節換月；時在節立冬 1998-11-07 23:08:23 UTC+8之後" in out
    assert len(set(generals(out))) == 12
    code, english, _ = run(capsys, "cast", "--at", "1998-11-30 12:00", "--explain-calendar", "--lang", "en")
    assert "月柱 癸亥: month changes at each 節" in english
    code, _, err = run(capsys, "cast", "--at", "1998-11-30 12:00", "--longitude", "116.4")
    assert code == 0 and err.startswith("liuren: warning: --longitude is ignored")
    code, _, err = run(capsys, "cast", "--at", "1998-11-30 12:00", "--longitude", "116.4", "--reading", "hours=true_solar")
    assert code == 0 and "warning" not in err


def test_text_written_in_pieces_is_the_text_written_whole():
    """A document written as it is encoded (a long audit's --json) is printable piece by piece and
    ends as a whole text does: standard output always gains a newline (as print), a file only
    where the text lacks one."""
    from liuren_logic.faces.cli import _printable_pieces, printable

    text = "賊剋\x1b[2J\n" + "x" * 10 + "\u202e末"
    for cut in range(len(text) + 1):
        pieces = [text[:cut], "", text[cut:]]
        assert "".join(_printable_pieces(pieces, False, newline=True)) == printable(text) + "\n"
        assert "".join(_printable_pieces(pieces, False, newline=False)) == printable(text) + "\n"
        assert "".join(_printable_pieces([text + "\n"], False, newline=False)) == printable(text) + "\n"
    assert "".join(_printable_pieces(["賊", "剋"], True, newline=True)) == "贼克\n"
