"""Disputes on one chart: the conclusions another shipped reading of a disputed topic would change.

For each topic of the chart's school and each other reading of it (``kb/variants/<topic>/``),
the chart is cast again under the school with that one reading swapped, as an audit does, and
its conclusions compared. A reading is cast only when it can touch the chart: a rule of the
school's file or of the other file could fire on it. A rule cannot fire when a premise that no
rule of either file can change (a chart relation outside both files' reach, say
``chosen(C, 伏吟)``) has no row on the chart that fits it. The readings of the calendar
(``day_boundary``, ``hours``) and a user's own files are not weighed.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator

from ..datalog import cache
from ..datalog import syntax as S
from ..datalog.digraph import descendants
from .errors import InputError
from ..datalog.labels import with_id
from .school import CALENDAR_READINGS, kb_root, names, parsed, reading_file, reading_name

if TYPE_CHECKING:
    from .chart import Chart
    from .session import Session

# The conclusions compared, in the order the board shows them: id → (zh, en).
CONCLUSIONS = {
    "initial": ("初傳", "initial"), "middle": ("中傳", "middle"), "final": ("末傳", "final"),
    "method": ("課法", "method"), "names": ("課名", "names"), "keti": ("課體", "課體"),
    "noble": ("貴人", "noble"), "direction": ("天將順逆", "direction"),
    "hidden_stems": ("三傳遁干", "hidden stems"), "spirits": ("神煞", "spirits"), "patterns": ("課格", "patterns"),
}
SETS = ("keti", "spirits", "patterns")  # conclusions that are sets of names: the value and alternative say what differs


@dataclass(frozen=True)
class Dispute:
    conclusion: str   # an id of CONCLUSIONS
    value: str        # what the chart's school concludes
    topic: str
    reading: str      # the other reading, under which
    alternative: str  # it concludes this instead

    def to_dict(self) -> dict:
        return asdict(self)


def school_name(school, lang: str = "zh", brief: bool = False) -> str:
    """A school (a School, or a session's name such as ``default+punishment=seed000``) as readers know
    it: its name in the language (its id where it has none), and each reading it takes in place of
    its own by that reading's name (``with_readings`` writes them into the id as ``+topic=reading``);
    ``brief``: by its short name (``zh_short`` in its file: a board's header, a column); the id beside
    it under ``--ids``."""
    from .school import read_school

    name = school if isinstance(school, str) else school.name
    base, *swapped = name.split("+")
    if isinstance(school, str):
        try:
            labels = read_school(base).labels
        except InputError:  # a school of the user's not at hand: its id
            labels = {}
    else:
        labels = school.labels
    readings = [reading_name(*part.split("=", 1), lang) for part in swapped if "=" in part]
    said = labels.get(f"{lang}_short", labels.get(lang, base)) if brief else labels.get(lang, base)
    shown = ("、" if lang == "zh" else ", ").join([said, *readings])
    return with_id(shown, name, " ")


def conclusions(chart: "Chart") -> dict[str, object]:
    """The chart's conclusions a reading can change (text, or a set of names for SETS)."""
    kb = chart.session.kb
    sanchuan = chart.sanchuan or "———"
    shown = {"initial": sanchuan[0], "middle": sanchuan[1], "final": sanchuan[2],
             "method": chart.method or "—", "names": "·".join(chart.subnames) or "—",
             "keti": frozenset(chart.keti), "noble": chart.noble or "—", "direction": chart.direction or "—",
             "hidden_stems": "".join(t.hidden_stem or "—" for t in chart.transmissions)}
    for conclusion, pred in (("spirits", "spirit"), ("patterns", "pattern")):
        if pred in kb.program.preds:
            shown[conclusion] = frozenset("".join(map(str, row)) for row in chart.rows(pred))
    return shown


def disputes(chart: "Chart") -> list[Dispute]:
    """Every conclusion of the chart that another shipped reading of one topic changes, topic by topic
    (none for a knowledge base with a user's own files, which the other readings would lack).

    Kept in :mod:`.cache` under the bytes of every KB file and the chart's inputs: a chart seen before
    loads no other reading."""
    school = chart.session.kb.school
    files = school.files(kb_root()) if school is not None else []
    if school is None or len(chart.session.kb.program.modules) != len(files):
        return []
    variants = sorted((kb_root() / "variants").glob("*/*.dl"))
    name = cache.entry_name(b"disputes", school.name.encode(), *(p.read_bytes() for p in files + variants),
                            repr(chart.inputs.signature()).encode())
    return cache.entry(name, lambda: _disputes(chart, school), lambda found: cache.dumps([d.to_dict() for d in found]),
                       lambda payload: [Dispute(**d) for d in json.loads(payload)])


def _disputes(chart: "Chart", school) -> list[Dispute]:
    from .turns import in_time  # threads and futures: only when the readings are weighed, not on a warm cast

    mine = conclusions(chart)
    found = []
    given = {pred for pred, _, _ in chart.inputs.facts()}
    for topic, reading in other_readings(school):
        wanted = {d.name for d in module(reading_file(kb_root(), topic, reading)).preds if d.input}
        if wanted and not wanted & given:
            continue  # a reading that needs input the chart was not given (daynight=sun: the sun)
        if not _touches(chart, topic, reading):
            continue
        in_time()  # each reading is a cast: the app's deadline is checked between them
        other = _cast_under(chart, school.with_readings({topic: reading}))
        if other is None:
            continue
        theirs = conclusions(other)
        other.session.forget([other.id])  # read once: kept, every chart would stay in every other reading's session
        for key in CONCLUSIONS:
            if key in mine and mine[key] != theirs.get(key):
                found.append(_dispute(key, mine[key], theirs.get(key), topic, reading))
    order = list(CONCLUSIONS)
    return sorted(found, key=lambda d: order.index(d.conclusion))  # stable: topics in order within each


def _dispute(key: str, value, alternative, topic: str, reading: str) -> Dispute:
    if key in SETS:  # what this chart has that the other reading loses, and what it gains
        value, alternative = set(value), set(alternative or ())
        lost, gained = sorted(value - alternative), sorted(alternative - value)
        return Dispute(key, " ".join(lost) or "—", topic, reading, " ".join(gained) or "—")
    return Dispute(key, str(value), topic, reading, str(alternative if alternative is not None else "—"))


def other_readings(school) -> Iterator[tuple[str, str]]:
    """(topic, reading) for each shipped reading the school does not take, topics in order."""
    root = kb_root()
    for topic in sorted(school.readings):
        if topic in CALENDAR_READINGS:
            continue
        for path in sorted((root / "variants" / topic).glob("*.dl")):
            if path.stem != school.readings[topic]:
                yield topic, path.stem


KEPT_SESSIONS = 24  # sessions of a school with a reading swapped kept (each about 4 MB without its charts)
_sessions: dict[tuple, "Session"] = {}  # (school, engine) → its session, in the order of their last use


def session_under(session: "Session", school) -> "Session":
    """A session of ``school`` (the session's school with a reading swapped) on the same engine,
    kept among the :data:`KEPT_SESSIONS` used last."""
    from .session import Session

    key = (school.name, session.engine)
    kept = _sessions.pop(key, None) or Session(school, engine=session.engine)
    _sessions[key] = kept  # the most recently used last
    while len(_sessions) > KEPT_SESSIONS:
        del _sessions[next(iter(_sessions))]
    return kept


def _cast_under(chart: "Chart", school) -> "Chart | None":
    """The chart's inputs cast under another school (None when that school cannot cast them: a reading
    that needs what the chart was not given, such as daynight=sun without a place)."""
    session = session_under(chart.session, school)
    try:
        return session.cast_many([chart.inputs], alongside=chart.session)[0]
    except InputError:
        return None


def _touches(chart: "Chart", topic: str, reading: str) -> bool:
    """Whether the other reading can change the chart: a rule of the school's file for ``topic`` may
    fire on it (tried on the chart as cast), or a rule of ``reading``'s file may (tried on what that
    file cannot change)."""
    own, other = (module(reading_file(kb_root(), topic, r)) for r in (chart.session.kb.school.readings[topic], reading))
    program = chart.session.kb.program
    tables = _tables(own, other)
    files = {rule.head.pred for rule in own.rules + other.rules}
    if any(set(program.dependencies.successors(p)) - files for p in tables if p in program.dependencies):
        return True  # a table the reading swaps feeds rules beyond its files
    reach = set(files)
    for pred in files & set(program.dependencies):
        reach |= descendants(program.dependencies, pred)
    graph = program.dependencies  # a helper: a relation only the files' own rules read
    helpers = {p for p in files if p not in graph or set(graph.successors(p)) <= files}
    exact, guessed = _Fixed(chart, set(), tables, (), helpers), _Fixed(chart, reach, tables, other.rules, helpers)
    return any(guessed.may_fire(rule) for rule in other.rules if not rule.is_fact and rule.head.pred not in helpers) \
        or any(exact.may_fire(rule) for rule in own.rules if not rule.is_fact and rule.head.pred not in helpers)


def _tables(*modules: S.Module) -> dict[str, list]:
    """The facts the reading files state, by relation (both files' rows together)."""
    rows: dict[str, list] = {}
    for module in modules:
        for rule in module.rules:
            if rule.is_fact:
                rows.setdefault(rule.head.pred, []).append(tuple(a.value for a in rule.head.args))
    return rows


class _Fixed:
    """The chart's relations to try a rule's premises on: all but those in ``reach`` (which the
    readings may change), with the files' own tables as they state them. A rule none of whose
    premises fail on them may fire; negations, comparisons and aggregates are not tried."""

    def __init__(self, chart: "Chart", reach: set, tables: dict, file_rules, helpers: set):
        self.chart, self.reach = chart, reach
        self.own = {}  # a helper of the file → its rules (whether it may hold is asked of them)
        for rule in file_rules:
            if not rule.is_fact and rule.head.pred in helpers:
                self.own.setdefault(rule.head.pred, []).append(rule)
        self.possible: dict[str, bool] = {}
        self.program = chart.session.kb.program
        self.moving = self.program.moving()
        self.static: dict[str, list] = dict(tables)

    def may_fire(self, rule: S.Rule) -> bool:
        chart_var = rule.head.args[0] if rule.head.args else None
        atoms = [l for l in rule.body if isinstance(l, S.Atom)
                 and (l.pred not in self.reach or l.pred in self.static or l.pred in self.own)]
        return self._join(atoms, {}, chart_var)

    def _join(self, atoms: list, bound: dict, chart_var) -> bool:
        if not atoms:
            return True
        atom, rest = atoms[0], atoms[1:]
        rows = self._rows(atom, chart_var)
        if rows is None:  # a premise on something else: not tried
            return self._join(rest, bound, chart_var)
        args = atom.args[1:] if atom.pred in self.moving else atom.args
        for row in rows:
            more = _match(args, row, bound)
            if more is not None and self._join(rest, more, chart_var):
                return True
        return False

    def _rows(self, atom: S.Atom, chart_var):
        """The rows the atom can match (without the chart id), or None when it is not tried."""
        if atom.pred in self.static:
            return self.static[atom.pred]
        if atom.pred in self.own:
            return None if self._possible(atom.pred) else []
        if atom.pred not in self.program.preds:
            return None
        if atom.pred in self.moving:
            return self.chart.rows(atom.pred) if atom.args and atom.args[0] == chart_var else None
        self.static[atom.pred] = self.chart.session.base.query(atom.pred, [None] * len(atom.args))
        return self.static[atom.pred]


    def _possible(self, pred: str) -> bool:
        """Whether a rule of the file may derive ``pred`` at all (asked once; a cycle counts as may)."""
        if pred not in self.possible:
            self.possible[pred] = True
            self.possible[pred] = any(self.may_fire(rule) for rule in self.own[pred])
        return self.possible[pred]


def _match(args, row, bound: dict):
    """The bindings extended so that the arguments match the row (None when they cannot)."""
    more = bound
    for term, value in zip(args, row):
        if isinstance(term, S.Const):
            if term.value != value:
                return None
        elif isinstance(term, S.Var) and not term.anonymous:
            if term.name in more:
                if more[term.name] != value:
                    return None
            else:
                more = {**more, term.name: value}
    return more


@lru_cache(maxsize=None)
def module(path) -> S.Module:
    """A KB file's module (kept for the process): as shipped, else parsed (:func:`.school.parsed`)."""
    return parsed(path)


def holding_under(chart: "Chart", pred: str, args: tuple) -> list[tuple[str, str, "Chart"]]:
    """(topic, reading, the chart under it) for each other shipped reading under which the atom
    ``pred(args…)``, absent from the chart, holds; only readings that change some conclusion of
    the chart (its :func:`disputes`) are asked."""
    school = chart.session.kb.school
    found = []
    for topic, reading in dict.fromkeys((d.topic, d.reading) for d in disputes(chart)):
        other = _cast_under(chart, school.with_readings({topic: reading}))
        if other is not None and pred in other.session.kb.program.preds \
                and other.session.source(other.id).holds(pred, list(args)):
            found.append((topic, reading, other))
    return found
