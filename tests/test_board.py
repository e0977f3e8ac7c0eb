"""The board: the practitioner's order, compact (issue 31, item 1); the spirit groups with 吉/凶 where
the seeds say (spirit_omen); nothing drawn twice; each name said once."""
from __future__ import annotations

import random
import re

import pytest

from conftest import seed_text
from scopes import SCOPES
from liuren_logic.explain.board import WIDTH, columns, render_chart, section_lines, sections

ORDER = ["天地盤", "四課", "三傳", "天將", "課體", "課格", "畢法", "神煞"]
DAYS = [s + b for s, b in zip("甲乙丙丁戊己庚辛壬癸" * 6, "子丑寅卯辰巳午未申酉戌亥" * 5)]  # the sixty day pillars
PLACE = re.compile(r"^(?:· )?[子丑寅卯辰巳午未申酉戌亥]\([^)]*\)$")


@pytest.fixture(scope="module")
def seed_chart(session):
    return session.cast_at("1998-11-30 12:00", "Asia/Shanghai")


def section(board: str, title: str) -> str:
    """A section's text: from its title to the next line that starts flush left."""
    lines = board.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith(" ")), len(lines))
    return "\n".join(lines[start:end])


def spirit_names(board: str) -> dict[str, str | None]:
    """Each spirit listed, with its 吉/凶 (None where the board marks none)."""
    words = section(board, "神煞").split()[1:]
    names = [w for w in words if w != "·" and not w.endswith(":") and not PLACE.match(w)]
    return {re.sub("[吉凶]$", "", n): (n[-1] if n[-1] in "吉凶" else None) for n in names}


def test_the_first_seed_chart_fits_a_screen_in_the_practitioners_order(seed_chart):
    board = render_chart(seed_chart)
    lines = board.splitlines()
    assert len(lines) <= 40, len(lines)
    assert max(map(columns, lines)) <= WIDTH
    assert columns("天地盤") == 6 and columns("1998 ab") == 7
    starts = [next(i for i, line in enumerate(lines) if line.startswith(title)) for title in ORDER]
    assert starts == sorted(starts) and starts[0] < 20 - 6  # the square's six lines within the first 20
    head = lines[0]
    assert head.startswith("辛巳日 寅將 午時") and "晝" in head and "貴人 午 逆行" in head and "旬空 申酉" in head
    assert "四柱 戊寅 癸亥 辛巳 甲午" in lines[1] and "節 立冬" in lines[1] and "中氣 小雪" in lines[1]
    square = lines[starts[0] + 1:starts[0] + 7]
    assert square[0].split() == list("巳午未申") and square[-1].split() == list("寅丑子亥")
    assert square[1].split() == ["龍丑", "勾寅", "合卯", "雀辰"] and square[2].split() == ["辰", "空子", "蛇巳", "酉"]


def test_the_transmissions_have_labelled_columns(session, seed_chart):
    lines = section(render_chart(seed_chart), "三傳").splitlines()
    labels = lines[0].split()
    assert labels == ["三傳", "六親", "遁干", "支", "天將", "旺相", "長生"]
    for line, values in zip(lines[1:], (["初傳", "官鬼", "壬", "午", "貴人", "死", "沐浴"],
                                        ["中傳", "妻財", "戊", "寅", "勾陳", "相", "絕"],
                                        ["末傳", "父母", "甲", "戌", "太常", "囚", "衰"])):
        assert line.split() == values
        for label, value in zip(labels[1:], values[1:]):  # each value starts under its label
            assert columns(line[:line.index(f" {value}") + 1]) == columns(lines[0][:lines[0].index(f" {label}") + 1])
    # 「死·死」 read as nothing: each of the two is under its label
    same = render_chart(session.cast_at("2025-06-07 12:20", "Asia/Shanghai"))
    initial = next(line.split() for line in same.splitlines() if line.strip().startswith("初傳"))
    assert initial[-2:] == ["死", "死"] and "死·死" not in same


def test_each_method_is_named_once(session):
    board = render_chart(session.cast_at("2026-04-10 01:30", "Asia/Shanghai"))
    assert "課體: 八專 · " in board and "八專 八專" not in board
    for day, offset, method in (("戊辰", 1, "別責"), ("丁卯", 1, "涉害"), ("甲子", 6, "返吟")):
        chart = session.cast_offset(day, offset)
        line = section(render_chart(chart), "課體")
        assert chart.method == method and line.startswith(f"課體: {method}")
        named = re.split(r"[ ·]+", line.removeprefix("課體: "))
        assert len(named) == len(set(named)), line


def test_the_short_spirit_list_and_every_spirit(seed_chart):
    short, everything = render_chart(seed_chart), render_chart(seed_chart, all_spirits=True)
    places = re.findall(r"[子丑寅卯辰巳午未申酉戌亥]\(([^)]*)\)", section(short, "神煞"))
    assert places and all({"干上", "支上", "初傳", "中傳", "末傳"} & set(p.split("·")) for p in places)
    assert "酉(支陰)" not in short and "酉(支陰)" in section(everything, "神煞")
    marks = {m["mark"] for m in seed_chart.marks}
    assert set(spirit_names(everything)) == {s for _, _, s in seed_chart.spirits} - marks
    assert set(spirit_names(short)) < set(spirit_names(everything))
    assert "歲墓" in spirit_names(everything) and "歲墓" not in spirit_names(short)  # 歲墓 is on 酉, 支陰 only


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
    shown = spirit_names(render_chart(seed_chart, all_spirits=True))
    omens = dict(session.base.query("spirit_omen", [None, None]))
    assert shown["月德"] == "吉" and shown["白虎"] == "凶" and shown["劫煞"] == "凶" and shown["太歲"] is None
    for spirit, mark in shown.items():
        assert mark == omens.get(spirit), spirit  # every mark from the relation, and every omen marked
    en = render_chart(seed_chart, "en")
    assert re.search(r"寅\(干陰·中傳\)( \S+)* 月德吉", en)


def test_nothing_is_drawn_twice(session, seed_chart):
    board = render_chart(seed_chart)
    marks = {m for m, _ in seed_chart.rows("day_mark")}
    assert marks >= {"日祿", "日德"} and "日祿 酉臨丑" in board  # the marks' own line ...
    assert not marks & set(spirit_names(render_chart(seed_chart, all_spirits=True)))  # ... only
    generals, patterns = section(board, "天將"), section(board, "課格")
    words = generals.split()[1:]  # 貴人 午臨戌: 貴人入獄 · …: a general, its seat, its states
    drawn = {w for w, after in zip(words, words[1:] + [""]) if w != "·" and ":" not in w + after}
    assert "貴人入獄" in drawn and not drawn & set(patterns.split())
    assert "螣蛇交戰" in patterns  # a state of a general outside the lessons and 三傳 keeps its place
    everything = render_chart(seed_chart, all_generals=True)
    assert "螣蛇交戰" in section(everything, "天將") and "螣蛇交戰" not in section(everything, "課格")
    # one table of 日德: the spirit, the mark and the patterns read stem_virtue
    graph = session.why(seed_chart, "spirit", "日德")
    assert {"spirit.day.de", "virtue.yin"} <= {a.get("rule") for _, a in graph.nodes(data=True)}


def test_every_clickable_cell_asks_a_question_the_session_answers(session, seed_chart):
    asked = {c.ask for s in sections(seed_chart) for row in s.rows for c in row if c and c.ask}
    assert {("initial", None), ("method", None), ("keti", "天網"), ("bifa", "貴雖在獄宜臨干"),
            ("spirit", "太歲"), ("general", "午"), ("lesson1", None)} <= asked
    for question, value in sorted(asked, key=str):
        assert session.why(seed_chart, question, value).number_of_nodes() > 1, (question, value)


def test_the_page_the_app_and_the_notebook_show_the_same_sections_in_order(seed_chart):
    import html

    from liuren_logic.explain.app import board
    from liuren_logic.explain.page import board_html

    built = sections(seed_chart)
    assert [s.key for s in built] == ["header", "plates", "lessons", "transmissions", "generals", "keti",
                                      "patterns", "disputes", "bifa", "spirits"]
    for shown in (board_html(seed_chart), board(seed_chart)["html"], seed_chart._repr_html_()):
        at = [shown.index(f'class="lr-sec lr-{s.key}"') for s in built]
        assert at == sorted(at)
        text = html.unescape(re.sub(r"<[^>]+>", "", shown))
        for s in built:
            assert s.title in text
            for cell in (c for row in s.rows for c in row if c):
                assert cell.note + cell.text in text, cell
    app = board(seed_chart)["html"]
    assert 'data-q="spirit" data-value="太歲"' in app and 'data-q="keti" data-value="天網"' in app
    assert 'data-q="bifa" data-value="貴雖在獄宜臨干"' in app and 'data-key="lesson1"' in app


def test_the_spirits_over_the_querents_natal_branch_and_year_of_life(session):
    """年命 are places (kb/chart/places.dl): the short list takes the spirits over them."""
    plain = render_chart(session.cast_at("2026-04-10 01:30", "Asia/Shanghai"))
    chart = session.cast_at("2026-04-10 01:30", "Asia/Shanghai", born=1970, sex="m")
    assert chart.life["points"]["本命"]["upper"] == "未" and chart.life["points"]["行年"]["upper"] == "未"
    spirits = section(render_chart(chart), "神煞")
    assert "未(本命·行年)" in spirits and "未(" not in section(plain, "神煞")
    graph = session.why(chart, "spirit_present", next(s for w, b, s in chart.spirits if w == "本命"))
    assert "place.natal" in {a.get("rule") for _, a in graph.nodes(data=True)}


def test_the_table_has_a_header_a_day_filter_and_the_general_over_the_hour(capsys):
    from liuren_logic.faces.cli import main

    assert main(["table", "--day", "辛巳"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["日", "轉數", "將加時", "課法", "課名", "三傳"] and len(lines) == 13
    assert lines[9].split() == ["辛巳", "8", "寅加午", "賊剋", "元首", "午寅戌"]
    assert lines[8].split() == ["辛巳", "7", "丑加午", "涉害", "—", "未寅酉"]
    header = lines[0]
    assert columns(lines[9][:lines[9].index("寅加午")]) == columns(header[:header.index("將加時")])  # under its label
    assert main(["table", "--day", "甲丑", "--lang", "en"]) == 2
    assert capsys.readouterr().err == ("liuren: impossible pillar 甲丑 for the day: 甲 is 陽 but 丑 is 陰, and a pillar "
                                       "pairs a yang stem with a yang branch, a yin with a yin\n")  # as cast says it


def test_the_readme_shows_the_first_seed_charts_board_as_it_is(seed_chart):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    assert "$ liuren cast --at '1998-11-30 12:00' --tz Asia/Shanghai\n" + render_chart(seed_chart) + "\n```" in readme


def test_the_columns_a_chart_has_nothing_for_are_left_out(session):
    undated = section(render_chart(session.cast("辛巳", "寅", "午")), "三傳").splitlines()
    assert undated[0].split() == ["三傳", "六親", "遁干", "支", "天將", "長生"]  # no month: no 旺相
    void = section(render_chart(session.cast_at("2026-04-10 01:30", "Asia/Shanghai")), "三傳").splitlines()
    assert void[0].split()[-1] == "旬空" and void[1].split()[-1] == "空" and void[2].split()[-1] == "長生"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_line_is_wider_than_a_screen(session, lang):
    rng = random.Random(31)
    charts = [session.cast_at("1998-11-30 12:00", "Asia/Shanghai", born=1970, sex="f")]
    charts += [session.cast_offset(day, rng.randrange(12)) for day in rng.sample(DAYS, 8)]
    for chart in charts:
        for options in ({}, {"explain_calendar": True, "all_generals": True, "all_spirits": True}):
            lines = render_chart(chart, lang, **options).splitlines()
            assert max(map(columns, lines)) <= WIDTH, (chart.id, options, max(lines, key=columns))


def rows_as_drawn(section):
    """Each row of a wrapped section (its cells' text) with the row read back from its lines: the
    text with each line break made a space again, and the breaks, as (where that space is, the
    columns the next line is indented)."""
    lines = section_lines(section)
    for number, row in enumerate(section.rows):
        cells = [cell.plain for cell in row if cell]
        first = lines.pop(0)
        text = first[len(section.title) + 2:] if number == 0 and section.title else first.lstrip()
        breaks = []
        while len(text) < len(section.sep.join(cells)) and lines:
            line = lines.pop(0)
            breaks.append((len(text), len(line) - len(line.lstrip())))
            text += " " + line.lstrip()
        yield cells, text, breaks
    assert not lines, section.key


@pytest.mark.parametrize("complete", SCOPES)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_wrapped_line_keeps_its_dots_and_splits_no_item_that_fits_a_line(table, lang, complete):
    """Over the 720 day charts' boards (every 18th by default), every spirit and general: a row read
    back across its breaks is the row (no ' · ' lost at a break, so no two items run together), and
    a break falls inside an item only when the item is longer than a line."""
    wrapped = 0
    for chart in table if complete else table[::18]:
        for section in sections(chart, lang, all_spirits=True, all_generals=True):
            if section.grid:
                continue
            for cells, text, breaks in rows_as_drawn(section):
                assert text == section.sep.join(cells), (chart.id, section.key, text)
                start = 0
                for cell in cells:
                    own = start + 2 if cell.startswith("· ") else start  # a group's dot parts it from the last
                    split = [indent for at, indent in breaks if own <= at < start + len(cell)]
                    assert all(columns(" " * indent + cell) > WIDTH for indent in split), (chart.id, section.key, cell)
                    start += len(cell) + len(section.sep)
                wrapped += bool(breaks)
    assert wrapped > (200 if complete else 50)  # rows that wrap: what is checked


def test_the_english_board_glosses_each_term_once_at_its_first_use(session):
    """On the English boards of 20 charts (a dated one, 19 by day and offset): every 六親 and general of
    the 三傳 and the lessons, the method and its names, each 課體 and pattern the glossary knows has its
    gloss's head right after its first use on its own (not inside a longer name: 貴人入獄), and only
    there; the columns stay aligned under their labels, no line is over WIDTH, the zh board has no gloss."""
    from liuren_logic.explain.glossary import glossary, known_terms, short

    glosses = {term: short(gloss) for term, gloss in glossary(session).items()}
    known = known_terms(session)
    rng = random.Random(20)
    charts = [session.cast_at("1998-11-30 12:00", "Asia/Shanghai")]
    charts += [session.cast_offset(day, rng.randrange(12), daytime=rng.random() < 0.5) for day in rng.sample(DAYS, 19)]
    checked = set()
    for chart in charts:
        board = render_chart(chart, "en")
        lines = board.splitlines()
        assert max(map(columns, lines)) <= WIDTH, (chart.id, max(lines, key=columns))
        terms = {t.kin for t in chart.transmissions} | {t.general for t in chart.transmissions}
        terms |= {l.general for l in chart.lessons} | {chart.method, *chart.subnames, *chart.keti}
        terms |= {p for _, p in chart.patterns}
        for term in sorted(t for t in terms if t in glosses):
            alone = re.compile(rf"(?<![\u3400-\u9fff]){re.escape(term)}(?![\u3400-\u9fff])")
            masked = board  # a longer name holding the term (a reading: who enters 涉害 (every candidate)) is no use of it
            for name in (k for k in known if term in k and k != term and k in board):
                masked = masked.replace(name, "□" * len(name))
            first = alone.search(masked)
            assert first, (chart.id, term)
            said = f"{term} ({glosses[term]})"
            assert masked.startswith(said, first.start()) and board.count(said) == 1, (chart.id, term, board)
            checked.add(term)
        labels = next(line for line in lines if " kin " in line)
        for t in chart.transmissions:  # the branch under its label, past the glosses
            line = next(line for line in lines if line.startswith(f"  {('initial', 'middle', 'final')[t.position - 1]} "))
            assert columns(line[:line.index(f" {t.branch} ") + 1]) == columns(labels[:labels.index(" branch ") + 1])
        zh = render_chart(chart, "zh")
        assert not any(f"{term} ({glosses[term]})" in zh for term in terms if term in glosses)  # zh: no gloss
    assert len(checked) > 60 and {"官鬼", "貴人", "賊剋", "元首"} <= checked
