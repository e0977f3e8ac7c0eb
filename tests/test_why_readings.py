"""What a reader reads of a derivation's failed conditions: an open slot never as 某 / "any", a failed
comparison under its rule with what its numbers stand for, a prevailing defeasible rule with its values."""
from __future__ import annotations

import re

import pytest

from liuren_logic.faces.cli import main

SEED = ("--day", "辛巳", "--jiang", "寅", "--hour", "午")  # the seed chart (cases seed000)
RESCUED = ("--day", "己卯", "--jiang", "子", "--hour", "午", "--matter", "疾病")  # a rescue prevails (weigh.wu_hai)


@pytest.fixture(autouse=True)
def unwrapped(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")


def run(capsys, *args: str) -> list[str]:
    code = main(list(args))
    out = capsys.readouterr().out
    assert code == 0, out
    return out.splitlines()


def failed(lines: list[str], lang: str) -> list[str]:
    """What each 'does not hold' line says of its atom."""
    mark = "✗ 不成立：" if lang == "zh" else "✗ does not hold: "
    return [line.split(mark, 1)[1].split("  (")[0] for line in lines if mark in line]


@pytest.mark.parametrize("matter", ["疾病", "詞訟", "求財", "婚姻"])
def test_the_answers_failed_premises_read_no_placeholder(capsys, matter):
    """Under ``why 斷`` the premises that fail (救神, 事神年上相生, 所問者…) read their values or, where
    nothing fixes them, the definition: never 某 (or "any")."""
    for lang, placeholder in (("zh", "某"), ("en", " any ")):
        lines = run(capsys, "why", "斷", "凶", *SEED, "--matter", matter, "--lang", lang)
        assert failed(lines, lang) and not [line for line in lines if placeholder in line], (matter, lang)


def test_a_failed_premise_takes_the_values_the_rules_other_premises_fix(capsys):
    """weigh.song_ying, success(C) :- litigant(C, S), adversary(S, T), initial_strikes(C, K, I),
    side_loses(K, T): the initial 午 overcomes the stem 辛 (克日), so the 客 loses (side_loses), so the
    querent would have to be 主, the 客's adversary: the failed litigant reads 主. Nothing fixes the
    rescue of weigh.jiu (rescue(C, R, B), restrains(R): three restrainers): it reads as defined."""
    zh = failed(run(capsys, "why", "斷", "凶", *SEED, "--matter", "疾病"), "zh")
    en = failed(run(capsys, "why", "斷", "凶", *SEED, "--matter", "疾病", "--lang", "en"), "en")
    assert "所問者為主" in zh and "救神" in zh and "用神為吉神" in zh and "用神與年上相生" in zh
    assert any(s.startswith("the querent is the 主 ") for s in en) and "a rescue" in en
    assert "the 用神 and the year sign: 相生" in en
    assert "所問有字" in zh and "the question has the word" in en  # no --question: no word at all


def test_a_failed_comparison_says_its_rule_and_what_its_numbers_are(capsys):
    """Why 賊剋 is not outranked on the seed chart: the rule method.outranked fails at R2 < R; the tree
    shows the rule under the negation and the comparison with the ranks it compares."""
    for lang, rule, compare in (("zh", "✗ 「賊剋雖可用，賊剋先取（第三先於第三）」未成立", "✗ 3 < 3（賊剋第三）"),
                                ("en", "✗ the rule “賊剋 applies, but 賊剋 is tried first (3 before 3)” does not fire",
                                 "✗ 3 < 3 (賊剋 is tried as number 3)")):
        lines = [line.lstrip("│├└─ ") for line in run(capsys, "why", "initial", *SEED, "--lang", lang)]
        at = lines.index(rule)
        assert lines[at + 1] == compare and not any(re.fullmatch(r"✗ \d+ < \d+", line) for line in lines), lang
    dot = "\n".join(run(capsys, "why", "initial", *SEED, "--format", "dot"))
    assert 'label="✗ 3 < 3（賊剋第三）"' in dot and "賊剋雖可用" in dot
    with_ids = run(capsys, "why", "initial", *SEED, "--ids")
    assert any(line.endswith("✗ 3 < 3") for line in with_ids)  # a developer reads the comparison as it is


def test_a_prevailing_rule_reads_with_its_values(capsys):
    """The line of a defeasible rule that prevails (「…（勝）」) is the rule's own label filled with the
    values of its application below it, in both languages."""
    zh = run(capsys, "why", "斷", "吉", *RESCUED)
    assert any(line.endswith("⇐ 救神酉（凶居剋地）：用神臨之，戀生解克而無害：主成（勝）") or
               "⇐ 救神酉（凶居剋地）：用神臨之，戀生解克而無害：主成（勝）  «" in line for line in zh), zh[:6]
    en = run(capsys, "why", "斷", "吉", *RESCUED, "--lang", "en")
    assert any("⇐ a rescue, 酉 (凶居剋地): the 用神 stands over it" in line and "(prevails)" in line for line in en)
    for lines, mark in ((run(capsys, "why", "斷", "凶", *SEED, "--matter", "疾病"), "（勝）"),
                        (run(capsys, "why", "斷", "凶", *SEED, "--matter", "疾病", "--lang", "en"), " (prevails)")):
        prevails = [line.split("⇐ ", 1)[1].split("  «")[0] for line in lines if mark in line and "⇐ " in line]
        applied = {line.split("⇐ ", 1)[1].split("  «")[0] for line in lines if "⇐ " in line}
        assert prevails and all(p.removesuffix(mark) in applied for p in prevails), prevails
