"""Disputes drawn on a chart: each conclusion another shipped reading would change, with that
reading's name and what it would conclude instead (``末傳 卯 ⚠ 伏吟末傳（取沖） → 午``).

On the board a dispute is a mark on the conclusion it changes (:func:`dispute_marks`): a
transmission's row, the 貴人 and its direction in the header, the method and the 課體 in the
課體 section; what a reading changes in the sets of 課格 and 神煞 is summed up per reading
(:func:`summed_up`, with the hidden stems), names when they are few, counts when they are many."""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from liuren_logic.domain.disputes import CONCLUSIONS, SETS, Dispute, disputes, holding_under
from liuren_logic.domain.school import reading_name

if TYPE_CHECKING:
    from liuren_logic.domain.chart import Chart

HEADING = {"zh": "異說", "en": "disputed (another reading concludes otherwise)"}
SHOWN = 4  # names of a spirit or pattern list shown before the count of the rest
NAMED = 2  # a set's change named when it is this many names or fewer, counted otherwise
TRANSMISSIONS = ("initial", "middle", "final")
SUMMED = ("patterns", "spirits")  # the sets summed up per reading
HEADER = ("noble", "direction")  # the conclusions marked in the header


def dispute_items(chart: "Chart", lang: str = "zh") -> list[str]:
    """Each dispute of the chart as one item, ``末傳 卯 ⚠ 伏吟末傳（取沖） → 午`` ([] when no shipped
    reading changes a conclusion)."""
    return [_item(d, lang) for d in disputes(chart)]


def _item(d: Dispute, lang: str) -> str:
    label = CONCLUSIONS[d.conclusion][0 if lang == "zh" else 1]
    value, alternative = (_names(v, lang) if d.conclusion in SETS else v for v in (d.value, d.alternative))
    return f"{label} {value} ⚠ {reading_name(d.topic, d.reading, lang)} → {alternative}"


def dispute_marks(chart: "Chart", lang: str = "zh") -> dict[str, list[str]]:
    """The board's marks, by the conclusion they stand on: a transmission's mark is its whole item
    (``末傳 卯 ⚠ 伏吟末傳（取沖） → 午``), a header's or 課體's ``⚠ 貴人（甲羊） → 寅`` and
    ``⚠ 三交課（課經） −三交`` (the header's by the reading's own name: ``貴人 午 ⚠ 甲羊 → 寅``,
    as the line is full and the topic is the conclusion's). The sets of 課格 and 神煞 and the hidden
    stems are left to :func:`summed_up`."""
    found = disputes(chart)
    renamed: dict[tuple, set] = defaultdict(set)  # the method's names a reading changes, marked on the method
    for d in found:
        if d.conclusion in ("method", "names"):
            renamed[d.topic, d.reading] |= set(f"{d.value}·{d.alternative}".split("·"))
    marks: dict[str, list[str]] = defaultdict(list)
    for d in found:
        if d.conclusion == "keti":
            d = _without(d, renamed[d.topic, d.reading])
        if d is None or d.conclusion in SUMMED:
            continue
        reading = reading_name(d.topic, d.reading, lang, bare=d.conclusion in HEADER)
        if d.conclusion in TRANSMISSIONS:
            marks[d.conclusion].append(_item(d, lang))
        elif d.conclusion in SETS:
            marks[d.conclusion].append(f"⚠ {reading} {_change(d)}")
        else:
            marks[d.conclusion].append(f"⚠ {reading} → {d.alternative}")
    return dict(marks)


def _without(d: Dispute, names: set) -> Dispute | None:
    """A set's dispute without the names in ``names`` (None when nothing else changes)."""
    lost, gained = (" ".join(n for n in v.split() if n not in names) for v in (d.value, d.alternative))
    if not (lost or gained):
        return None
    return Dispute(d.conclusion, lost or "—", d.topic, d.reading, gained or "—")


def summed_up(chart: "Chart", lang: str = "zh") -> dict[str, list[str]]:
    """What each reading changes in the hidden stems, the 課格 and the 神煞, reading by reading:
    ``旬空遁干（取下旬）`` → ``三傳遁干 —癸癸 → 乙癸癸``; ``貴人（甲羊）`` → ``課格 −16 +12``. A change of
    the hidden stems that comes with a transmission's (under the same reading) goes without saying."""
    found = disputes(chart)
    moved = {(d.topic, d.reading) for d in found if d.conclusion in TRANSMISSIONS}
    changes: dict[str, list[str]] = defaultdict(list)
    for d in sorted(found, key=lambda d: SUMMED.index(d.conclusion) if d.conclusion in SUMMED else -1):
        label = CONCLUSIONS[d.conclusion][0 if lang == "zh" else 1]
        if d.conclusion in SUMMED:
            changes[reading_name(d.topic, d.reading, lang)].append(f"{label} {_change(d)}")
        elif d.conclusion == "hidden_stems" and (d.topic, d.reading) not in moved:
            changes[reading_name(d.topic, d.reading, lang)].append(f"{label} {d.value} → {d.alternative}")
    return dict(changes)


def _change(d: Dispute) -> str:
    """``−三交 +盤珠`` (the names lost and gained), or ``−14 +13`` when there are more than NAMED."""
    lost, gained = ([] if v == "—" else v.split() for v in (d.value, d.alternative))
    named = len(lost) + len(gained) <= NAMED
    return " ".join(sign + (" ".join(names) if named else str(len(names)))
                    for sign, names in (("−", lost), ("+", gained)) if names)


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
    from liuren_logic.datalog.labels import atom_label
    from liuren_logic.datalog.provenance import firing_label

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
