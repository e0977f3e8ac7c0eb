"""The 斷: the matter asked as a chart input, and what the KB's judgement rules say about it."""
from __future__ import annotations

import pytest

from scopes import SCOPES
from liuren_logic.datalog.labels import showing_ids
from liuren_logic.faces.cli import main
from liuren_logic.domain.errors import InputError
from liuren_logic.explain.judgement import KIND_ORDER


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("given", ["天時", "天时", "weather", "Weather"])
def test_a_matter_is_read_in_chinese_simplified_or_english(session, given):
    chart = session.cast("丁未", jiang="丑", hour="戌", matter=given)
    assert chart.rows("matter") == [("天時",)]
    assert chart.id.endswith(" 占天時")


def test_a_matter_reaches_dated_and_offset_charts(session):
    assert session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅").rows("matter") == [("家宅",)]
    assert session.cast_offset("辛巳", 8, matter="lawsuit").rows("matter") == [("詞訟",)]


def test_without_a_matter_the_chart_is_the_one_it_was(session):
    chart = session.cast("丁未", jiang="丑", hour="戌")
    assert chart.id == "丁未日丑將戌時" and chart.rows("matter") == []


def test_an_unknown_matter_is_one_line_naming_the_option(session, capsys):
    with pytest.raises(InputError, match="unknown matter 'rain' for --matter"):
        session.cast("丁未", jiang="丑", hour="戌", matter="rain")
    code, out, err = run(capsys, "cast", "--day", "丁未", "--jiang", "丑", "--hour", "戌", "--matter", "rain",
                         "--lang", "en")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--matter" in err and "天時 (weather)" in err


# --- the KB's judgement rules -------------------------------------------------------------------

def test_without_a_matter_no_rule_of_the_judgement_fires(session):
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai")
    assert chart.rows("finding") == chart.rows("verdict") == chart.rows("timing") == []


GENERIC = {"judge.initial", "judge.strength", "judge.void", "judge.keti", "judge.transmission_general",
           "judge.lesson_general", "judge.kin_course", "judge.overcomes_stem", "judge.upper_stage"}


def test_every_finding_is_of_a_kind_the_books_cite_and_every_row_has_its_rule(session):
    from liuren_logic.explain.judgement import KIND_ORDER, judgement_data

    for matter in ("天時", "疾病", "仕宦", "婚姻"):
        data = judgement_data(session.cast("丁未", jiang="丑", hour="戌", matter=matter), "明日如何")
        assert data["matter"] == matter and data["question"] == "明日如何"
        kinds = [f["kind"] for f in data["findings"]]
        assert set(kinds) <= set(KIND_ORDER)
        own = [i for i, f in enumerate(data["findings"]) if f["rule"].startswith("judge.leishen_")]
        every = [i for i, f in enumerate(data["findings"]) if f["rule"] in GENERIC]
        assert own and every and max(own) < min(every)  # the matter's own signs first
        assert [kinds[i] for i in every] == sorted((kinds[i] for i in every), key=KIND_ORDER.index)
        for row in data["findings"] + data["verdicts"] + data["timing"]:
            assert row["rule"].startswith(("judge.", "timing.", "weather.")) and row["source"] and row["text"]["zh"] and row["text"]["en"]


def test_the_leishen_of_the_matter_decide_the_yongshen(session):
    """天后 stands for lasting snow (指南), so for 天時 the 戌 it rides in the transmissions is a 用神;
    for 婚姻 it is not, and 戌 is only the 用神's neighbour."""
    weather = session.cast("丁未", jiang="丑", hour="戌", matter="天時")
    marriage = session.cast("丁未", jiang="丑", hour="戌", matter="婚姻")
    assert set(weather.rows("yongshen")) == {("亥",), ("戌",)}
    assert set(marriage.rows("yongshen")) == {("亥",)}


def test_a_void_yongshen_leaves_the_decade(session):
    """己巳日 (甲子旬, 戌亥 void), 亥 (天時's 雨師) a transmission: 出旬 at 甲戌 (戌), by 「要遂當在別旬中」.
    填實 (the void branch's own day) is not derived: only a case's note (「填實旬空矣」) says it."""
    chart = session.cast("己巳", jiang="戌", hour="丑", matter="天時")  # 《指南》 天時 case 1: 寅亥申
    assert chart.sanchuan == "寅亥申"
    assert ("戌", "出旬") in chart.rows("timing")
    assert not [row for row in chart.rows("timing") if row[1] == "填實"]


def test_the_cut_of_metal_is_yin(session):
    """「假令用神見從魁，便於寅丑日為期」: 從魁 (酉, 金) is entombed in 丑 and cut off (絕) in 寅, the
    twelfth stage after 長生 巳 (長生 沐浴 冠帶 臨官 帝旺 衰 病 死 墓 絕), not 辰 (養, the stage before 長生)."""
    chart = session.cast("乙未", jiang="午", hour="巳", matter="疾病")  # 《指南》 case 22: 酉戌亥
    assert chart.sanchuan == "酉戌亥" and ("酉",) in chart.rows("yongshen")
    cut = {b for b, how in chart.rows("timing") if how == "用神之絕"}
    assert "寅" in cut and "辰" not in cut
    assert ("丑", "用神之墓") in chart.rows("timing")


# --- seed 003's two 占例: every finding its 斷 cites --------------------------------------------

# (the 斷's words, the relation, the row the rules derive)
HOUSE = [  # 辛巳日 寅將 午時, 家宅: 「貴乘天乙乃神祗，貴人履獄，不正之神也。課得天網，正是被纏之象。
    #          支上天目墓神，陰神見從魁玄武，主有女尸做祟」, and the later note 鬼呼
    ("貴乘天乙乃神祗", "finding", ("天將", "貴乘天乙", "貴人", "午")),
    ("貴人履獄", "finding", ("天將", "貴人入獄", "貴人", "午")),
    ("不正之神", "verdict", ("不正之神", "貴人")),
    ("課得天網", "finding", ("課體", "天網", "天網", "天網")),
    ("被纏之象", "verdict", ("被纏", "天網")),
    ("支上天目", "finding", ("神煞", "鬼祟", "天目", "丑")),
    ("支上墓神", "finding", ("墓", "墓神", "丑", "辛")),
    ("陰神見從魁玄武", "finding", ("類神", "女巫", "酉", "玄武")),
    ("女尸做祟", "verdict", ("女尸做祟", "酉")),
    ("宅中多有鬼祟", "verdict", ("宅中鬼祟", "丑")),
    ("鬼呼", "finding", ("墓", "鬼呼", "鬼呼", "鬼呼")),
]
WEATHER = [  # 丁未日 丑將 戌時, 天時: 「太陰乘水將發用，又為月內雨師，主雪。但中末傳皆得土，主雪而不久，
    #          應於丑時。蓋丑時上辰被戌沖開水即出矣」
    ("太陰乘水將發用", "finding", ("天將", "太陰乘水將發用", "太陰", "亥")),
    ("發用", "finding", ("用神", "發用", "亥", "太陰")),
    ("又為月內雨師", "finding", ("神煞", "月內雨師", "雨煞", "亥")),
    ("主雪", "verdict", ("雪", "亥")),
    ("中末傳皆得土", "finding", ("三傳", "中末皆土", "戌", "戌")),
    ("不久", "verdict", ("不久", "亥")),
    ("主雪而不久", "verdict", ("雪而不久", "亥")),
    ("應於丑時", "timing", ("丑", "沖開墓")),
]
# What the default school cannot derive, and why: its month spirits follow the solar month (子 from
# 大雪), where 雨煞 (正月起子順行) falls on 戌; the 斷's 「月內雨師」 is 亥, 雨煞 of the lunar 臘月
# (1997-12-31 is 十二月初三), which the reading spirit_month=lunar gives (kb/variants/spirit_month).
NEEDS_LUNAR_MONTH = {"又為月內雨師", "主雪", "主雪而不久"}


def _derived(chart, cited):
    return {words for words, pred, row in cited if row in chart.rows(pred)}


def test_the_house_case_derives_every_finding_of_its_judgement(session):
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅")
    assert _derived(chart, HOUSE) == {words for words, _, _ in HOUSE}


def test_the_weather_case_derives_its_findings_and_names_the_reading_the_rest_need(session):
    from liuren_logic import Session

    chart = session.cast_at("1997-12-31 20:00", "Asia/Shanghai", matter="天時")
    assert {words for words, _, _ in WEATHER} - _derived(chart, WEATHER) == NEEDS_LUNAR_MONTH
    assert ("雨煞", "戌") in [(s, b) for _, b, s in chart.spirits]  # the solar month's 雨煞, not on the initial
    lunar = Session(readings={"spirit_month": "lunar"}).cast_at("1997-12-31 20:00", "Asia/Shanghai", matter="天時")
    assert _derived(lunar, WEATHER) == {words for words, _, _ in WEATHER}


def test_the_weather_case_times_the_snow_by_the_water_tomb_clashed_open(session):
    """丑時: over earth's 丑 stands 辰, the tomb of water (亥), and 戌 in the transmissions clashes it."""
    chart = session.cast_at("1997-12-31 20:00", "Asia/Shanghai", matter="天時")
    graph = session.why(chart, "timing", "丑")
    texts = {graph.nodes[n].get("text") for n in graph.nodes}
    assert {f'tianpan("{chart.id}", 丑, 辰)', "element_tomb(水, 辰)", "clashes(戌, 辰)"} <= texts
    assert f'timing.tomb_opened [B=亥, C="{chart.id}", E=水, P=丑, T=辰, X=戌]' in texts


# --- shown: the board, --json, why and why-not ----------------------------------------------------

HOUSE_ARGS = ("--at", "1998-11-30 12:00", "--tz", "Asia/Shanghai", "--matter", "家宅")
WEATHER_ARGS = ("--at", "1997-12-31 20:00", "--tz", "Asia/Shanghai", "--matter", "天時")


def test_the_board_opens_the_judgement_with_the_answer(capsys):
    """The 斷 section's first line is the answer (the answer rule's sentence and its one 應期, with the
    next dates for a chart cast from a moment), then the matter, the question and its 用神; the seed's
    findings stay in --json."""
    import json

    code, out, _ = run(capsys, "cast", *HOUSE_ARGS, "--question", "弟犯邪，是否風水")
    lines = out[out.index("\n斷: ") + 1:].splitlines()
    assert code == 0 and lines[0].startswith("斷: 凶：所問不成。  應期 未日（用神之墓）：1998-12-02")
    assert lines[1].strip() == "占 家宅 · 問 弟犯邪，是否風水 · 所問 家宅（默認） · 用神 午（事神）"
    assert "女尸做祟" not in out[out.index("\n斷: "):]
    code, out, _ = run(capsys, "cast", *HOUSE_ARGS, "--json")
    judged = json.loads(out)["judgement"]
    assert {"不正之神", "女尸做祟", "被纏"} <= {v["verdict"] for v in judged["verdicts"]}
    assert judged["answer"]["polarity"] == "凶" and judged["answer"]["success"] is False
    code, out, _ = run(capsys, "cast", *WEATHER_ARGS, "--lang", "en")
    section = out[out.index("\nJudgement (斷): ") + 1:]
    assert section.splitlines()[0].split(": ", 1)[1].startswith(("good", "ill", "good and ill"))


@pytest.mark.parametrize("args", [HOUSE_ARGS, WEATHER_ARGS])
@pytest.mark.parametrize("lang, book", [("zh", "《六壬"), ("en", "《六壬")])
def test_the_board_cites_each_reason_by_its_book(capsys, args, lang, book):
    """Each reason row of the 斷 ends 〔book: line〕, the book as docs/sources.md names it, never the
    source's key (指南卷一) nor a rule's id; under ``--ids``, 〔rule · book: line〕."""
    import re

    from liuren_logic.domain.books import books as named

    for ids in ((), ("--ids",)):
        code, out, _ = run(capsys, "cast", *args, "--lang", lang, *ids)
        section = " ".join(line.strip() for line in out[out.index("\n斷: " if lang == "zh" else "\nJudgement"):].splitlines())
        cited = [c.partition(" · ") if ids else ("", "", c) for c in re.findall(r"〔([^〕]*)〕", section)]
        assert code == 0 and cited and all(c.startswith(book) for _, _, c in cited), cited
        assert all(bool(sep) == bool(ids) for _, sep, _ in cited), cited
        assert not any(f"〔{key}" in section for key in named()) and "seed" not in section
        assert ("weigh." in section) == bool(ids)


MATTERS = ("天時", "家宅", "婚姻", "產育", "疾病", "仕宦", "求財", "出行", "行人", "失物", "詞訟", "謀望")
ROLE_TABLES = ("leishen_branch", "leishen_general", "leishen_kin", "leishen_spirit", "leishen_mark", "leishen_jiang",
               "woman_sign")


def test_english_reads_a_lines_own_word_in_english_and_glosses_each_term_once(session):
    """On both seed charts, for every matter: a 類神 table's role word (雨師, 天后久) reads in English with
    the word after it in 「」, never bare after 'stands for' or 'means'; a term is glossed once in the
    judgement; and every role word of the KB's tables has its English."""
    import re

    from liuren_logic.explain.judgement import judgement_data, judgement_glossary, role_words

    words = {str(row[-1]) for pred in ROLE_TABLES for row in session.base.query(pred, [None] * session.program.preds[pred].arity)}
    roles = role_words(session)
    assert len(words) > 60 and words <= set(roles), words - set(roles)
    glosses = judgement_glossary(session)
    for at in ("1998-11-30 12:00", "1997-12-31 20:00"):
        for matter in MATTERS:
            data = judgement_data(session.cast_many([session.dated_input(at, matter=matter)])[0])
            english = "\n".join(x["text"]["en"] for x in data["verdicts"] + data["findings"] + data["timing"])
            assert not re.search(r"(stands for|means) [\u3400-\u9fff]+[;,:\n]|\([\u3400-\u9fff]+\) rides", english), (matter, english)
            for word in re.findall(r"(?:stands for|means) [^「;]*「([^」]*)」", english):
                assert f"{roles[word]}「{word}」" in english
            glossed = [term for term, gloss in glosses.items() if f"{term} ({gloss})" in english]
            assert glossed, matter
            assert all(english.count(f"{term} ({glosses[term]})") == 1 for term in glossed), matter


def test_without_a_matter_the_board_has_no_judgement_and_question_needs_a_matter(capsys):
    code, out, _ = run(capsys, "cast", "--at", "1998-11-30 12:00")
    assert code == 0 and "斷" not in out
    code, out, err = run(capsys, "cast", "--at", "1998-11-30 12:00", "--question", "如何", "--lang", "en")
    assert code == 2 and "--question needs --matter" in err


def test_json_carries_each_finding_with_its_kind_about_text_rule_and_source(capsys):
    import json

    code, out, _ = run(capsys, "cast", *HOUSE_ARGS, "--json")
    judged = json.loads(out)["judgement"]
    assert judged["matter"] == "家宅" and judged["question"] is None
    corpse = next(v for v in judged["verdicts"] if v["verdict"] == "女尸做祟")
    assert corpse["about"] == ["酉"] and corpse["rule"] == "judge.woman_corpse" and corpse["source"].startswith("003: ")
    noble = next(f for f in judged["findings"] if f["words"] == "貴乘天乙")
    assert noble["kind"] == "天將" and noble["about"] == ["貴人", "午"] and "神祇" in noble["text"]["zh"]
    assert {"branch": "亥", "method": "用神之絕"} == {k: judged["timing"][0][k] for k in ("branch", "method")}


@pytest.mark.parametrize("args, asked, rule", [
    (HOUSE_ARGS, "不正之神", "judge.unjust_god"),
    (HOUSE_ARGS, "女尸", "judge.woman_corpse"),
    (WEATHER_ARGS, "不久", "judge.not_long"),
    (WEATHER_ARGS, "丑", "timing.tomb_opened"),
    (WEATHER_ARGS + ("--reading", "spirit_month=lunar"), "雪而不久", "judge.snow_not_long"),
])
def test_why_answers_a_finding_down_to_its_rule_and_source(capsys, args, asked, rule):
    code, out, _ = run(capsys, "why", "斷", asked, *args, "--depth", "1", "--ids")  # the rule's id where asked for
    assert code == 0 and f"⇐ {rule}:" in out.splitlines()[1] and "«" in out


def test_why_not_snow_names_the_missing_rain_master(capsys):
    code, out, _ = run(capsys, "why-not", "斷", "雪", *WEATHER_ARGS)
    assert code == 0 and "最接近的規則：太陰乘水神亥發用，又為月內雨師：主雪" in out and "雨煞在亥" in out  # judge.snow
    code, out, err = run(capsys, "why", "斷", "雪", *WEATHER_ARGS)
    assert code == 2 and err.count("\n") == 1 and "liuren why-not 斷 雪" in err and "verdict(" not in err
    code, out, err = run(capsys, "why", "斷", "雪", *WEATHER_ARGS, "--lang", "en")
    assert code == 2 and err == "liuren: this chart's 斷 has no 雪; to ask why not: liuren why-not 斷 雪\n"


def test_why_not_clear_asks_about_the_verdict_not_the_spirit_it_is_part_of(capsys):
    """晴 is a verdict the KB can reach (weather.dajiao_yang): why-not answers why not clear, rather
    than taking the finding of the spirit 晴朗, whose name contains it."""
    code, out, _ = run(capsys, "why-not", "斷", "晴", *WEATHER_ARGS)
    assert code == 0 and "辰（大角）臨陽位丑：主晴；所缺：丑屬陽" in out and "finding(" not in out
    code, out, _ = run(capsys, "why-not", "斷", "晴", *WEATHER_ARGS, "--full", "--ids")  # the rule's id where asked for
    assert code == 0 and "weather.dajiao_yang" in out


@pytest.mark.parametrize("lang, said", [
    ("zh", ["雨：此課有之（斷語）。", "辰（大角）臨陰位丑：主雨〔《六壬指南》卷三：",
            "其推導見：liuren why 斷 雨"]),
    ("en", ["雨: this chart has it (verdict).", "辰 (大角) stands over 丑, a yin palace: rain ["
            "《六壬指南》 vol. 3: ", "Its derivation: liuren why 斷 雨"])])
def test_why_not_of_what_holds_says_so_in_words_with_its_rule_and_line(capsys, lang, said):
    code, out, err = run(capsys, "why-not", "斷", "雨", *WEATHER_ARGS, "--lang", lang)
    lines = out.splitlines()
    assert code == 0 and err == "" and len(lines) == 3 and all(l.startswith(s) for l, s in zip(lines, said)), out
    code, out, _ = run(capsys, "why-not", "斷", "丑", *WEATHER_ARGS, "--lang", lang, "--ids")
    assert code == 0 and "timing.tomb_opened" in out and "timing(" not in out
    code, out, _ = run(capsys, "why-not", "斷", "女尸", *HOUSE_ARGS, "--lang", lang)
    assert code == 0 and out.startswith("女尸做祟") and "liuren why 斷 女尸做祟" in out


@pytest.mark.parametrize("lang, asked, said", [
    ("zh", "晴朗也", "liuren: 此課之斷無「晴朗也」，規則亦無此斷語；近者：晴朗、晴\n"),
    ("en", "晴朗也", "liuren: this chart's 斷 has no 「晴朗也」, and no rule reaches that verdict; nearest: 晴朗, 晴\n"),
    ("en", "xyz", "liuren: this chart's 斷 has no 「xyz」, and no rule reaches that verdict; "
                  "the chart's verdicts: 不久, 滂沱, 雨\n")])
def test_why_of_an_unknown_name_is_one_line_naming_the_nearest(capsys, lang, asked, said):
    for command in ("why", "why-not"):
        code, out, err = run(capsys, command, "斷", asked, *WEATHER_ARGS, "--lang", lang)
        assert code == 2 and out == "" and err == said


@pytest.mark.parametrize("lang, said", [("zh", "liuren: 此課未占事，無斷：起課時加 --matter（如 --matter 天時）\n"),
                                        ("en", "liuren: this chart has no 斷 (judgement): cast it with --matter "
                                               "(e.g. --matter 天時)\n")])
def test_asking_the_judgement_of_a_chart_without_a_matter_is_one_line(capsys, lang, said):
    for command in ("why", "why-not"):
        code, out, err = run(capsys, command, "斷", "雨", *WEATHER_ARGS[:4], "--lang", lang)
        assert code == 2 and err == said


# --- the 55 judged cases of 《指南》 卷三 -------------------------------------------------------------

# Features found, by kind, on the 47 cases whose matter is one of the twelve (docs/judgement.md has
# the table and every miss): the floor this KB reaches; a change that loses one fails here. 神煞 lost one
# (issue 37) with the 仕宦 月將 and 日馬 tables that cited a case's own note; 應期 gained one (金 絕 寅).
FLOOR = {"神煞": 39, "天將": 38, "類神": 18, "課體": 20, "三傳": 16, "旺衰": 12, "空亡": 12, "生剋": 10, "應期": 5,
         "六親": 6, "用神": 7, "刑沖破害合": 4, "墓": 3}


def test_recall_of_the_zhinan_judgements_holds_its_floor(session):
    from judgement_recall import recall

    result = recall(session)
    hits, totals = result["hits"], result["totals"]
    assert sum(totals.values()) == 247 and dict(result["apart"]) == {"年命": 21, "other": 5, "其他": 39}
    assert set(totals) == set(FLOOR) and all(hits[kind] >= floor for kind, floor in FLOOR.items()), dict(hits)
    assert sum(hits.values()) >= sum(FLOOR.values()) == 190  # 77% of 247
    # 年命, apart: the 6 cases whose text states the querent's own 本命 or 行年 are cast with it, and
    # a 年命 finding names what each of their 6 features cites; the other 15 have no 年命 to read
    fed = [found for seq, _, _, given, found in result["life"] if given]
    assert len(result["life"]) == 21 and len(fed) == 6 and all(fed)
    assert not any(found for seq, _, _, given, found in result["life"] if not given)
    sizes = sorted(result["sizes"])  # --json's findings a chart, all of them (the board shows 5–15)
    assert len(sizes) == 47 and sizes[0] >= 5 and sizes[len(sizes) // 2] <= 28 and sizes[-1] <= 34


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_board_lists_at_most_8_reasons_on_lines_a_screen_wide(session, lang):
    """On each judged case: the 斷 opens with the answer (asking why 斷 of it, which has a derivation),
    then at most REASONS reasons, the weighing's own in its order, each signed and citing its line;
    the findings are counted, not listed; no line over 100 columns."""
    from judgement_recall import judged_cases

    from liuren_logic.explain.board import WIDTH, columns, section_lines
    from liuren_logic.explain.judgement import ANSWER_WORDS, REASONS, SIGNS, judgement_data, judgement_section

    for case, _, chart in judged_cases(session):
        if chart is None:
            continue
        section, data = judgement_section(chart, lang, {}), judgement_data(chart)
        answer = data["answer"]
        assert section.rows[0][0].ask == ("斷", answer["polarity"])
        assert session.why(chart, "斷", answer["polarity"]).number_of_nodes() > 1
        rows = [row for row in section.rows if row[0].text.split(" ")[-1] in SIGNS.values()]
        assert len(rows) == min(REASONS, len(answer["reasons"])), case["seq"]
        assert all(row[1].text.startswith(r["text"][lang]) for row, r in zip(rows, answer["reasons"]))
        lines = section_lines(section)
        assert max(map(columns, lines)) <= WIDTH, max(lines, key=columns)
        assert ANSWER_WORDS[lang]["more"].format(n=len(data["findings"])) in "\n".join(lines)


@pytest.mark.parametrize("complete", SCOPES)
@pytest.mark.parametrize("matter", MATTERS)
def test_no_line_of_the_judgement_is_wider_than_a_screen(session, matter, complete):
    """Each matter's board on four charts, in zh and en (by default on two of them, the matters
    taking the two pairs by turns)."""
    from liuren_logic.explain.board import WIDTH, columns, render_chart

    charts = (("甲子", 0), ("丁未", 7), ("辛巳", 8), ("壬申", 11))
    for day, offset in charts if complete else charts[MATTERS.index(matter) % 2::2]:
        chart = session.cast_offset(day, offset, matter=matter)
        for lang in ("zh", "en"):
            board = render_chart(chart, lang, question="此事如何")
            assert ("\n    占 " if lang == "zh" else "\n        matter ") + matter in board
            assert max(map(columns, board.splitlines())) <= WIDTH, (chart.id, lang)


def test_a_features_tokens_are_its_branches_generals_and_names():
    from judgement_recall import matches, tokens

    assert tokens("辰加未") == {"辰", "未"}
    assert tokens("貴人(亥)") == {"貴人", "亥"}
    assert tokens("戌加亥(魁度天門)") == {"戌", "亥", "魁度天門"}
    assert tokens("勾陳/太陰") == {"勾陳", "太陰"}
    assert tokens("亥(驛馬)加午") == {"亥", "驛馬", "日馬", "午"}  # the spirit, or the day's mark
    assert tokens("旬丁/羊刃") == {"旬丁", "羊刃"} and tokens("子孫") == {"子孫"}  # not the stem 丁, the branch 子
    assert matches({"魁度天門"}, {"魁度天門格"}) and not matches({"亥"}, {"亥子"})


def test_the_lesson_continues_to_the_judgement(capsys):
    code, out, _ = run(capsys, "teach", *HOUSE_ARGS)
    step = out[out.index("、斷\n"):]
    step = step.replace("\n   ", "")  # the lesson's lines wrapped to the terminal, read whole
    assert code == 0 and "乃得其斷：凶：所問不成" in step
    assert "一、用神：三傳不見類神：第一傳午剋日，為事神，作用神〔《" in step and "四、斷：凶：所問不成〔《" in step
    assert "question." not in step and "answer." not in step
    code, out, _ = run(capsys, "teach", *HOUSE_ARGS, "--ids")
    step = out[out.index("、斷\n"):].replace("\n   ", "")
    assert "一、用神：三傳不見類神：第一傳午剋日，為事神，作用神〔question.yong_shi" in step and "四、斷：凶：所問不成〔answer.ill" in step
    code, out, _ = run(capsys, "teach", "--at", "1998-11-30 12:00")
    assert "乃得其斷" not in out


@pytest.mark.parametrize("args", [HOUSE_ARGS, WEATHER_ARGS])
def test_the_lesson_teaches_the_weighing_step_by_step(session, args):
    """The lesson's 斷 step: the 用神, each reason (for, against, rescue), each precedence that outranked
    one, the answer, its 應期, then how many findings --json adds; each line ending with its rule and
    the line of its book."""
    from liuren_logic.explain.judgement import judgement_data
    from liuren_logic.explain.lesson import lesson_steps

    chart = session.cast_many([session.dated_input(args[1], args[3], matter=args[5])])[0]
    answer = judgement_data(chart)["answer"]
    outranked = [r for r in answer["reasons"] if r["outranked_by"]]
    for lang, open_, sep in (("zh", "〔", "｜"), ("en", "[", " | ")):
        items = next(s for s in lesson_steps(chart, lang) if s.key == "judgement").items
        ruled = [i for i in items if i["rule"]]
        expected = ([y["rule"] for y in answer["yongshen"]] + [r["rule"] for r in answer["reasons"]]
                    + [f"{r['outranked_by']}>{r['name']}" for r in outranked] + [answer["rule"]]
                    + ([answer["timing"]["rule"]] if answer["timing"] else []))
        assert [i["rule"] for i in ruled] == expected
        for item in ruled:
            verse = item["source"].partition(": ")[2]
            assert f"{open_}《" in item["text"] and f"「{verse}」" in item["text"], item  # the book, not the rule id
        assert not items[-1]["rule"] and ("另有所見" in items[-1]["text"] or "more findings" in items[-1]["text"])
        with showing_ids():
            shown = [i for i in next(s for s in lesson_steps(chart, lang) if s.key == "judgement").items if i["rule"]]
        assert all(f"{open_}{i['rule']}{sep}《" in i["text"] for i in shown), shown


# --- counts over the 720 charts, each against a definition written here ---------------------------

def _cast_all(session, matter):
    branches = "子丑寅卯辰巳午未申酉戌亥"
    pillars = [a + b for a, b in zip("甲乙丙丁戊己庚辛壬癸" * 6, branches * 5)]
    return session.cast_many([session.offset_input(p, o, matter=matter) for p in pillars for o in range(12)])


def test_the_720_weather_charts_carry_not_long_where_a_water_initial_meets_earth_after(session):
    """不久: the initial is 亥 or 子 (water) and both later transmissions are 辰 戌 丑 未 (earth)."""
    charts = _cast_all(session, "天時")
    expected = {c.id for c in charts if c.sanchuan and c.sanchuan[0] in "亥子" and all(b in "辰戌丑未" for b in c.sanchuan[1:])}
    carried = {c.id for c in charts if ("不久", c.sanchuan[:1]) in c.rows("verdict")}
    assert carried == expected and len(expected) == 16


def test_the_720_house_charts_carry_an_unjust_god_where_the_ghost_carries_the_noble_in_prison(session):
    """不正之神: the initial overcomes the day stem's element and carries 貴人, which stands over 辰 or 戌."""
    charts = _cast_all(session, "家宅")
    element = dict(zip("子丑寅卯辰巳午未申酉戌亥甲乙丙丁戊己庚辛壬癸", "水土木木土火火土金金土水木木火火土土金金水水"))
    overcomes = {("木", "土"), ("土", "水"), ("水", "火"), ("火", "金"), ("金", "木")}
    expected = set()
    for c in charts:
        first = c.transmissions[0] if c.transmissions else None
        seat = {u: e for e, u in c.heaven.items()}.get(c.noble)
        if first and first.general == "貴人" and (element[first.branch], element[c.day[0]]) in overcomes and seat in "辰戌":
            expected.add(c.id)
    carried = {c.id for c in charts if ("不正之神", "貴人") in c.rows("verdict")}
    assert carried == expected and len(expected) == 5


def test_opposite_weather_verdicts_both_stand_and_the_judgement_says_so(session):
    """甲子日 offset 0 (伏吟): 辰 over 辰 (yang) says 晴, the Dragon over 午 rising says 雨."""
    from liuren_logic.explain.board import section_lines
    from liuren_logic.explain.judgement import judgement_data, judgement_section

    chart = session.cast_offset("甲子", 0, matter="天時")
    assert {("晴", "辰"), ("雨", "青龍")} <= set(chart.rows("verdict"))
    assert ["晴", "雨"] in judgement_data(chart)["conflicts"]
    assert "    晴與雨相反，兩存之" in section_lines(judgement_section(chart, "zh", {}))


@pytest.mark.parametrize("day, jiang, hour, matter, verdicts", [
    ("壬申", "未", "申", "婚姻", {("無情", "戌")}),          # 《指南》 case 9: the wealth 戌 void, 「斷其已離」
    ("乙酉", "酉", "巳", "失物", {("公勝盜", "卯")}),         # case 97: the ghost 申 overcomes 卯, which carries 玄武
    ("乙未", "戌", "卯", "詞訟", {("有救", "申"), ("莫興詞", "勾陳")}),  # case 87: both stand, named as opposed
])
def test_verdicts_of_the_chapter_verses_on_zhinan_cases(session, day, jiang, hour, matter, verdicts):
    chart = session.cast(day, jiang=jiang, hour=hour, matter=matter)
    assert verdicts == set(chart.rows("verdict"))
    assert chart.rows("conflict") == ([("有救", "莫興詞")] if matter == "詞訟" else [])


def test_the_bifa_lines_and_the_spirits_over_the_stem_and_branch_are_findings(session):
    """Every 畢法 line the chart meets is one finding (課體 unless its words are about another kind),
    and every spirit over the stem (干上) and over the branch (支上) is one, as the board's spirits list
    them; none of this without a matter."""
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅")
    findings = chart.rows("finding")
    lines = {line for _, line in chart.bifa}
    read = {f: k for k, f, a, b in findings if b == f and f in lines}
    assert set(read) == lines and {"貴雖在獄宜臨干", "鬼乘天乙乃神祇"} <= lines
    # a line naming the stem and the branch (彼此 …) says so in its about; any other names itself
    assert {(f, a) for k, f, a, b in findings if b == f and f in lines and a != f} == {("彼此猜忌害相隨", "干支")}
    assert read["鬼乘天乙乃神祇"] == "天將" and all(k in KIND_ORDER for k in read.values())
    for place in ("干上", "支上"):
        over = {s for where, _, s in chart.spirits if where == place}
        assert over and {a for k, f, a, b in findings if (k, f) == ("神煞", place)} == over, place
    assert not session.cast_at("1998-11-30 12:00", "Asia/Shanghai").rows("finding")


@pytest.mark.parametrize("day, jiang, hour, course", [
    ("乙未", "亥", "戌", {("進連茹", "酉", "亥")}),  # 《指南》 case 40: 酉戌亥
    ("甲戌", "午", "巳", {("進連茹", "辰", "午")}),  # case 55: 辰巳午
    ("辛巳", "寅", "午", set()),                     # seed 003's house chart: 午寅戌, a trine
])
def test_the_course_of_the_transmissions_is_read_as_the_verse_names_it(session, day, jiang, hour, course):
    chart = session.cast(day, jiang=jiang, hour=hour, matter="仕宦")
    at = ["子丑寅卯辰巳午未申酉戌亥".index(x) for x in chart.sanchuan]
    linked = all((b - a) % 12 == 1 for a, b in zip(at, at[1:]))  # the check, written from the branches' order
    assert bool(course) == linked
    assert {(f, a, b) for k, f, a, b in chart.rows("finding") if k == "三傳" and f in ("進連茹", "退連茹", "順間傳", "逆間傳")} == course


def test_the_page_and_the_app_end_the_board_with_the_same_judgement(session, capsys, tmp_path):
    import html
    import re

    from liuren_logic.explain.app import board
    from liuren_logic.explain.board import sections
    from liuren_logic.explain.page import board_html

    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅")
    built = sections(chart, question="弟犯邪")
    assert built[-1].key == "judgement" and [s.key for s in sections(session.cast_at("1998-11-30 12:00", "Asia/Shanghai"))][-1] == "spirits"
    cells = [c for row in built[-1].rows for c in row]
    for shown in (board_html(chart, question="弟犯邪"), board(chart, "zh", "弟犯邪")["html"]):
        assert shown.index('class="lr-sec lr-judgement"') > shown.index('class="lr-sec lr-spirits"')
        text = html.unescape(re.sub(r"<[^>]+>", "", shown))
        assert all(c.text in text for c in cells) and "占 家宅 · 問 弟犯邪" in text
    assert 'data-q="斷" data-value="凶"' in board(chart)["html"]
    code, out, _ = run(capsys, "page", *HOUSE_ARGS, "--question", "弟犯邪", "-o", str(tmp_path / "house.html"))
    written = html.unescape(re.sub(r"<[^>]+>", "", (tmp_path / "house.html").read_text("utf-8")))
    assert code == 0 and "占 家宅 · 問 弟犯邪" in written and "凶：所問不成" in written
    asked = {c.ask for c in cells if c.ask}
    assert ("斷", "凶") in asked and all(session.why(chart, *a).number_of_nodes() > 1 for a in sorted(asked))


def test_the_findings_past_the_reasons_open_in_place_on_the_web_and_are_counted_in_the_terminal(session):
    import html
    import re

    from liuren_logic.explain.app import board
    from liuren_logic.explain.board import render_chart
    from liuren_logic.explain.judgement import REASONS, judgement_data
    from liuren_logic.explain.page import board_html

    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="家宅")
    data = judgement_data(chart)
    hidden = data["findings"] + data["answer"]["reasons"][REASONS:]
    assert len(data["findings"]) > 10
    for shown in (board_html(chart), board(chart, "zh")["html"]):
        fold = re.search(r'<details class="lr-more"><summary>(.*?)</summary>(.*?)</details>', shown).groups()
        assert fold[0] == f"另有所見{len(hidden)}條" and fold[1].count("<p>") == len(hidden)
        assert all(html.escape(f["text"]["zh"]) in fold[1] for f in data["findings"])
        outside_text_board = re.sub(r"<pre>.*?</pre>", "", shown, flags=re.S)  # (the app's copy of the terminal's)
        assert "--json" not in html.unescape(re.sub(r"<[^>]+>", "", outside_text_board))  # the web names no flag
    assert f"另有所見{len(hidden)}條（--json 全列）" in render_chart(chart)
    assert f"{len(hidden)} more findings (--json lists them all)" in render_chart(chart, "en")


def test_a_case_that_names_the_natal_or_the_year_of_life_gives_it_to_the_chart(session):
    """``natal``/``xingnian``: the 本命 or 行年 branch a text names, without the birth; the 斷 reads
    what stands over it; given with the birth (or the sex) that derives it, it is refused."""
    chart = session.cast("甲申", jiang="巳", hour="寅", matter="仕宦", xingnian="丑")  # case 32: 罡加行年丑
    assert chart.rows("life_point") == [("行年", "丑")] and chart.rows("life_upper") == [("行年", "辰")]
    assert ("年命", "行年", "丑", "辰") in chart.rows("finding")
    natal = session.cast("乙酉", jiang="戌", hour="巳", matter="詞訟", natal="戌")  # case 89: 又為本命
    assert ("本命", "戌") in natal.rows("life_point")
    assert not session.cast("甲申", jiang="巳", hour="寅", matter="仕宦").rows("life_point")
    for given, words in (({"natal": "未", "born": "癸酉"}, "born"), ({"xingnian": "丑", "born": 1970, "sex": "m"}, "sex"),
                         ({"natal": "甲"}, "branch")):
        with pytest.raises(InputError, match=words):
            session.cast("甲申", jiang="巳", hour="寅", **given)


def test_the_natal_or_the_year_of_life_given_on_the_command_line(capsys):
    code, out, _ = run(capsys, "cast", "--day", "甲申", "--jiang", "巳", "--hour", "寅", "--matter", "仕宦",
                       "--xingnian", "丑", "--json")
    assert code == 0 and "行年丑上見辰，乘玄武" in out
    code, _, err = run(capsys, "cast", "--day", "甲申", "--jiang", "巳", "--hour", "寅", "--natal", "未", "--born", "1970",
                       "--lang", "en")
    assert code == 2 and err.strip().splitlines() == ["liuren: the 本命 未 and born both given: give one (the 本命 follows from born)"]


def test_a_natal_or_year_of_life_given_alone_is_on_the_board_and_in_the_lesson(capsys):
    """Without a birth year the querent's line still shows the 本命 and 行年 given, and what stands
    over each; the lesson says each as given (the input's label, not its tuple)."""
    chart = ("--day", "辛巳", "--jiang", "寅", "--hour", "午", "--natal", "戌", "--xingnian", "卯")
    code, out, _ = run(capsys, "cast", *chart)
    assert code == 0 and "本命 戌, 上 午 貴人 · 行年 卯, 上 亥 白虎" in out.splitlines()[1]
    code, out, _ = run(capsys, "teach", *chart)
    assert code == 0 and "所給本命戌；所給行年卯；本命戌上見天盤午" in out and "life_given(" not in out


def test_the_english_answer_glosses_its_timing_method(capsys):
    code, out, _ = run(capsys, "cast", *HOUSE_ARGS, "--lang", "en")
    line = " ".join(l.strip() for l in out[out.index("\nJudgement (斷): ") + 1:].splitlines()[:2])
    assert code == 0 and "timing (應期): a 未 day (用神之墓: the 用神's tomb), next 1998-12-02, 1998-12-14" in line
    code, out, _ = run(capsys, "cast", *HOUSE_ARGS)
    assert "應期 未日（用神之墓）：1998-12-02、1998-12-14、1998-12-26" in out


# --- the answer (kb/judgement/question.dl, answer.dl) ------------------------------------------------

@pytest.mark.parametrize("matter", MATTERS)
def test_each_matter_prints_its_answer_line(capsys, matter):
    """cast --matter M --question Q: the 斷 opens with one of the five answers, then the question's 用神."""
    code, out, _ = run(capsys, "cast", *HOUSE_ARGS[:4], "--matter", matter, "--question", "此事如何")
    lines = out[out.index("\n斷: ") + 1:].splitlines()
    first, second = lines[0], next(line.strip() for line in lines if line.strip().startswith("占 "))
    answers = ("吉：所問可成", "凶：所問不成", "先吉後凶", "先凶後吉", "吉凶參半")
    assert code == 0 and first.removeprefix("斷: ").startswith(answers), first
    assert f"占 {matter} · 問 此事如何 · 所問 " in second and "（默認）" in second and "用神 " in second


def test_the_questions_words_pick_its_yongshen(session):
    """仕宦: 「試」 asks about an exam, whose sign is 青龍 (「文宜青龍不戰」); words the table lacks keep the
    matter's default (功名: the noble and the ghost), which is no error."""
    exam = session.cast("甲戌", jiang="未", hour="亥", month="酉", matter="仕宦", question="占長兄公明進京會試")
    plain = session.cast("甲戌", jiang="未", hour="亥", month="酉", matter="仕宦", question="吉凶若何")
    assert exam.rows("question") == [("考試",)] and exam.rows("asked_word") == [("試",)]
    assert plain.rows("question") == [("功名",)] and not plain.rows("asked_word")
    # 《指南》 case 42 (戌午寅): 青龍 rides no transmission and none overcomes 甲, so the exam's 用神 is the
    # first the stem overcomes, 戌 (the 事神: 「無克日，取日克者為事神」)
    assert exam.rows("question_yong") == [("戌", "事神")]
    dragons = 0
    for offset in range(12):  # where 青龍 rides a transmission, the first it rides is the exam's 用神
        chart = session.cast_offset("甲子", offset, matter="仕宦", question="會試")
        ridden = [t.branch for t in chart.transmissions if t.general == "青龍"]
        struck = ([b for b in chart.sanchuan if (ELEMENT[b], "木") in KE]
                  or [b for b in chart.sanchuan if ("木", ELEMENT[b]) in KE])
        shi = [(struck[0], "事神")] if struck else [(chart.sanchuan[0], "發用")]
        assert chart.rows("question_yong") == ([(ridden[0], "青龍")] if ridden else shi)
        dragons += bool(ridden)
    assert dragons >= 2


@pytest.mark.parametrize("matter", ["疾病", "仕宦", "詞訟"])
def test_no_chart_shows_two_opposite_answers(session, matter):
    """On the 720 charts: exactly one answer each; success and its negation never both; 吉凶參半 exactly
    where neither holds; a phase only beside a decided weighing."""
    for chart in _cast_all(session, matter):
        answers = [a for (a,) in chart.rows("answer")]
        yes, no = bool(chart.rows("success")), bool(chart.rows("~success"))
        assert len(answers) == 1 and not (yes and no), chart.id
        assert (answers[0] == "吉凶參半") == (not yes and not no), chart.id
        assert answers[0] not in ("吉", "先凶後吉") or yes or answers[0] == "先凶後吉" and no, chart.id


def test_a_grave_verdict_never_answers_alone(session):
    """「子臨巳位定死亡」 and the other verdicts of death weigh nothing: on the 720 疾病 charts a grave
    answer stands only where the weighing says no by other reasons and no rescue is met; a chart whose
    only sign against is the verse is never answered 凶 by it."""
    from liuren_logic.explain.judgement import judgement_data

    charts = _cast_all(session, "疾病")
    deaths = [c for c in charts if ("死亡", "子") in c.rows("verdict")]
    assert len(deaths) == 60  # 子 over 巳: one offset in twelve, on each of the 60 days
    for chart in charts:
        graves = chart.rows("grave_answer")
        if not graves:
            continue
        answer = judgement_data(chart)["answer"]
        assert chart.rows("~success") and not chart.rows("rescue"), chart.id
        against = [r for r in answer["reasons"] if r["points"] == "不成" and not r["outranked_by"]]
        assert against and all(r["name"] != "judge.zi_on_si" for r in against), chart.id
    assert any(not c.rows("grave_answer") for c in deaths)  # the verse alone says nothing
    rules = {r.id for lit in ("success", "~success") for r in session.program.defeat.rules[lit]}
    assert not rules & {"judge.zi_on_si", "judge.body_in_coffin", "judge.soul_taken"}


def test_the_weighing_is_defeasible_rules_with_the_books_precedence(session):
    """《指南》 case 22 (乙未 午將 巳時, 酉月, 疾病): the 用神 酉 is the day's ghost, feared; strong and
    overcoming the stem it argues 不成. The stem's 長生 亥 among the transmissions does not act on 酉
    (water does not overcome metal), so it rescues nothing: the answer is 凶, by those two reasons."""
    from liuren_logic.explain.judgement import judgement_data

    chart = session.cast("乙未", jiang="午", hour="巳", month="酉", matter="疾病")
    answer = judgement_data(chart)["answer"]
    assert chart.rows("yong_nature") == [("酉", "凶煞")] and chart.rows("rescue") == []
    assert answer["polarity"] == "凶" and answer["success"] is False
    assert {r["name"] for r in answer["reasons"]} == {"weigh.sha_wang", "weigh.ke_wo"}
    # 仕宦, case 74 (己亥 亥將 未時, 正月): the 用神 卯 is the ghost, the post sought (「病訟畏兮官位顯」):
    # no 克我 against it, the office shown for it
    office = judgement_data(session.cast("己亥", jiang="亥", hour="未", month="寅", matter="仕宦"))["answer"]
    names = {r["name"] for r in office["reasons"]}
    assert office["success"] is True and "weigh.guan_xian" in names and "weigh.ke_wo" not in names


ELEMENT = dict(zip("子丑寅卯辰巳午未申酉戌亥甲乙丙丁戊己庚辛壬癸", "水土木木土火火土金金土水木木火火土土金金水水"))
KE = {("木", "土"), ("土", "水"), ("水", "火"), ("火", "金"), ("金", "木")}
SHENG = {("木", "火"), ("火", "土"), ("土", "金"), ("金", "水"), ("水", "木")}


@pytest.mark.parametrize("matter", ["疾病", "家宅"])
def test_a_rescue_acts_on_the_harm_and_outranks_only_it(session, matter):
    """On the 720 charts, written from the chart here: a rescue stands exactly where the 用神 harms (it
    overcomes the stem, save for an office, where the ghost is the post; or it is a feared sign 旺相) and either a 旺相 transmission or the upper over
    the stem overcomes it, or the palace under it overcomes or generates it; and a rescue outranks
    only the reasons of that harm (克我, a strong feared sign, a weak ghost)."""
    from liuren_logic.explain.judgement import judgement_data

    rescued = 0
    for chart in _cast_all(session, matter):
        (yong,) = {b for b, _ in chart.rows("question_yong")}
        nature = dict(chart.rows("yong_nature"))[yong]
        strong = lambda b: chart.strength.get(b) in ("旺", "相")
        ghost = (ELEMENT[yong], ELEMENT[chart.day[0]]) in KE  # for an office the ghost is the post sought
        harms = ghost and matter != "仕宦" or nature == "凶煞" and strong(yong)
        under = {u: e for e, u in chart.heaven.items()}[yong]
        acts = harms and (any((ELEMENT[x], ELEMENT[yong]) in KE and strong(x) for x in [*chart.sanchuan, *(u for (u,) in chart.rows("gan_upper"))])
                          or (ELEMENT[under], ELEMENT[yong]) in KE | SHENG)
        assert bool(chart.rows("rescue")) == acts, chart.id
        rescued += acts
        if acts:
            jiu = [r for r in judgement_data(chart)["answer"]["reasons"] if r["name"] in ("weigh.jiu", "weigh.wu_hai")]
            assert jiu and all(set(r["outranked"]) <= {"weigh.ke_wo", "weigh.sha_wang", "weigh.shuai_gui"} for r in jiu), chart.id
    assert 0 < rescued < 720 // 2


def test_why_and_why_not_the_answer_name_the_deciding_rule(capsys):
    code, out, _ = run(capsys, "why", "斷", "凶", *HOUSE_ARGS)
    # the explainer shows the smallest derivation: the verdict 被纏's (the 事神's own takes more steps)
    assert code == 0 and out.startswith("斷：凶") and "格凶定當以凶斷：主不成（勝）" in out and "weigh." not in out
    code, out, _ = run(capsys, "why", "斷", "凶", *HOUSE_ARGS, "--ids")
    assert code == 0 and out.startswith("answer(") and "weigh.verdict_ill·wins" in out
    code, out, _ = run(capsys, "why-not", "斷", "吉", *HOUSE_ARGS)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "斷：吉：不成立。" and "此課之斷：凶：所問不成（非吉）。所據：" in lines
    assert any(l.startswith("－ 用神午剋日干辛") and "〔《六壬指南》卷一：" in l for l in lines)
    code, out, _ = run(capsys, "why-not", "斷", "凶", "--day", "己亥", "--jiang", "亥", "--hour", "未", "--month", "寅",
                       "--matter", "仕宦")  # 《指南》 case 74
    assert code == 0 and "此課之斷：吉：所問可成（非凶）。所據：" in out
    assert "＋ 問功名，用神卯為官鬼入傳：官位顯，主成〔《六壬指南》卷二：傳見官鬼有兩途，病訟畏兮官位顯〕" in out
    code, out, _ = run(capsys, "why-not", "斷", "凶", "--day", "乙丑", "--jiang", "申", "--hour", "午", "--matter", "家宅")
    assert code == 0 and "此課之斷：吉：所問可成（非凶）。所據：" in out  # 申 over 午 is held by what overcomes it
    said = out.replace("\n", "")  # lines wrapped to the terminal, read whole
    assert "－ 用神申剋日干乙，克我則憂難不已：主不成——為「救神午（凶居剋地）：用神臨之，戀生解克而無害：主成」所勝" in said
    assert "救 救神午（凶居剋地）：用神臨之" in said  # the rescue signed as one


def test_one_timing_with_its_scale(session):
    """One 應期: the matter's own method first (求財: the final's 六合), the nearest after the day;
    its scale from the 用神 (the year's branch: 年; the month's: 月; else a day)."""
    chart = session.cast_at("1998-11-30 12:00", "Asia/Shanghai", matter="求財")
    assert chart.rows("answer_timing") == [("卯", "末傳合處")] and chart.rows("answer_scale") == [("年",)]
    assert chart.rows("question_yong") == [("寅", "妻財")]  # 戊寅年: the 用神 is the year's branch


def test_judgement_eval_answers_at_least_as_well_as_a_constant_good(session):
    """benchmarks/judgement_eval.py on the 55 labelled cases (docs/judgement.md has its figures): on the
    cases the answer gives a direction, it agrees with the book at least as often as a constant 吉 would
    on those cases, beats it by at least 4, is wrong on at most 14 and answers at least 38 of the 55.
    The rescues scoped to the harm they act on, and the ordering lines as @prefer, raised the answered
    from 22 to 40; the 行年 lines of the 肘後經 (read from the book, not from these cases) then put
    reasons on both sides of cases 32 and 72, two wrong answers before, undecided now: 38 answered,
    23 right against the constant's 19, 14 wrong (16 before). The floors record the figures; a rule
    is never kept or dropped to hold them."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from judgement_eval import evaluate

    rows = evaluate(session)["rows"]
    answered = [r for r in rows if r["want"] and r["got"]]
    right = sum(r["got"] == r["want"] for r in answered)
    assert right >= sum(r["want"] == "吉" for r in answered) + 4
    assert len(answered) - right <= 14
    assert sum(bool(r["got"]) for r in rows) >= 38
