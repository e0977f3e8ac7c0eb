"""Errors in the language asked (issue 38): every bad input the command line can be given is one
line on standard error, exit status 2, in Chinese under ``--lang zh`` (the default) and in English
under ``--lang en``, argparse's own errors included; the app's Chinese page names the form field."""
import json
import re

import pytest

from liuren_logic.faces.cli import main

DAY = ["--day", "辛巳", "--offset", "8"]
AT = ["--at", "1998-11-30 12:00"]
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
STEMS_BRANCHES = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lang")
    (folder / "broken.json").write_text('[\n {"day": "辛巳",\n', "utf-8")
    (folder / "object.json").write_text('{"day": "辛巳"}', "utf-8")
    (folder / "pillar.json").write_text('[{"seq": 7, "day": "甲丑", "yuejiang": "寅", "hour": "午", "sanchuan": "午寅戌"}]',
                                        "utf-8")
    (folder / "school.toml").write_text("include = 3\n", "utf-8")
    return folder


CASES = [
    ["cast", "--day", "甲丑", "--jiang", "寅", "--hour", "午"],  # an impossible pillar
    ["cast", "--day", "辛巳", "--jiang", "X", "--hour", "午"],  # a bad branch
    ["cast", "--day", "x" * 300, "--offset", "3"],  # an unreadable day, echoed cut
    ["cast", "--day", "辛巳", "--offset", "12"],
    ["cast", "--day", "辛巳"],
    ["cast"],
    ["cast", "--at", "1998-13-40 12:00"],  # a bad date
    ["cast", *AT, "--tz", "Mars/Olympus"],  # a bad zone
    ["cast", *AT, "--latitude", "91"],
    ["cast", *AT, "--day", "辛巳"],
    ["cast", *AT, "--reading", "daynight=sun"],
    ["cast", *DAY, "--matter", "飛天"],  # an unknown matter
    ["cast", *DAY, "--question", "雨否"],
    ["cast", *DAY, "--reading", "punishment=nosuch"],  # an unknown reading
    ["cast", *DAY, "--reading", "nosuch=x"],
    ["cast", *DAY, "--reading", "punishment"],
    ["cast", *DAY, "--school", "nosuch"],  # an unknown school
    ["cast", *DAY, "--school", "{files}/school.toml"],
    ["cast", *DAY, "--born", "xyz"],  # a bad --born
    ["cast", *DAY, "--born", "1970", "--sex", "q"],
    ["cast", *DAY, "--born", "10000"],
    ["cast", *DAY, "--kb", "{files}/none.dl"],  # a bad KB file
    ["cast", *DAY, "--kb", "{files}"],
    ["cast", *DAY, "--engine", "prolog"],  # argparse: an invalid choice
    ["cast", *DAY, "--frobnicate"],  # argparse: an unknown option
    ["cast", "--day"],  # argparse: a value missing
    ["cast", "--la", "x"],  # argparse: an ambiguous option
    ["frobnicate"],  # argparse: an unknown command
    ["why"],  # argparse: a required argument
    ["kb", "frob"],
    ["audit", "--limit", "many"],  # argparse: not a number
    ["why", "nosuch", *DAY],  # an unknown why question
    ["why", "xingnian", *DAY],
    ["why", "nosuch(子)", *DAY],
    ["why", "clashes(子)", *DAY],
    ["why", "斷", *DAY],
    ["why-not", "initial", *DAY],
    ["audit"],
    ["audit", "--vs", "nosuch"],
    ["audit", "--vs", "punishment=seed000", "--from", "2024-01-01"],
    ["audit", "--vs", "punishment=seed000", "--from", "2024-01-01 00:00", "--to", "2024-01-02 00:00", "--step", "x"],
    ["audit", "--cases", "{files}/broken.json"],
    ["audit", "--cases", "{files}/object.json"],
    ["audit", "--cases", "{files}/pillar.json"],
    ["audit", "--cases", "{files}/none.json"],
    ["audit", "--cases", "{files}/broken.json", "--against", "{files}/broken.json"],
    ["teach", "--quiz", "--rounds", "0"],
    ["kb", "show", "nosuch"],
    ["kb", "check", "{files}/none.dl"],
    ["serve", "--port", "70000"],
    ["serve", "--host", "0.0.0.0"],
]


def said(capsys, files, argv: list[str], lang: str) -> tuple[list[str], str]:
    """The arguments as given (``{files}`` filled) and the one line on standard error, checked to be one."""
    given = [a.format(files=files) for a in argv]
    code = main([*given, "--lang", lang])
    out, err = capsys.readouterr()
    assert code == 2 and err.count("\n") == 1 and err.startswith("liuren: ") and "Traceback" not in err, (given, err)
    return given, err.strip().removeprefix("liuren: ")


def _typed_aside(text: str, given: list[str]) -> str:
    """``text`` less what the user typed (values, paths; cut echoes by their start), option names and paths."""
    for word in sorted(given, key=len, reverse=True):
        text = text.replace(word[:40], " ") if word else text
    return re.sub(r"--[\w-]+|/\S*|\bliuren\b", " ", text)


@pytest.mark.parametrize("argv", CASES, ids=lambda argv: " ".join(argv)[:60])
def test_an_error_under_zh_is_chinese(capsys, files, argv):
    given, line = said(capsys, files, argv, "zh")
    rest = _typed_aside(line, given)
    assert CJK.search(rest), line
    assert not re.search(r"[A-Za-z]+(?:[ ,]+[A-Za-z]+){2,}", rest), line  # no English sentence


@pytest.mark.parametrize("argv", CASES, ids=lambda argv: " ".join(argv)[:60])
def test_an_error_under_en_is_english(capsys, files, argv):
    given, line = said(capsys, files, argv, "en")
    rest = _typed_aside(line, given)
    assert len(re.findall(r"\b[A-Za-z]{2,}\b", rest)) >= 2, line  # English words
    assert not re.search(r"[「」、，：；（）。]", rest), line  # no Chinese punctuation
    terms = re.sub(f"[{STEMS_BRANCHES}]", "", rest)  # a stem or branch is a value, not a word
    assert all(len(term) <= 5 for term in re.findall(f"{CJK.pattern}+", terms)), line  # a term, not a sentence


def test_an_argparse_error_names_the_option_and_what_it_accepts(capsys, files):
    _, line = said(capsys, files, ["cast", *DAY, "--engine", "prolog"], "zh")
    assert line == "--engine 不可取「prolog」；可取：materialise、pydatalog（見 liuren cast --help）"
    _, line = said(capsys, files, ["audit", "--limit", "many"], "zh")
    assert line == "--limit 須為整數，「many」不是（見 liuren audit --help）"


def test_the_language_is_read_from_the_command_line_when_argparse_fails(capsys, files):
    """--lang before or after the bad option, or as --lang=en: the same language."""
    for argv in (["cast", "--lang", "en", "--frobnicate"], ["cast", "--frobnicate", "--lang=en"]):
        assert main(argv) == 2 and capsys.readouterr().err.startswith("liuren: unrecognized arguments")
    assert main(["cast", "--frobnicate"]) == 2 and capsys.readouterr().err.startswith("liuren: 不識之選項")


def test_a_chinese_error_leads_with_its_option_and_is_simplified_when_asked(capsys, files):
    _, line = said(capsys, files, ["cast", "--day", "辛巳", "--jiang", "X", "--hour", "午"], "zh")
    assert line == "--jiang：「X」非地支：應為子丑寅卯辰巳午未申酉戌亥之一"
    code = main(["cast", "--day", "辛巳", "--jiang", "X", "--hour", "午", "--simplified"])
    assert code == 2 and capsys.readouterr().err == "liuren: --jiang：「X」非地支：应为子丑寅卯辰巳午未申酉戌亥之一\n"


def test_a_chinese_error_is_led_by_the_option_it_is_about_not_by_another(capsys, files):
    _, line = said(capsys, files, ["cast", "--day", "辛巳"], "zh")
    assert line.startswith("--jiang：未填")  # the option missing
    _, line = said(capsys, files, ["audit", "--vs", "nosuch"], "zh")
    assert line.startswith("無此門派「nosuch」")  # --vs named a school: not led by --school


def test_a_long_echo_is_cut_with_its_length_in_chinese(capsys, files):
    _, line = said(capsys, files, ["cast", "--day", "x" * 300, "--offset", "3"], "zh")
    assert f"「{'x' * 80}…（共 300 字）」" in line


@pytest.mark.parametrize("fields", [
    {"day": "辛巳", "offset": "3", "question": "雨否"},
    {"day": "辛巳", "offset": "3", "born": "1970", "sex": "q"},
    {"at": "1998-11-30 12:00", "tz": "Asia/Shanghai", "latitude": "91"},
    {"day": "辛巳", "offset": "3", "born": "10000"},
])
def test_the_app_says_a_chinese_error_by_the_form_field_never_a_flag(fields):
    from liuren_logic.domain.errors import InputError
    from liuren_logic.explain.app import form_error
    from liuren_logic.faces.serve import App

    with pytest.raises(InputError) as raised:
        App("default").answer("cast", {**fields, "asked": fields.pop("question", "")} if "question" in fields
                              else fields)
    shown = form_error(raised.value, "zh")
    assert shown["field"] and shown["error"].startswith("〔") and "--" not in shown["error"], shown
    assert not re.search(r"[A-Za-z]{3,}", shown["error"]), shown
    assert json.dumps(shown)  # as the page receives it


def test_a_chinese_reading_error_offers_the_names_reading_takes(capsys, files):
    """An unknown topic or reading under zh lists the topics and readings by their Chinese names, not
    their ids, and ``--reading`` takes each name listed."""
    from liuren_logic.domain.school import parse_readings

    _, line = said(capsys, files, ["cast", *DAY, "--reading", "nosuch=x"], "zh")
    topics = line.split("諸題為：", 1)[1].split("、")
    assert "三刑" in topics and not any(re.search(r"[A-Za-z_]", t) for t in topics), line
    _, line = said(capsys, files, ["cast", *DAY, "--reading", "punishment=nosuch"], "zh")
    assert line == "--reading：三刑無此讀法「nosuch」（可取：通行、四鏈，或一個 .dl 檔）"
    assert parse_readings("三刑=四鏈") == {"punishment": "seed000"}
    _, line = said(capsys, files, ["cast", *AT, "--reading", "hours=nosuch"], "zh")
    offered = re.search(r"可取：(.*)）", line).group(1).split("、")
    assert [parse_readings(f"時辰={name}")["hours"] for name in offered] == ["civil", "true_solar"], line
