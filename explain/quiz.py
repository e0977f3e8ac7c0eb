"""A trainer: the student sees a chart's 天地盤 and 四課 and is asked its method, then the initial,
middle and final transmissions (and, if asked for, one of its 課體 among four names). A wrong answer is met with the contrastive why-not for the
student's choice (:func:`contrast.answer`: 「你選丑：丑臨巳無剋…」) and the steps of the lesson that
derive the right one; a :class:`Score` counts a session's answers. Charts are drawn at random
from the 720, or from those a method decides (the teacher's pick).

The questions and their answers are the chart's conclusions (``chosen``, ``transmission``); the
choices are the KB's methods (``method_order``) and branches: nothing here decides the domain.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from liuren_logic.domain.errors import InputError
from liuren_logic.domain.inputs import members

from .board import header_section, lessons_section, plates_section, section_lines
from .cells import Section
from .contrast import answer
from .glossary import glossary, glossed_lines, short
from .lesson import CONCLUSION_STEPS, Step, lesson_steps

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart
    from liuren_logic.domain.session import Session

QUESTIONS = ("method", "initial", "middle", "final")
KETI_CHOICES = 4  # the 課體 question: one of the chart's 課體 among names it is not
WORDS = {
    "zh": {"method": "此課以何法取初傳？", "initial": "初傳為何？", "middle": "中傳為何？", "final": "末傳為何？", "keti": "下列何者為此課之課體？",
           "right": "對：{answer}。", "wrong": "不對，是{answer}。", "chose": "你選{choice}：", "score": "得分：{right}／{asked}",
           "steps": "講解第{number}步 {title}：{text}", "choices": "可選：{choices}", "none": "（無此法所定之課）",
           "accepted": "請答 1–{last} 之數，或選項之名：{names}", "sep": "、"},
    "en": {"method": "Which method takes this chart's initial?", "initial": "Which is the initial transmission?",
           "middle": "Which is the middle transmission?", "final": "Which is the final transmission?",
           "keti": "Which of these is a 課體 of this chart?", "right": "Right: {answer}.", "wrong": "Not so: it is {answer}.", "chose": "You chose {choice}: ",
           "score": "score: {right}/{asked}", "steps": "Lesson step {number}, {title}: {text}",
           "choices": "choices: {choices}", "none": "(no chart is decided by that method)",
           "accepted": "Answer with a number 1–{last} or an option's name: {names}", "sep": ", "},
}


@dataclass
class Verdict:
    """What the trainer says to one answer: right or not, the right answer, the why-not for the
    student's choice (empty when right) and the lesson's steps (numbered as in the lesson)."""

    question: str
    choice: str
    answer: str
    right: bool
    why_not: list[str] = field(default_factory=list)
    steps: list[tuple[int, Step]] = field(default_factory=list)

    def lines(self, lang: str) -> list[str]:
        w = WORDS[lang]
        if self.right:
            return [w["right"].format(answer=self.answer)]
        said = [w["wrong"].format(answer=self.answer)]
        if self.why_not:
            said.append(w["chose"].format(choice=self.choice) + " ".join(self.why_not))
        return said + [w["steps"].format(number=i, title=s.title, text=s.text) for i, s in self.steps]

    def as_dict(self) -> dict:
        return {"question": self.question, "choice": self.choice, "answer": self.answer, "right": self.right,
                "why_not": self.why_not, "steps": [{"number": i, "key": s.key, "title": s.title, "text": s.text}
                                                   for i, s in self.steps]}


@dataclass
class Score:
    """A session's answers: how many asked, how many right."""

    asked: int = 0
    right: int = 0

    def add(self, verdict: Verdict) -> None:
        self.asked += 1
        self.right += verdict.right

    def line(self, lang: str) -> str:
        return WORDS[lang]["score"].format(right=self.right, asked=self.asked)


def methods(session: "Session") -> list[str]:
    """The methods in the order they are tried (``method_order``)."""
    return [m for m, _ in sorted(session.base.query("method_order", [None, None]), key=lambda r: r[1])]


def choices(chart: "Chart", question: str, rng: Optional[random.Random] = None) -> list[str]:
    """What the student picks from: the methods, or the twelve branches; for the 課體, every name
    the KB knows, or (drawn with ``rng``) one of the chart's among KETI_CHOICES - 1 it is not."""
    base = chart.session.base
    if question == "method":
        return methods(chart.session)
    if question != "keti":
        return list(members(base, "branch"))
    names = list(members(base, "keti"))
    if rng is None:
        return names
    own = [k for k in chart.keti if k not in (chart.method, *chart.subnames)] or chart.keti
    drawn = [rng.choice(own)] + rng.sample([k for k in names if k not in chart.keti], KETI_CHOICES - 1)
    return sorted(drawn, key=names.index)


def truth(chart: "Chart", question: str) -> str:
    """The chart's own answer: its method, the branch of a transmission, or its 課體."""
    if question == "method":
        return chart.method or "—"
    if question == "keti":
        return "·".join(chart.keti)
    return chart.transmissions[QUESTIONS.index(question) - 1].branch if chart.transmissions else "—"


def questions(chart: "Chart", keti: bool = False) -> list[str]:
    """The questions a chart can be asked: all four of a decided chart (and the 課體 with ``keti``),
    none of an undecided one."""
    if chart.method is None or not chart.transmissions:
        return []
    return list(QUESTIONS) + (["keti"] if keti and chart.keti else [])


def check(chart: "Chart", question: str, choice: str, lang: str = "zh") -> Verdict:
    """The verdict on ``choice``: when wrong, the short why-not of the choice and the lesson's steps."""
    if question not in (*QUESTIONS, "keti"):
        raise InputError(f"unknown quiz question {question!r} (one of {', '.join(QUESTIONS)}, keti)",
                         f"練習無此問「{question}」")
    if choice not in choices(chart, question):
        raise InputError(f"{choice!r} is not a choice for {question} ({' '.join(choices(chart, question))})",
                         f"「{choice}」不在選項之中（{' '.join(choices(chart, question))}）")
    right = truth(chart, question)
    if choice == right or (question == "keti" and choice in chart.keti):
        return Verdict(question, choice, right, True)
    keys = CONCLUSION_STEPS[question]
    steps = [(i, s) for i, s in enumerate(lesson_steps(chart, lang, glossed=False), 1) if s.key in keys]
    return Verdict(question, choice, right, False, answer(chart, question, choice, lang).lines, steps)


def said(chart: "Chart", verdict: Verdict, lang: str = "zh", seen: Optional[set] = None) -> list[str]:
    """The verdict's lines as the trainer says them: in English each term glossed at its first use, as
    the board and lesson do (in these lines, or with ``seen`` since the chart's earlier verdicts)."""
    lines = verdict.lines(lang)
    return glossed_lines(chart.session, lines, seen) if lang == "en" else lines


def shown(chart: "Chart", lang: str = "zh") -> list[Section]:
    """What the student sees: the header's first line, the 天地盤 and the 四課 (no 三傳, no 課體)."""
    head = header_section(chart, lang, {})
    return [Section(head.key, head.title, head.rows[:1], head.sep),
            plates_section(chart, lang, {}), lessons_section(chart, lang, {})]


def shown_text(chart: "Chart", lang: str = "zh") -> str:
    return "\n".join(line for s in shown(chart, lang) for line in section_lines(s))


def draw(session: "Session", rng: random.Random, method: Optional[str] = None) -> "Chart":
    """A chart of the 720 (a day pillar and an offset, by day) at random; with ``method``, one
    that method decides."""
    if method is not None and method not in methods(session):
        raise InputError(f"unknown method {method!r} (one of {' '.join(methods(session))})",
                         f"無此課法「{method}」（{' '.join(methods(session))}）")
    pillars = sorted(session.base.query("pillar_index", [None, None, None]), key=lambda r: r[2])
    pairs = [(s + b, o) for s, b, _ in pillars for o in range(12)]
    rng.shuffle(pairs)
    for day, offset in pairs:
        chart = session.cast_offset(day, offset)
        if questions(chart) and method in (None, chart.method):
            return chart
    raise InputError(f"no chart of the 720 is decided by {method}", f"七百二十課無一以{method}定")


def read_choice(options: list[str], text: str) -> Optional[str]:
    """The student's answer as one of the options: the name itself, or its number in the list."""
    text = text.strip()
    if text in options:
        return text
    return options[int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(options) else None


def run(session: "Session", lang: str, ask, say, chart: Optional["Chart"] = None, rounds: int = 1,
        method: Optional[str] = None, seed: Optional[int] = None, keti: bool = False) -> Score:
    """A session at the terminal: ``rounds`` charts (``chart``, or drawn), each asked the four
    questions in order (and a 課體 with ``keti``); ``ask(prompt)`` reads an answer (EOFError ends the session), ``say``
    writes. An answer that is no choice is asked again. Returns the score."""
    w, score, rng = WORDS[lang], Score(), random.Random(seed)
    glosses = glossary(session) if lang == "en" else {}  # each option with its English
    try:
        for _ in range(rounds):
            current = chart or draw(session, rng, method)
            say(shown_text(current, lang))
            seen: set[str] = set()  # the terms glossed in this chart's verdicts
            for question in questions(current, keti):
                options = choices(current, question, rng)
                listed = " ".join(f"{i}.{o}" + (f" ({short(glosses[o])})" if o in glosses else "")
                                  for i, o in enumerate(options, 1))
                say(f"{w[question]} {w['choices'].format(choices=listed)}")
                choice = read_choice(options, ask("> "))
                while choice is None:  # an answer that is no choice: say what is accepted, ask again
                    say(w["accepted"].format(last=len(options), names=w["sep"].join(options)))
                    choice = read_choice(options, ask("> "))
                verdict = check(current, question, choice, lang)
                score.add(verdict)
                say("\n".join(said(current, verdict, lang, seen)))
            say("")
    except EOFError:
        pass
    say(score.line(lang))
    return score
