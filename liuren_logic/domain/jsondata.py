"""Every command's ``--json``, one versioned schema (``liuren_logic/schemas/``, JSON Schema 2020-12).

A transmission, a lesson, a spirit, a pattern and a chart id are the same objects whichever
command prints them; the calendar is data (pillars, 節 and 中氣 with RFC 3339 instants,
the lunar month), its readable reasons kept apart under ``reasons``; a derivation's nodes
carry ``args`` as an array, ``bindings`` as an object (the graph keeps both as JSON texts, for
GraphML), ``source`` as ``{book, line}`` and ``where`` as ``{file, line}`` or ``{given: …}``. ``--simplified`` touches only the prose (``DISPLAY``
fields), never an id or a value. Each document names its schema and ``schema_version``.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from ..datalog.script import simplified

if TYPE_CHECKING:
    import networkx as nx

    from .chart import Chart, Lesson, Transmission

SCHEMA_VERSION = "1.3"  # 1.2: a spirit says whether it is a day mark; 1.3: a chart's judgement (斷) and disputes
DISPLAY = frozenset({"zh", "en", "text", "reasons", "title"})  # prose: the fields --simplified may change
_WHERE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


def document(kind: str, body: dict) -> dict:
    """A top-level document: which schema it follows (``schemas/<kind>.schema.json``), then the body."""
    return {"schema": f"liuren-logic/{kind}", "schema_version": SCHEMA_VERSION, **body}


def transmission(t: "Transmission") -> dict:
    return {"position": t.position, "branch": t.branch, "general": t.general, "hidden_stem": t.hidden_stem,
            "kin": t.kin, "void": t.void, "strength": t.strength, "stage": t.stage}


def lesson(item: "Lesson") -> dict:
    return {"number": item.number, "upper": item.upper, "lower": item.lower, "general": item.general}


def spirit(where: str, branch: str, name: str, mark: bool) -> dict:
    """A 神煞 where it shows; ``mark``: it is also a day mark (日祿, 日德), so under ``marks`` too."""
    return {"where": where, "branch": branch, "spirit": name, "mark": mark}


def pattern(group: str, name: str) -> dict:
    return {"group": group, "pattern": name}


def calendar(moment) -> dict:
    """A dated chart's calendar inputs as data; the sentences that justify them under ``reasons``."""
    def term(t) -> dict:
        return {"name": t.name, "at": t.instant.isoformat()}

    def instant(value) -> Optional[str]:
        return None if value is None else value.isoformat()

    return {"moment": moment.local.isoformat(), "clock": moment.clock.isoformat(),
            "pillars": {"year": moment.year_pillar, "month": moment.month_pillar, "day": moment.day_pillar,
                        "hour": moment.hour_pillar},
            "jie": term(moment.jie), "zhongqi": term(moment.qi), "term": {**term(moment.term), "is_qi": moment.term.is_qi},
            "lunar_month": {"number": moment.lunar_month, "leap": moment.lunar_leap},
            "daytime": moment.daytime, "sunrise": instant(moment.sunrise), "sunset": instant(moment.sunset),
            "reasons": moment.reasons()}


def chart_row(chart: "Chart") -> dict:
    """What identifies a chart and what it concludes in brief: a row of ``table``."""
    return {"id": chart.id, "day": chart.day, "jiang": chart.jiang, "hour": chart.hour, "offset": chart.offset,
            "daytime": chart.daytime, "method": chart.method, "names": chart.subnames, "sanchuan": chart.sanchuan,
            "transmissions": [transmission(t) for t in chart.transmissions]}


def where(origin) -> Optional[dict]:
    """``kb/x.dl:12`` → ``{file, line}``; a run-time fact's reason (``given: day 辛巳``) → ``{given: …}``."""
    if origin is None:
        return None
    match = _WHERE.match(str(origin))
    if match:
        return {"file": match["file"], "line": int(match["line"])}
    return {"given": str(origin).removeprefix("given: ")}


def source(text: str) -> Optional[dict]:
    """``000: 取課先從下賊呼`` → ``{book: "000", line: "取課先從下賊呼"}``."""
    if not text:
        return None
    book, sep, line = text.partition(": ")
    return {"book": book, "line": line} if sep else {"book": "", "line": text}


def derivation(graph: "nx.DiGraph", chart: Optional[str] = None) -> dict:
    """A derivation graph as node-link data (``directed``, ``graph``, ``nodes``, ``edges``)."""
    import networkx as nx

    from ..datalog.provenance import arguments, bindings

    data = nx.node_link_data(graph, edges="edges")
    for node in data["nodes"]:
        if "args" in node:
            node["args"] = arguments(node)
        if "bindings" in node:
            node["bindings"] = bindings(node)
        if "where" in node:
            node["where"] = where(node["where"])
        if "source" in node:
            node["source"] = source(node["source"])
    return document("derivation", {"chart": chart, **data})


def display_only(data, simplify: bool):
    """``data`` with the prose fields (``DISPLAY``) in simplified characters when asked; nothing else changes."""
    if not simplify:
        return data

    def walk(value, prose: bool):
        if isinstance(value, dict):
            return {k: walk(v, prose or k in DISPLAY) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, prose) for v in value]
        return simplified(value) if prose and isinstance(value, str) else value

    return walk(data, False)


def lesson_document(chart: "Chart", steps, lang: str, follows: dict | None = None) -> dict:
    """``teach --json``: the chart's id and its numbered steps, each seed line as ``{book, line}``;
    under another reading, what it follows (topic → its reading and the school's own)."""
    extra = {"follows": {t: {"reading": r, "default": d} for t, (r, d) in follows.items()}} if follows else {}
    return document("lesson", {"chart": chart.id, "lang": lang, **extra, "steps": [
        {**step.as_dict(), "sources": [source(s) for s in step.sources]} for step in steps]})
