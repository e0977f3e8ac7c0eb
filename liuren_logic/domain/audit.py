"""Audits: what another reading of a disputed rule changes, chart by chart.

``compare(a, b)`` casts the same charts in two sessions (two schools, each its own
knowledge base) and lists every conclusion that differs: 三傳, method, names, generals,
and the spirits and patterns where the KB has them. ``explain`` gives, for one chart, the
derivation under each reading, or the why-not where a reading derives nothing.
``follows`` tells which reading each worked case agrees with.

Moments share charts (an hour's two halves, the same hour on days of the same pillars and
months): ``compare`` casts each distinct chart once, ``BATCH`` at a time, and releases a
batch once compared, so a year of hourly moments stays within memory.
"""
from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Callable, Iterable, Optional, Sequence

from .errors import InputError
from .inputs import members
from .jsondata import chart_row
from .session import Session

if TYPE_CHECKING:
    import networkx as nx

BATCH = 1440  # an audit of at most this many distinct charts keeps them all (the day and night table)
CHUNK = 240  # beyond it, charts are cast, compared and released this many at a time (~40 MB a session)
# Measured by benchmarks/dated_audit.py (punishment=seed000, hourly from 2023-01-01, whole process, idle, CPU ≈
# wall; peak RSS in KiB): a year (8760 moments, 4391 charts) 9.0 s and 149,968; 43,000 moments 50.7 s and 248,540;
# 80,000 96.8 s and 360,144; 120,000 161.7 s and 490,128; 108,000 (56,030 charts) with --json 154.4 s and 456,172,
# with --html 129.3 s and 443,928. Each distinct chart's inputs are kept only until its batch is cast, the
# signatures share their facts, and --json and --html are written as they are made; what grows is the changed
# charts' differences and rows, about 3.25 KiB a moment. 108,000 moments stay under 500 MB (488,281 KiB) in every
# report by 30 MB or more, past the spread of about 20 MB seen between runs of the same audit. Since segments keep
# their tails for every batch (passes.memo.SEGMENT_MEMO): 108,000 with --json 112.8 s and 457,996; a year 9.3 s.
MAX_MOMENTS = 108_000
SECONDS_PER_MOMENT = 0.00104  # 112.8 s / 108,000 moments with --json, the slowest report

CONCLUSIONS = ("三傳", "method", "names", "generals", "spirits", "patterns")


LISTS = ("spirits", "patterns")  # conclusions that are sets of names


@dataclass(frozen=True)
class Difference:
    chart: str
    day: str
    hour: str
    offset: Optional[int]
    conclusion: str
    before: str
    after: str
    moments: int = 1  # how many of the audited moments share this chart

    def to_dict(self) -> dict:
        return {**asdict(self), "lost": self.lost(), "gained": self.gained()}

    def lost(self) -> list[str]:
        """For spirits and patterns: the names the second reading no longer derives."""
        return sorted(set(self.before.split()) - set(self.after.split())) if self.conclusion in LISTS else []

    def gained(self) -> list[str]:
        """For spirits and patterns: the names only the second reading derives."""
        return sorted(set(self.after.split()) - set(self.before.split())) if self.conclusion in LISTS else []

    def change(self) -> str:
        if self.conclusion in LISTS:
            return " ".join([f"−{n}" for n in self.lost()] + [f"+{n}" for n in self.gained()])
        return f"{self.before}  →  {self.after}"


@dataclass
class Audit:
    """Every difference between two sessions over the same charts."""

    a: str
    b: str
    charts: int  # moments (or table charts) audited
    differences: list[Difference] = field(default_factory=list)
    distinct: int = 0  # distinct charts among them, each cast once
    rows: list[dict] = field(default_factory=list)  # each changed chart's row under both readings

    def changed(self, conclusion: Optional[str] = None) -> list[str]:
        """Chart ids with a difference (in one conclusion, or in any)."""
        return sorted({d.chart for d in self.differences if conclusion in (None, d.conclusion)})

    def summary(self) -> dict[str, int]:
        """Charts changed, per conclusion (those of an audit limited by :meth:`only` count 0)."""
        counts = Counter()
        for conclusion, charts in _group(self.differences).items():
            counts[conclusion] = len(charts)
        return {c: counts.get(c, 0) for c in CONCLUSIONS}

    def only(self, names: Iterable[str]) -> "Audit":
        """The same audit limited to some conclusions (``三傳``, ``method`` …): their differences, and
        the rows of the charts that still differ."""
        names = set(names)
        kept = [d for d in self.differences if d.conclusion in names]
        changed = {d.chart for d in kept}
        return Audit(self.a, self.b, self.charts, kept, self.distinct,
                     [r for r in self.rows if r["before"]["id"] in changed])

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "charts": self.charts, "distinct": self.distinct or self.charts,
                "changed": len(self.changed()), "summary": self.summary(),
                "differences": [d.to_dict() for d in self.differences], "rows": self.rows}


def _group(differences: Iterable[Difference]) -> dict[str, set]:
    groups = defaultdict(set)
    for d in differences:
        groups[d.conclusion].add(d.chart)
    return groups


def conclusions(chart) -> dict[str, str]:
    """A chart's conclusions as comparable text."""
    kb = chart.session.kb
    shown = {
        "三傳": chart.sanchuan or "—",
        "method": chart.method or "—",
        "names": "·".join(chart.subnames) or "—",
        "generals": " ".join(f"{b}{chart.generals.get(b, '？')}" for b in members(chart.session.base, "branch")),
    }
    for conclusion, pred in (("spirits", "spirit"), ("patterns", "pattern")):
        if pred in kb.program.preds:
            shown[conclusion] = " ".join("".join(map(str, row)) for row in chart.rows(pred)) or "—"
    return shown


def table_inputs(session: Session, times: Sequence[bool] = (True, False)) -> list:
    """The 720 charts (60 days × 12 offsets), by day (hour 午) and by night (hour 子)."""
    pillars = sorted(session.base.query("pillar_index", [None, None, None]), key=lambda r: r[2])
    return [session.offset_input(s + b, o, daytime) for daytime in times for s, b, _ in pillars for o in range(12)]


def moments(start: str, stop: str, step: str) -> list[datetime]:
    """Moments from start to stop (inclusive) every step (``2h``, ``30m``, ``1d``)."""
    units = {"m": "minutes", "h": "hours", "d": "days"}
    try:
        delta = timedelta(**{units[step[-1]]: float(step[:-1])})
    except (KeyError, ValueError, IndexError, OverflowError):
        raise InputError(f"--step {step!r}: expected a step like 2h, 30m or 1d",
                         f"--step 讀不懂「{step}」：應如 2h、30m 或 1d", "step") from None
    try:
        first, last = (datetime.fromisoformat(t.replace(" ", "T")) for t in (start, stop))
    except ValueError:
        raise InputError(f"--from/--to {start!r} … {stop!r}: expected date-times like 2024-01-01 12:00",
                         f"--from/--to 讀不懂「{start}」…「{stop}」：應如 2024-01-01 12:00") from None
    if (first.tzinfo is None) != (last.tzinfo is None):
        raise InputError(f"--from/--to {start!r} … {stop!r}: give a UTC offset on both or on neither",
                         f"--from/--to「{start}」…「{stop}」：與 UTC 之差，兩端都給或都不給")
    if delta <= timedelta(0) or last < first:
        raise InputError(f"the range {start} … {stop} every {step} is empty",
                         f"自 {start} 至 {stop} 每 {step} 一課，一課也沒有")
    count = int((last - first) / delta) + 1
    if count > MAX_MOMENTS:
        raise InputError(f"{count} moments is too many for one audit (at most {MAX_MOMENTS}: "
                         f"about {round(MAX_MOMENTS * SECONDS_PER_MOMENT)} s and 500 MB)",
                         f"{count} 個時刻，一次審核太多（至多 {MAX_MOMENTS} 個：約 "
                         f"{round(MAX_MOMENTS * SECONDS_PER_MOMENT)} 秒、500 MB）")
    return [first + i * delta for i in range(count)]


def compare(a: Session, b: Session, inputs_of: Optional[Callable[[Session], Iterable]] = None,
            progress: Optional[Callable[[int, int], None]] = None, keep: Iterable[str] = ()) -> Audit:
    """Cast the same charts in both sessions and list every conclusion that differs.

    ``inputs_of(session)`` gives a session's chart inputs (default: the 720 charts, day and
    night); it is asked of each session, since a calendar reading can change a chart's inputs.
    Inputs with the same facts under both readings are one chart, cast once (its first
    moment's id, the others counted in ``moments``); only those first inputs are kept, so an
    ``inputs_of`` that yields them one at a time holds the distinct charts' inputs alone.
    ``progress(done, total)`` follows the batches. Past ``BATCH`` distinct charts, each
    ``CHUNK`` is released once compared, except the charts named in ``keep``.
    """
    inputs_of = inputs_of or table_inputs
    keep = set(keep)
    first: dict = {}  # signature under both readings → [the first moment's pair of inputs, how many moments]
    seen: dict = {}  # the facts of the signatures (_signature)
    audited = 0
    for audited, (x, y) in enumerate(zip(inputs_of(a), inputs_of(b)), 1):
        key = ("kept", audited) if x.id in keep else (_signature(x, seen), _signature(y, seen))
        found = first.get(key)
        if found is None:
            first[key] = [(x, y), 1]
        else:
            found[1] += 1
    pending = deque(first.values())  # each batch's inputs are dropped once it is cast
    del first, seen  # nor are the signatures needed past here
    audit = Audit(a.name, b.name, audited, distinct=len(pending))
    release = len(pending) > BATCH
    size = CHUNK if release else BATCH
    while pending:
        part = [pending.popleft() for _ in range(min(size, len(pending)))]
        casts = [a.cast_many([x for (x, _), _ in part])]
        casts.append(b.cast_many([y for (_, y), _ in part], alongside=a))  # what both define alike, derived once
        for before, after, (_, count) in zip(*casts, part):
            _differ(audit, before, after, count)
        if release:
            for session, charts in zip((a, b), casts):
                session.forget([c.id for c in charts if c.id not in keep])
        if progress:
            progress(audit.distinct - len(pending), audit.distinct)
    return audit


def _signature(chart_input, seen: dict) -> tuple:
    """The input's :meth:`~liuren_logic.domain.chart.ChartInput.signature`, each of its facts the one ``seen``
    holds: the signatures an audit keeps share their facts."""
    facts = chart_input.signature()
    return tuple(map(seen.setdefault, facts, facts))


def _differ(audit: Audit, before, after, moments: int) -> None:
    left, right = conclusions(before), conclusions(after)
    changed = [c for c in CONCLUSIONS if c in left and left[c] != right.get(c)]
    for conclusion in changed:
        audit.differences.append(Difference(before.id, before.day, before.hour, before.offset, conclusion,
                                            left[conclusion], right.get(conclusion, "—"), moments))
    if changed:
        audit.rows.append({"before": chart_row(before), "after": chart_row(after)})


def explain(a: Session, b: Session, chart_id: str, question: str = "initial") -> dict[str, "nx.DiGraph"]:
    """One chart's answer to a question under each reading: its derivation, or why nothing is derived."""
    from ..datalog.provenance import Derivable, NotDerivable

    graphs = {}
    for session, other in ((a, b), (b, a)):
        chart, twin = session.chart(chart_id), other.chart(chart_id)
        if chart is None or twin is None:
            raise InputError(f"chart {chart_id!r} was not cast in this audit", f"此次審核未起「{chart_id}」此課", "explain")
        try:
            graphs[session.name] = session.why(chart, question)
        except (InputError, NotDerivable):
            theirs = twin.rows(_RELATION.get(question, question))
            value = theirs[0][0] if theirs else None
            if value is None:
                raise InputError(f"neither reading derives {question} for {chart_id}",
                                 f"兩說皆推不出 {chart_id} 之 {question}") from None
            try:
                graphs[session.name] = session.why_not(chart, question, value)
            except Derivable:
                graphs[session.name] = session.why(chart, question, value)
    return graphs


_RELATION = {"initial": "initial", "middle": "middle", "final": "final", "method": "chosen", "name": "subname"}


@dataclass(frozen=True)
class CaseVerdict:
    case: str
    book: str
    answers: dict  # school → its 三傳
    follows: tuple  # the schools whose 三傳 agree with the book


CASE_FIELDS = ("day", "yuejiang", "hour", "sanchuan")


def follows(sessions: Sequence[Session], cases: Sequence[dict]) -> list[CaseVerdict]:
    """For each worked case (day, yuejiang, hour, sanchuan), which readings give the book's 三傳."""
    verdicts = []
    for number, case in enumerate(cases, 1):
        if not isinstance(case, dict):
            raise InputError(f"case {number}: expected an object with day, yuejiang, hour and sanchuan",
                             f"第 {number} 例應為一個物件，含 day、yuejiang、hour 與 sanchuan")
        for name in CASE_FIELDS:
            value = case.get(name)
            if not (isinstance(value, str) or name == "sanchuan" and isinstance(value, list)
                    and all(isinstance(v, str) for v in value)):
                raise InputError(f"case {case.get('seq', number)!s:.40}: {name} is missing or not text",
                                 f"第 {case.get('seq', number)!s:.40} 例：{name} 缺，或不是文字")
        day, jiang, hour, book = (case[name] for name in CASE_FIELDS)
        book = "".join(book)
        try:
            charts = {s.name: s.cast(day, jiang, hour) for s in sessions}
        except InputError as error:
            raise InputError(f"case {case.get('seq', number)!s:.40}: {error}",
                             f"第 {case.get('seq', number)!s:.40} 例：{error.said('zh')}") from None
        answers = {name: chart.sanchuan for name, chart in charts.items()}
        for chart in charts.values():  # read: let go, so that memory does not grow with the cases
            chart.session.forget([chart.id])
        label = f"{case.get('seq', len(verdicts) + 1)} {day} {jiang}將{hour}時"
        verdicts.append(CaseVerdict(label, book, answers, tuple(n for n, a in answers.items() if a == book)))
    return verdicts


# The report's words: a conclusion's name, the summary, the table's head.
CONCLUSION_NAMES = {"zh": {"三傳": "三傳", "method": "課法", "names": "課名", "generals": "天將", "spirits": "神煞",
                           "patterns": "課格"},
                    "en": {"三傳": "三傳", "method": "method", "names": "names", "generals": "generals",
                           "spirits": "spirits", "patterns": "patterns"}}


def conclusion_name(conclusion: str, lang: str) -> str:
    """A conclusion an audit compares, by its name in the language."""
    return CONCLUSION_NAMES[lang].get(conclusion, conclusion)


