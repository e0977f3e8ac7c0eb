"""Every rule that cites a seed quotes it word for word; every rule and predicate is labelled."""
from __future__ import annotations

import re

from conftest import seed_text

SEEDS = ("000", "003")


# Classical books a rule may cite beyond the seeds (kb/keti, kb/bifa): key → the book. Their
# lines are quoted as docs/coverage_keti.md and docs/coverage_bifa.md give them, with where
# each text was read; the seeds are checked word for word.
BOOKS = {"大全": "《六壬大全》課經", "心鏡": "《大六壬心鏡》 in 《六壬大全》", "訂訛": "《訂訛》 in 《六壬大全》",
         "觀月": "《觀月經》 in 《六壬大全》", "指南": "《六壬指南》", "畢法": "凌福之《畢法賦》",
         "粹言": "《六壬粹言》",
         # kb/judgement: books not in the repository, quoted from ctext's transcription (lrdq-ts-lib's
         # docs/corpus) and checked word for word against it by tools/check_book_quotes.py
         "指南卷三": "《六壬指南》卷三", "心鏡卷五": "《大六壬心鏡》卷五", "心鏡卷六": "《大六壬心鏡》卷六",
         "心鏡卷七": "《大六壬心鏡》卷七", "大全卷二": "《六壬大全》卷二", "大全卷三": "《六壬大全》卷三",
         "指南卷二": "《六壬指南》卷二", "指南卷一": "《六壬指南》卷一", "大全卷九": "《六壬大全》卷九", "大全卷十": "《六壬大全》卷十",
         "大全卷十二": "《六壬大全》卷十二"}


def test_every_source_is_a_verbatim_seed_line(session):
    texts = {key: seed_text(key) for key in SEEDS}
    cited = [r for r in session.kb.program.rules + session.kb.program.facts if r.source]
    assert len(cited) > 40
    for rule in cited:
        key, _, quote = rule.source.partition(": ")
        assert key in texts or key in BOOKS, f"{rule.id}: source must start with 000:, 003: or a book of {sorted(BOOKS)}"
        if key in texts:
            assert re.sub(r"\s+", "", quote) in texts[key], f"{rule.id} at {rule.pos}: {quote!r} is not in seed {key}"
        else:
            assert quote.strip(), f"{rule.id}: a book's source quotes its line"


def test_every_annotated_rule_and_declared_predicate_has_both_labels(session):
    for rule in session.kb.program.rules:
        if rule.annotated:
            assert rule.label("zh") and rule.label("en"), rule.id
    for decl in session.kb.program.preds.values():
        assert decl.label("zh") and decl.label("en"), decl.name


def test_every_rule_of_the_default_school_is_annotated(session):
    # a rule the defeasible compilation adds (its id has 「·」: weigh.wang·wins, success·definite)
    # stands for the user's rule or relation, whose labels its derivation reads
    plain = [f"{r.pos}" for r in session.kb.program.rules if not r.annotated and "·" not in r.id]
    assert plain == []


# A cited line must say what its rule does. The check: the line contains the rule's key term, which
# is a name the rule concludes (a constant of its head) or a two-character word of its zh label;
# where neither occurs in the line, the key term below was read against the line and the rule.
REVIEWED = {
    "relation.six_harmony": "六合", "relation.trine_peak": "三合", "relation.trine_birth": "三合",
    "relation.trine_tomb": "三合", "relation.tomb": "墓", "general.run_forward": "天盤將",
    "general.run_backward": "天盤將", "lesson.first": "甲課寅", "lesson.same_position": "八專",
    "bazhuan.middle": "中末總向日上", "bazhuan.final": "中末總向日上", "bieze.middle": "中末干中寄",
    "bieze.final": "中末干中寄", "biyong.same_polarity": "陽日用陽陰用陰", "fanyin.jinglan": "丑日登明",
    "fanyin.jinglan_middle": "辰上作申", "fanyin.jinglan_final": "日上作未", "fuyin.middle": "刑之作中",
    "fuyin.middle_self_yang_other": "次傳顛倒日辰", "fuyin.middle_self_yin_other": "次傳顛倒日辰",
    "fuyin.walk": "迤邐刑之", "fuyin.walk_restart": "迤邐刑之", "fuyin.final": "刑之作中末",
    "maoxing.yang_initial": "陽仰", "maoxing.yin_initial": "陰俯", "transmission.final": "中上加臨是末",
    "shehai.palace_stem": "甲課寅", "shehai.jianji": "孟深", "shehai.chawei": "仲淺", "shehai.fudeng_yin": "復等柔辰",
    "yaoke.candidate_haoshi": "先取神遙", "method.zeike_sequence": "中上加臨",
    "shehai.met_lower": "路逢多剋", "shehai.met_upper": "路逢多剋", "shehai.deepest": "路逢多剋",
    "tomb.stem_element": "單論五行",
    # spirits
    "spirit.alt.month": "天獄", "spirit.alt.month003": "皇恩", "spirit.alt.season": "地獄",
    "spirit.day.liuhe": "丑與子合", "spirit.day.sanhe": "申子辰", "spirit.day.trine": "驛馬",
    "spirit.year.trine": "驛馬", "spirit.day.table": "雷電",
    "spirit.day.lu": "祿", "spirit.month.forward": "寅順十二", "spirit.month.group_back": "逆三輪",
    "spirit.month.group_forward": "孟移", "spirit.month.trine": "四組分列", "spirit.month.stem": "天德正丁",
    "spirit.month.table": "正月到臘月", "spirit.month.six": "天財正七辰", "spirit.season.table": "春丑",
    "spirit.season.pillar": "春乙卯", "place.zhi": "中支", "place.gan_yin": "陰神",
    "place.zhi_yin": "陰神",
    # patterns and the generals' states
    "virtue.yin": "寅己",
    "pattern.gouchen_zhangjian": "伏剱者", "pattern.qinglong_wo": "臥者", "pattern.ghost": "鬼者",
    "pattern.trine_count": "三合入傳", "pattern.gan_he": "干合",
    "pattern.ganzhi_combine": "支干互合", "pattern.adjacent": "剋近", "pattern.adjacent_back": "剋近",
    "pattern.tongxin_own": "上神與支干合", "pattern.uppers_in_trine": "三、六合", "pattern.jiaoche_chong": "先合後離",
    "pattern.day_tomb": "日墓", "pattern.gan_palace": "甲課寅", "pattern.approach_zhi": "衝辰",
    "pattern.day_point_gan": "衝日", "pattern.day_point_zhi": "衝辰", "pattern.clashes_day": "衝日",
    "pattern.meets_gan": "干刑", "pattern.meets_zhi": "支刑", "pattern.kechuan_lesson": "傳課俱全",
    "pattern.kechuan_transmission": "傳課俱全", "pattern.transmitted": "入傳", "pattern.general_seat": "到辰戌上",
    "pattern.birth": "自生入墓", "pattern.birth_earth": "辰臨申", "pattern.month_number": "正卯、二酉",
    "pattern.chart_month": "正卯、二酉", "pattern.quarter_mid": "皆歸木鄉", "pattern.quarter_first": "皆歸木鄉",
    "pattern.quarter_last": "皆歸木鄉", "pattern.drains_lesson": "源消根斷", "pattern.step": "連珠聯茹",
    "pattern.jin_ru": "進退", "pattern.tui_ru": "進退", "pattern.punish_pair": "戌刑干",
    "pattern.punish_pair_back": "戌刑干",
    # 課體 from the classical books
    "keti.zhuyin_seat": "戌天魁", "keti.decade_tail": "首尾", "keti.wuyin_jiaoke": "交剋",
    "keti.trine_name": "潤下格", "keti.tuiru": "退連茹", "keti.lianzhu_jin": "連茹", "keti.lianzhu_tui": "連茹",
    "keti.jiuchou_linzhi": "臨支上",
    # 斷 (kb/judgement)
    "judge.yong_leishen": "將神之司", "judge.yong_general": "將神之司", "judge.leishen_branch": "將神之司",
    "judge.leishen_general": "將神之司", "judge.leishen_kin": "子父財官", "judge.leishen_spirit": "將神之司",
    "judge.leishen_mark": "將神之司", "judge.leishen_jiang": "將神之司", "judge.transmission_general": "將神之司",
    "judge.lesson_general": "將神之司", "judge.kin_course": "子父財官", "judge.spirit_omen": "以凶斷", "judge.gan_upper_stage": "日辰虛實", "judge.zhi_upper_stage": "日辰虛實",
    "judge.general_state": "將神之司", "judge.noble_state": "將神之司", "judge.strength": "發用憑休旺",
    "judge.void": "逢墓空", "judge.bifa": "課體", "judge.leishen_seat": "將神之司",
    "judge.leishen_strength": "衰旺", "judge.leishen_void": "空刑", "judge.spirit_gan": "日辰", "judge.spirit_zhi": "日辰", "judge.leishen_over_seat": "下克", "judge.overcomes_stem": "克乾", "judge.trine": "三六合",
    "judge.bifa_concerns": "課體", "judge.lianru_name": "連茹", "judge.trine_day": "三六合", "judge.book_keti": "課體",
    "judge.yong_meets": "刑害",
    # the answer (kb/judgement/question.dl, answer.dl)
    "answer.grave": "死生看", "answer.undecided": "休囚發用皆主憂",
    "phase.bad_end_general": "末遇凶神", "phase.bad_end_void": "空亡",
    "question.by_general": "於三傳中見其用神", "question.by_kin": "於三傳中見其用神", "question.by_mark": "馬為",
    "question.default": "百事三傳見類神", "question.named": "象義不同",
    "judge.upper_stage": "日辰虛實", "judge.uppers_punish": "彼我幹支害合論",
}

# Rules with no seed line that states them; a line they once cited said something else.
UNCITED = {
    "general.forward": "seed 000's 「此貴神，晝順行，夜逆行」 is the other reading (direction=daynight)",
    "general.backward": "seed 000's 「此貴神，晝順行，夜逆行」 is the other reading (direction=daynight)",
    "plate.heaven": "「三傳既定天盤將」 is about placing the generals (general.run_forward)",
    "pattern.palace_state": "「朱雀行宮須細推」 closes 朱雀's verse; each state cites its general's verse",
    "pattern.general_state": "「朱雀行宮須細推」 closes 朱雀's verse; each state cites its general's verse",
    "virtue.yang": "seed 000 uses 德 (2065) but states only the yin stems' 德",
}


def _key_terms(rule) -> set[str]:
    from liuren_logic.datalog import syntax as S

    cjk = re.compile(r"[\u3400-\u9fff]")
    names = [str(a.value) for a in rule.head.args if isinstance(a, S.Const) and cjk.search(str(a.value))]
    terms = set(names) | {n[i:i + 2] for n in names for i in range(len(n) - 1)}
    label = re.sub(r"\{[^}]*\}", "|", rule.label("zh") or "")
    terms |= {label[i:i + 2] for i in range(len(label) - 1) if cjk.match(label[i]) and cjk.match(label[i + 1])}
    return terms


def test_every_cited_line_states_its_rule(session):
    rules = {r.id: r for r in session.kb.program.rules if r.annotated}
    tables = [f for f in session.kb.program.facts if f.source]
    assert {f.id for f in tables} >= {"pattern.palace_guiren", "pattern.palace_tianhou"}
    unfit, redundant = [], []
    users = [r for r in rules.values() if r.source and "·" not in r.id]  # not the defeasible compilation's copies
    for rule in users + tables:  # a table's every row, each on its own
        quote = re.sub(r"\s+", "", rule.source.partition(": ")[2])
        if any(term in quote for term in _key_terms(rule)):
            redundant += [rule.id] if rule.id in REVIEWED else []
        elif REVIEWED.get(rule.id, "\0") not in quote:
            unfit.append(f"{rule.id} at {rule.pos}: {rule.source}")
    assert not unfit, "cited lines that do not state their rule (cite the line that does, or review it):\n" + "\n".join(unfit)
    assert not redundant, f"their own words are in the line; drop them from REVIEWED: {redundant}"
    assert set(REVIEWED) <= set(rules), sorted(set(REVIEWED) - set(rules))
    for rule_id, reason in UNCITED.items():
        assert not rules[rule_id].source, f"{rule_id}: {reason}"


def test_the_hour_rule_cites_the_case_that_sets_the_general_over_the_hour(session):
    rule = next(r for r in session.kb.program.rules if r.id == "chart.offset")
    assert "月將" in rule.source and "午時起課" in rule.source
    assert not [r.id for r in session.kb.program.rules if r.source and r.source.endswith("朱雀行宮須細推")
                and r.id != "pattern.palace_zhuque"]


def test_every_cited_book_has_its_name_and_a_row_in_docs_sources(session):
    """Output names the book (《福山堂》, not 000): each source key has a name, and docs/sources.md a row."""
    from pathlib import Path

    from liuren_logic.domain.books import books, cite

    table = Path(__file__).parent.parent / "docs" / "sources.md"
    rows = {line.split("|")[1].strip(): line for line in table.read_text("utf-8").splitlines() if line.startswith("| ")}
    keys = {r.source.partition(": ")[0] for r in session.kb.program.rules + session.kb.program.facts if r.source}
    assert keys <= set(books()) and set(books()) <= set(rows)
    for key in keys:
        zh, en = books()[key]
        assert zh.startswith("《") and zh in rows[key] and en.startswith(zh.split("》")[0])
        assert cite(f"{key}: 某句", "zh") == f"{zh}：某句"
    assert books()["000"][0] == "《福山堂》" and books()["003"][0] == "《註解大六壬指南》卷十六"


def test_the_rule_counts_of_docs_sources_are_the_kbs():
    """docs/sources.md's last column counts the ``source`` lines of kb/ (every reading) citing each key."""
    from collections import Counter
    from pathlib import Path

    checkout = Path(__file__).parent.parent
    cited = Counter(m.group(1) for path in (checkout / "kb").rglob("*.dl")
                    for m in re.finditer(r'\bsource "([^:"]+):', path.read_text("utf-8")))
    rows = [line.split(" | ") for line in (checkout / "docs" / "sources.md").read_text("utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| key")]
    table = {cells[0][2:].strip(): int(cells[-1].rstrip(" |")) for cells in rows if cells[-1].rstrip(" |").isdigit()}
    assert table == dict(cited)
