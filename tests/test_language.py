"""The language of the output: --simplified throughout, simplified names read back."""
from __future__ import annotations

import contextlib
import io
import re

import pytest

from scopes import SCOPES
from liuren_logic.faces.cli import main
from liuren_logic.datalog.script import simplified, traditional

# Characters outside GB2312 that are the same in both scripts (OpenCC leaves them as they are).
BOTH_SCRIPTS = set("倣剱咥啣泆祇籥粧糢鬬")
CJK = re.compile(r"[\u3400-\u9fff]")


def output(*argv) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(list(argv)) == 0
    return buf.getvalue()


def traditional_only(text: str) -> set[str]:
    """The characters of ``text`` that simplified Chinese does not write: outside GB2312 (the
    simplified character set) and not among those both scripts share."""
    def simple(c: str) -> bool:
        try:
            c.encode("gb2312")
            return True
        except UnicodeEncodeError:
            return c in BOTH_SCRIPTS
    return {c for c in CJK.findall(text) if not simple(c)}


def test_the_characters_the_issue_names_are_simplified():
    assert simplified("盤體雖盜黃聖齒連鑄與轉選須類天地盤課體貴雖在獄") == "盘体虽盗黄圣齿连铸与转选须类天地盘课体贵虽在狱"
    assert traditional("斩关") == "斬關" and traditional("天后") == "天后" and traditional("天干") == "天干"


@pytest.mark.parametrize("complete", SCOPES)
def test_no_traditional_character_is_left_in_the_board_lesson_and_page_of_20_charts(session, complete):
    """Board, lesson and page of 20 charts (every 36th of the 720 by day, and by night; every fourth
    of those by default), in both languages by turns, and a dated chart with its calendar
    explained, all under --simplified."""
    charts = session.table(True)[::72] + session.table(False)[36::72]
    assert len(charts) == 20
    charts = charts if complete else charts[::4]
    left: dict[str, str] = {}
    for n, chart in enumerate(charts):
        day, jiang, hour = chart.day, chart.jiang, chart.hour
        lang = ("zh", "en")[n % 2]
        for command in ("cast", "teach", "page"):
            text = output(command, "--day", day, "--jiang", jiang, "--hour", hour, "--simplified", "--lang", lang)
            left.update({c: f"{command} {chart.id} {lang}" for c in traditional_only(text)})
    text = output("cast", "--at", "1998-11-30 12:00", "--tz", "+08:00", "--explain-calendar", "--simplified")
    left.update({c: "cast --explain-calendar" for c in traditional_only(text)})
    assert left == {}


@pytest.mark.parametrize("question, name", [("keti", "斩关"), ("bifa", "贵虽在狱宜临干"), ("keti", "炎上"),
                                            ("pattern", "贵人入狱")])
def test_every_name_is_accepted_in_simplified_form(capsys, question, name):
    code = main(["why", question, name, "--day", "辛巳", "--jiang", "寅", "--hour", "午"])
    out, err = capsys.readouterr()
    assert code in (0, 2) and traditional(name) in out + err and "unknown" not in err


def test_a_name_with_a_shared_character_is_matched_by_its_simplified_form(capsys):
    code = main(["why-not", "bifa", "前后逼迫难进退", "--day", "辛巳", "--jiang", "寅", "--hour", "午"])
    out, err = capsys.readouterr()
    assert code == 0 and "前後逼迫難進退" in out


ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[ ,;:]+[A-Za-z]{2,})+")  # two English words running on: a phrase
ATOM = re.compile(r"(?:not )?[a-z_0-9]+\([^()]*\)")  # a relation as the KB writes it: code, not prose


def phrases(text: str) -> list[str]:
    """The English phrases of a text, its atoms (``not has_ke(…)``) set aside."""
    return ENGLISH.findall(ATOM.sub("", text))


@pytest.mark.parametrize("argv", [
    ["cast", "--at", "1998-11-30 23:30", "--tz", "Asia/Shanghai", "--explain-calendar"],
    ["cast", "--at", "1998-11-30 12:00", "--tz", "Asia/Shanghai", "--explain-calendar",
     "--reading", "daynight=sun,hours=true_solar", "--latitude", "39.9", "--longitude", "116.4"],
    ["cast", "--at", "2024-06-21 12:00", "--tz", "Europe/Oslo", "--explain-calendar",
     "--reading", "daynight=sun", "--latitude", "78.2", "--longitude", "15.6"],
    ["audit", "--vs", "punishment=seed000", "--times", "day", "--limit", "30", "--explain", "庚午/0"],
])
def test_zh_output_speaks_chinese(argv):
    assert phrases(output(*argv)) == []


def test_audit_cases_in_zh(tmp_path):
    import json

    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"seq": 1, "day": "癸卯", "yuejiang": "戌", "hour": "子", "sanchuan": "丑亥酉"}]), "utf-8")
    text = output("audit", "--vs", "shehai=shortcut", "--cases", str(cases))
    assert phrases(re.sub(r"default\S*", "", text)) == [] and "依從" in text  # the schools' names aside and "案例" in text


def test_every_term_has_a_gloss_and_docs_glossary_lists_it(session):
    from pathlib import Path

    glosses = dict(session.base.query("term_gloss", [None, None]))
    program = session.program
    for kind in ("kin", "general", "method", "subname", "keti"):
        assert program.members[kind] <= set(glosses), kind
    page = (Path(__file__).parent.parent / "docs" / "glossary.md").read_text("utf-8")
    for term, gloss in glosses.items():
        assert f"| {term} | {gloss} |" in page


def test_the_english_lesson_glosses_each_term_at_its_first_use(session):
    """On 12 charts of every method: the first use of each glossed term (outside a quoted line) is
    followed by its gloss, and no term is glossed twice."""
    from liuren_logic.explain.glossary import glossary
    from liuren_logic.explain.lesson import render_lesson

    glosses = glossary(session)
    charts = session.table(True)[::61]
    assert {c.method for c in charts} >= {"賊剋", "涉害", "伏吟"}
    for chart in charts:
        text = render_lesson(chart, "en")
        bare = re.sub(r"「[^」]*」|«[^»]*»", "", text)
        for term in ("官鬼", "妻財", chart.method, chart.transmissions[0].general):
            if term and term in bare:
                assert f"{term} ({glosses[term]})" in text and text.count(f"({glosses[term]})") == 1, (chart.id, term)


def test_an_atom_is_read_in_simplified_form_too(capsys):
    code = main(["why-not", "keti(辛巳日寅将午时, 斩关)", "--day", "辛巳", "--jiang", "寅", "--hour", "午"])
    out, err = capsys.readouterr()
    assert code == 0 and err == "" and "斬關" in out
    assert main(["why", "clashes(子, 甲)", "--lang", "en"]) == 2
    assert "unknown branch '甲' for clashes" in capsys.readouterr().err


def test_the_english_page_glosses_the_lesson_too():
    page = output("page", "--day", "辛巳", "--jiang", "寅", "--hour", "午", "--lang", "en")
    assert "官鬼 (officer-ghost: what overcomes the stem)" in page and "貴人 (the Noble) rides the initial" in page


def test_the_english_judgement_and_disputes_read_as_english_and_simplify_whole():
    """The 天時 chart of seed 003 (丁未日丑將戌時): the 斷 names its matter in English, a spirit's omen
    takes no English article, the 三刑 reading is named by its book, and under --simplified
    neither the 斷 nor the 異說 leaves a traditional character."""
    args = ("cast", "--at", "1997-12-31 20:00", "--tz", "Asia/Shanghai", "--matter", "天時", "--lang", "en")
    text, data = output(*args), output(*args, "--json")
    assert "\n        matter 天時 (weather)" in text and "the 吉 spirit 天解 (heavenly release) falls on 戌" in data
    for said in (text, data):
        assert not re.search(r"\ban? [\u3400-\u9fff]+ spirit", said) and "seed 000" not in said
    assert "三刑 (《福山堂》's four chains):" in text and "+三刑辰" in text  # the 異說 row: 三刑丑 becomes 三刑辰
    for lang in ("en", "zh"):
        text = output(*args[:-1], lang, "--simplified")
        assert traditional_only(text) == set() and ("断" in text and "异说" in text if lang == "zh" else "(断)" in text)
