"""The trainer (issue 31, item 3): the method, then the initial, middle and final; a wrong answer
gets the why-not for the student's choice and the lesson's steps; a score per session."""
from __future__ import annotations

import io
import random
import re

import pytest

from liuren_logic.faces.cli import main
from liuren_logic.explain import quiz

CHART = ["--day", "辛巳", "--jiang", "寅", "--hour", "午"]


def teach(capsys, monkeypatch, answers: str, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    monkeypatch.setenv("COLUMNS", "1000")  # the verdicts' sentences compared whole, unwrapped
    code = main(["teach", "--quiz", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_session_at_the_terminal(capsys, monkeypatch):
    # 涉害 (wrong), 午 (right), 申 (wrong), "x" (no choice: asked again), 11 = 戌 (right, by its number)
    code, out, err = teach(capsys, monkeypatch, "涉害\n午\n申\nx\n11\n", *CHART)
    assert code == 0 and err == ""
    assert "四課:" in out and "天地盤:" in out and "三傳" not in out.split("此課以何法")[0]  # the answer is not shown
    assert out.count("此課以何法取初傳？") == 1 and out.count("末傳為何？") == 1
    assert "不對，是賊剋。\n你選涉害：此課以賊剋定。" in out  # the contrastive why-not of the choice
    assert "講解第4步 定法：" in out  # ... and the lesson's step, numbered as in the lesson
    assert "對：午。" in out and "不對，是寅。\n你選申：" in out and "講解第7步 中傳、末傳：" in out
    assert out.count("末傳為何？") == 1 and out.count("> ") == 5 and "對：戌。" in out
    assert "> 請答 1–12 之數，或選項之名：子、丑、寅、卯" in out  # the invalid entry answered with what is accepted
    assert out.rstrip().endswith("得分：2／4")


def test_the_input_closing_ends_the_session_with_its_score(capsys, monkeypatch, session):
    from liuren_logic.explain.glossary import glossary

    code, out, _ = teach(capsys, monkeypatch, "3\n", *CHART, "--lang", "en")
    right = f"Right: 賊剋 ({glossary(session)['賊剋']})."  # glossed at its first use
    assert code == 0 and right in out and out.rstrip().endswith("score: 1/1")


def test_charts_of_the_teachers_method_drawn_the_same_for_a_seed(capsys, monkeypatch, session):
    first = teach(capsys, monkeypatch, "", "--method", "涉害", "--seed", "4", "--rounds", "2")[1]
    again = teach(capsys, monkeypatch, "", "--method", "涉害", "--seed", "4", "--rounds", "2")[1]
    assert first == again and first.rstrip().endswith("得分：0／0")
    drawn = {quiz.draw(session, random.Random(seed), "涉害").method for seed in range(5)}
    assert drawn == {"涉害"}
    days = {quiz.draw(session, random.Random(seed)).id for seed in range(6)}
    assert len(days) > 1  # at random, not one chart


@pytest.mark.parametrize("argv, words", [
    (["--method", "涉"], "unknown method '涉'"), ([*CHART, "--method", "涉害"], "not both"),
    ([*CHART, "--rounds", "0"], "--rounds 0")])
def test_bad_input_is_one_line(capsys, monkeypatch, argv, words):
    code, out, err = teach(capsys, monkeypatch, "", *argv, "--lang", "en")
    assert code == 2 and words in err and err.count("\n") == 1


def test_every_wrong_choice_is_answered_with_its_own_why_not(session):
    chart = session.cast("辛巳", "寅", "午")
    for question in quiz.QUESTIONS:
        right = quiz.truth(chart, question)
        assert right == {"method": "賊剋", "initial": "午", "middle": "寅", "final": "戌"}[question]
        for choice in quiz.choices(chart, question):
            verdict = quiz.check(chart, question, choice)
            assert verdict.right == (choice == right) and verdict.answer == right
            if verdict.right:
                assert not verdict.why_not and not verdict.steps
                continue
            assert verdict.why_not and choice in " ".join(verdict.why_not), (question, choice)
            numbers = [i for i, _ in verdict.steps]
            assert numbers and all(re.match(rf"講解第{i}步", line) for i, line in
                                   zip(numbers, verdict.lines("zh")[-len(numbers):]))
    with pytest.raises(Exception, match="not a choice"):
        quiz.check(chart, "initial", "甲")


def test_the_keti_question_one_of_the_charts_among_names_it_is_not(capsys, monkeypatch, session):
    chart = session.cast("辛巳", "寅", "午")
    for seed in range(5):
        options = quiz.choices(chart, "keti", random.Random(seed))
        assert len(options) == quiz.KETI_CHOICES and len(set(options) & set(chart.keti)) == 1
    wrong = next(k for k in quiz.choices(chart, "keti") if k not in chart.keti)
    verdict = quiz.check(chart, "keti", wrong)
    assert not verdict.right and wrong in " ".join(verdict.why_not) and verdict.steps[0][1].key == "keti"
    assert quiz.check(chart, "keti", "天網").right
    code, out, _ = teach(capsys, monkeypatch, "3\n7\n3\n11\n", *CHART, "--keti", "--seed", "2")
    assert code == 0 and "下列何者為此課之課體？" in out and out.rstrip().endswith("得分：4／4")


def test_the_english_verdicts_gloss_each_term_at_its_first_use(capsys, monkeypatch, session):
    """As the board and lesson do: 賊剋 glossed where a chart's verdicts first say it, then never again
    (the lesson's steps quoted in the verdict do not gloss it a second time); the app's verdict too."""
    from liuren_logic.explain.app import quiz_verdict
    from liuren_logic.explain.glossary import glossary

    glosses = glossary(session)
    zeike, shehai = f"賊剋 ({glosses['賊剋']})", f"涉害 ({glosses['涉害']})"
    code, out, _ = teach(capsys, monkeypatch, "涉害\n午\n申\n11\n", *CHART, "--lang", "en")
    verdicts = out[out.index("> "):]
    assert code == 0 and f"Not so: it is {zeike}.\nYou chose {shehai}: 賊剋 decides" in verdicts
    assert verdicts.count("賊剋 (") == 1 and verdicts.count("涉害 (") == 1, verdicts
    assert verdicts.count(f"官鬼 ({glosses['官鬼']})") == 1 and "伏吟 (" in verdicts
    chart = session.cast("辛巳", "寅", "午")
    shown = quiz_verdict(chart, "method", "涉害", "en")
    assert shown["lines"][:2] == [f"Not so: it is {zeike}.", f"You chose {shehai}: 賊剋 decides this chart. "
                                  "涉害: 午 is the only candidate: 賊剋 takes it, 涉害 is not needed."]
    assert zeike in shown["html"] and shown["answer"] == "賊剋"
    assert quiz_verdict(chart, "method", "涉害", "zh")["lines"] == quiz.check(chart, "method", "涉害").lines("zh")
