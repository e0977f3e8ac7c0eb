"""Disputes drawn on a chart: each conclusion another shipped reading would change, with that
reading's name and what it would conclude instead (``末傳 卯 ⚠ 伏吟末傳（取沖） → 午``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from liuren_logic.disputes import CONCLUSIONS, SETS, disputes, reading_name

if TYPE_CHECKING:
    from liuren_logic.chart import Chart

HEADING = {"zh": "異說", "en": "disputed (another reading concludes otherwise)"}
SHOWN = 4  # names of a spirit or pattern list shown before the count of the rest


def dispute_lines(chart: "Chart", lang: str = "zh") -> list[str]:
    """The board's section of disputes ([] when no shipped reading changes a conclusion)."""
    found = disputes(chart)
    if not found:
        return []
    lines = ["", f"{HEADING[lang]}:"]
    for d in found:
        label = CONCLUSIONS[d.conclusion][0 if lang == "zh" else 1]
        value, alternative = (_names(v, lang) if d.conclusion in SETS else v for v in (d.value, d.alternative))
        lines.append(f"  {label} {value} ⚠ {reading_name(d.topic, d.reading, lang)} → {alternative}")
    return lines


def _names(text: str, lang: str) -> str:
    names = text.split()
    if len(names) <= SHOWN:
        return text
    rest = len(names) - SHOWN
    return " ".join(names[:SHOWN]) + (f" 等{rest + SHOWN}項" if lang == "zh" else f" … ({rest} more)")


def dispute_data(chart: "Chart") -> list[dict]:
    """``disputes`` of ``cast --json``: {conclusion, value, topic, reading, alternative} each."""
    return [d.to_dict() for d in disputes(chart)]
