"""Disputes drawn on a chart: each conclusion another shipped reading would change, with that
reading's name and what it would conclude instead (``末傳 卯 ⚠ 伏吟末傳（取沖） → 午``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from liuren_logic.disputes import CONCLUSIONS, SETS, disputes, holding_under, reading_name

if TYPE_CHECKING:
    from liuren_logic.chart import Chart

HEADING = {"zh": "異說", "en": "disputed (another reading concludes otherwise)"}
SHOWN = 4  # names of a spirit or pattern list shown before the count of the rest


def dispute_items(chart: "Chart", lang: str = "zh") -> list[str]:
    """Each dispute of the chart as one item, ``末傳 卯 ⚠ 伏吟末傳（取沖） → 午`` ([] when no shipped
    reading changes a conclusion)."""
    items = []
    for d in disputes(chart):
        label = CONCLUSIONS[d.conclusion][0 if lang == "zh" else 1]
        value, alternative = (_names(v, lang) if d.conclusion in SETS else v for v in (d.value, d.alternative))
        items.append(f"{label} {value} ⚠ {reading_name(d.topic, d.reading, lang)} → {alternative}")
    return items


def dispute_lines(chart: "Chart", lang: str = "zh") -> list[str]:
    """The disputes as a lesson's or page's block: a blank line, the heading, an item a line."""
    items = dispute_items(chart, lang)
    return ["", f"{HEADING[lang]}:"] + [f"  {item}" for item in items] if items else []


def _names(text: str, lang: str) -> str:
    names = text.split()
    if len(names) <= SHOWN:
        return text
    rest = len(names) - SHOWN
    return " ".join(names[:SHOWN]) + (f" 等{rest + SHOWN}項" if lang == "zh" else f" … ({rest} more)")


def dispute_data(chart: "Chart") -> list[dict]:
    """``disputes`` of ``cast --json``: {conclusion, value, topic, reading, alternative} each."""
    return [d.to_dict() for d in disputes(chart)]


WOULD = {"zh": "依{reading}，{atom}：{rule}。", "en": "Under the reading {reading}, {atom}: {rule}."}


def reading_lines(chart: "Chart", pred: str, args: tuple, lang: str = "zh") -> list[str]:
    """For a why-not: each other shipped reading under which the atom holds, with the rule that
    derives it there (its first firing, as the why-not's decisive rule)."""
    from liuren_logic.labels import atom_label
    from liuren_logic.provenance import firing_label

    lines = []
    for topic, reading, other in holding_under(chart, pred, args):
        session = other.session
        firing = session.explainer(other.id).firings((pred, tuple(args)))[0]
        atom = atom_label(session.kb.program.preds[pred], args, lang) or f"{pred}{tuple(args)}"
        lines.append(WOULD[lang].format(reading=reading_name(topic, reading, lang), atom=atom,
                                        rule=firing_label(firing, lang)))
    return lines


def readings_first(chart: "Chart", question: str, value: str, lang: str = "zh") -> list[str]:
    """A why-not's first lines (the command's and the app's): :func:`reading_lines` for the question
    (``final`` 午, any chart relation, an atom)."""
    pred, args = chart.session.resolve(chart, question, value)
    return reading_lines(chart, pred, tuple(args), lang)
