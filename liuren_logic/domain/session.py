"""The Python interface: load a school, cast charts, ask why and why not.

    >>> from liuren_logic import Session
    >>> s = Session()
    >>> chart = s.cast("辛巳", jiang="寅", hour="午")
    >>> chart.sanchuan, chart.method, chart.subnames
    ('午寅戌', '賊剋', ['元首'])

Two engines answer from the same loaded knowledge base (:class:`~liuren_logic.datalog.program.KnowledgeBase`,
``session.loaded``), chosen once per session: ``materialise`` (the default) evaluates a batch of
charts bottom-up and reads conclusions and derivations from the result; ``pydatalog``
(:class:`~liuren_logic.datalog.pydatalog_backend.PyDatalog`) asks pyDatalog, top-down, one question at a time. A
batch evaluates only what is read of it (:class:`~liuren_logic.datalog.evaluate.Materialisation`), so an
evaluation limit of a chart's rules surfaces at the first read that needs them
(``cast_many(…, eager=True)`` evaluates everything at once). Ad-hoc questions go to ``session.kb``
(:class:`SessionKB`), which answers from the session's own engine over the charts it holds;
it is read-only: facts reach it only through a cast.
"""
from __future__ import annotations

from collections import ChainMap
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Optional, Sequence

from .chart import Chart, ChartInput, DatedInput
from ..datalog.collector import collection_paused
from .errors import InputError
from ..datalog.evaluate import Materialisation
from .inputs import members, parse_atom, parse_pillar, parse_symbol
from ..datalog.script import traditional
from .querent import given_facts, options_giving, still_needed
from ..datalog.semantics import sort_key
from .school import MOMENT_READINGS, load_school
from ..datalog.syntax import Aggregate, Atom, Const

if TYPE_CHECKING:  # the calendar and the explainer are imported where they are used
    import networkx as nx

    from ..datalog.provenance import Explainer

ENGINES = ("materialise", "pydatalog")

# Questions about a chart, by name: the relation whose second argument answers it.
# Questions about a chart's 斷 (cast with a matter): a verdict, a finding's words or an 應期.
JUDGEMENT = ("斷", "judgement")
QUESTIONS = {
    "initial": "initial", "middle": "middle", "final": "final", "method": "chosen", "name": "subname",
    "noble": "noble", "offset": "offset", "direction": "direction", "jiang": "jiang",
}


def _shipped_rules_only(kb) -> None:
    """Refuse a user's rules to the pyDatalog engine: its top-down resolution runs in pyDatalog's own
    code, where no bound of ours can stop it (the bottom-up engine bounds every evaluation). A user's
    file of facts alone is bounded by its size, and taken."""
    from .school import display_path, kb_root

    root = kb_root()
    shipped = {display_path(p, root) for p in root.rglob("*.dl")}
    for module in kb.program.modules:
        rules = [r for r in module.rules if not r.is_fact]
        if module.path not in shipped and rules:
            raise InputError(f"{module.path}: --engine pydatalog takes the shipped rules only (it cannot be "
                             f"bounded in time and memory); this file holds {len(rules)} rule"
                             f"{'s' * (len(rules) != 1)}: leave out --engine to run them bounded",
                             f"{module.path}：--engine pydatalog 只跑本套件所附之規則（它不能限時限量）；此檔有 "
                             f"{len(rules)} 條規則：不給 --engine，即在限度內跑")


def _positive_preds(body) -> Iterable[str]:
    """The relations a rule's body asks to hold (an aggregate's body included; not those under ``not``)."""
    for literal in body:
        if isinstance(literal, Atom):
            yield literal.pred
        elif isinstance(literal, Aggregate):
            yield from _positive_preds(literal.body)


class SessionKB:
    """``session.kb``: the session's own engine asked directly, over the school's facts and the
    charts the session holds (a pattern whose first value is a chart id asks that chart's batch
    alone; a relation no chart changes, the school's). It takes no facts: they reach it through a
    cast, so that it and the charts agree. The program's names (``program``, ``rules``,
    ``rules_for``, ``arity``, ``school`` …) are the loaded knowledge base's."""

    def __init__(self, session: "Session"):
        self._session = session
        kb = session.loaded
        self.program, self.name, self.school = kb.program, kb.name, kb.school
        self.rules, self.rules_for, self.arity = kb.rules, kb.rules_for, kb.arity
        self.declared, self.check_query = kb.declared, kb.check_query

    def _engines(self, pred: Optional[str], first) -> list:
        """What answers: the chart's batch, the school's engine for a relation no chart changes, or
        every batch of the session (the school's engine when none)."""
        session = self._session
        if first in session._sources:
            return [session._sources[first]]
        if pred in self.program.preds and pred not in self.program.moving():
            return [session.base]
        return list({id(s): s for s in session._sources.values()}.values()) or [session.base]

    def query(self, pred: str, pattern: Sequence) -> list[tuple]:
        """All tuples of ``pred`` matching the pattern (``None`` = any), sorted."""
        self.check_query(pred, pattern)
        rows = set()
        for engine in self._engines(pred, pattern[0] if pattern else None):
            rows.update(engine.query(pred, pattern))
        return sorted(rows, key=sort_key)

    def holds(self, pred: str, args: Sequence) -> bool:
        return bool(self.query(pred, args))

    def is_fact(self, pred: str, args: Sequence) -> bool:
        return any(e.is_fact(pred, args) for e in self._engines(pred, args[0] if args else None))

    @property
    def origins(self) -> ChainMap:
        """Why each fact holds: a file and line, or a chart's input."""
        return ChainMap(*(e.origins for e in self._engines(None, None)), self._session.base.origins)

    def aggregate_value(self, agg, group: Sequence):
        """An aggregate's value for one group, from the batch of the chart the group names (else the school's)."""
        return self._engines(None, group[0] if group else None)[0].aggregate_value(agg, group)

    def add_fact(self, pred: str, args: Sequence, origin: str = "") -> None:
        raise InputError(f"session.kb is read-only: {pred} facts reach it through a cast "
                         "(cast(…, month=, year=, born=, sex=) or --kb FILE), so that it and the chart agree",
                         f"session.kb 唯讀：{pred} 之事實須經起課而入（cast(…, month=, year=, born=, sex=) 或 --kb 檔），"
                         "令知識庫與課盤一致")


class _Asked:
    """pyDatalog's answers in the shape of :meth:`Materialisation.by_chart`: a relation's rows
    for a chart id (without the id), asked when read."""

    def __init__(self, kb, pred: str):
        self.kb, self.pred = kb, pred

    def get(self, chart_id: str, default=()) -> list[tuple]:
        pattern = [chart_id] + [None] * (self.kb.program.preds[self.pred].arity - 1)
        return [row[1:] for row in self.kb.query(self.pred, pattern)] or default


class Session:
    """One loaded knowledge base (a school) and the charts cast with it."""

    def __init__(self, school: str = "default", readings: Optional[Mapping[str, str]] = None,
                 extra: Iterable[Path] = (), engine: str = "materialise"):
        if engine not in ENGINES:
            raise InputError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}",
                             f"無此引擎「{engine}」；可取：{'、'.join(ENGINES)}", "engine")
        with collection_paused():
            self.loaded = load_school(school, readings, extra)  # the program: rules, arities, origins, checks
            if engine == "materialise":
                self.base = Materialisation(self.loaded, static=self.loaded.static)
            else:
                from ..datalog.pydatalog_backend import PyDatalog

                _shipped_rules_only(self.loaded)
                self.base = PyDatalog(self.loaded)  # compiled at its first question
        self.program = self.loaded.program  # the compiled rules: what each relation is (``program.preds``)
        self.engine = engine
        self._charts: dict[str, Chart] = {}
        self._sources: dict[str, object] = {}  # chart id → what answers for it
        self.kb = SessionKB(self)  # to query, from this session's engine
        self._explainers: dict[int, "Explainer"] = {}
        self._lookups: dict[str, dict] = {}  # relations no chart changes, as mappings (lookup)

    @property
    def name(self) -> str:
        return self.loaded.name

    # casting -----------------------------------------------------------------
    def cast(self, day: str, jiang: str, hour: str, month: Optional[str] = None, year=None, **given) -> Chart:
        """Cast from a day pillar (辛巳), the 月將 branch and the hour branch.

        The chart's ``month`` (a pillar 癸亥, or a branch 亥) and ``year`` (戊寅, or 1998), which a
        chart cast from pillars cannot know, add the month's and year's spirits, patterns and
        strengths; ``given``: the querent's ``born`` (1970, 庚戌 or a birth date) and ``sex`` (m/f), or
        the ``natal`` (本命) or ``xingnian`` (行年) branch itself, and the ``matter`` asked (天時 … 謀望, or weather … plans), which the 斷 reads,
        with the querent's ``question`` (words of the KB's question table in it pick the question).
        """
        return self.cast_many([self.chart_input(day, jiang, hour, month=month, year=year, **given)])[0]

    def chart_input(self, day: str, jiang: str, hour: str, **given) -> ChartInput:
        """Read and check a chart's inputs (simplified characters accepted)."""
        self._from_pillars()
        stem, branch = parse_pillar(self.base, day)
        extra = given_facts(self.base, **given)
        return ChartInput(stem, branch, parse_symbol(self.base, jiang, "branch", "the 月將"),
                          parse_symbol(self.base, hour, "branch", "the hour"), extra.facts, extra.tag)

    def cast_offset(self, day: str, offset: int, daytime: bool = True, **given) -> Chart:
        """Cast one of the 720 charts: the hour is 午 by day and 子 by night."""
        return self.cast_many([self.offset_input(day, offset, daytime, **given)])[0]

    def offset_input(self, day: str, offset: int, daytime: bool = True, **given) -> ChartInput:
        if not isinstance(offset, int) or not 0 <= offset < 12:
            raise InputError(f"offset {offset!r} is not a whole number from 0 to 11",
                             f"「{offset}」須為 0 至 11 之整數", "offset")
        self._from_pillars()
        stem, branch = parse_pillar(self.base, day)
        return self._at_offset(stem, branch, offset, daytime, members(self.base, "branch"),
                               given_facts(self.base, **given))

    def _from_pillars(self) -> None:
        """Refuse a chart cast from pillars under a reading that only a moment decides (daynight=sun:
        without the sun's place the chart has neither day nor night, nor a 貴人)."""
        readings = self.loaded.school.readings if self.loaded.school else {}
        needing = sorted(f"{t}={r}" for t, r in readings.items() if (t, r) in MOMENT_READINGS)
        if needing:
            raise InputError(f"the reading {', '.join(needing)} judges by the sun at a moment: cast with --at "
                             "(and --latitude, --longitude), not from pillars",
                             "晝夜依日出日落之說須有時刻：請以時刻起課（並給經緯度），不可以干支起課", "reading")

    @staticmethod
    def _at_offset(stem: str, branch: str, offset: int, daytime: bool, branches: list, extra) -> ChartInput:
        """The chart of a known day pillar at an offset (the KB's ``branches`` in order; ``extra``,
        the querent's facts): the hour is 午 by day and 子 by night."""
        hour = "午" if daytime else "子"
        return ChartInput(stem, branch, branches[(branches.index(hour) + offset) % 12], hour, extra.facts, extra.tag)

    def cast_at(self, at, tz: str = "Asia/Shanghai", longitude: Optional[float] = None,
                latitude: Optional[float] = None, born=None, sex: Optional[str] = None,
                matter: Optional[str] = None, question: Optional[str] = None) -> Chart:
        """Cast from a civil moment (``'1998-11-30 12:00'``) in a zone, by the school's calendar readings;
        ``born``, ``sex``, ``matter`` and ``question`` as for :meth:`cast`."""
        return self.cast_many([self.dated_input(at, tz, longitude, latitude, born, sex, matter,
                                                question=question)])[0]

    def dated_input(self, at, tz: str = "Asia/Shanghai", longitude: Optional[float] = None,
                    latitude: Optional[float] = None, born=None, sex: Optional[str] = None,
                    matter: Optional[str] = None, natal: Optional[str] = None,
                    xingnian: Optional[str] = None, question: Optional[str] = None) -> DatedInput:
        from .calendar import moment

        readings = self.loaded.school.readings if self.loaded.school else {}
        day_night = "sun" if readings.get("daynight") == "sun" else "fixed"
        if day_night == "sun" and (latitude is None or longitude is None):
            raise InputError("this school judges day and night by the sun: give --latitude and --longitude",
                             "此門派以日出日落分晝夜：請給 --latitude 與 --longitude", "latitude")
        m = moment(at, tz, longitude=longitude, latitude=latitude,
                   day_boundary=readings.get("day_boundary", "23:00"), hours=readings.get("hours", "civil"),
                   day_night=day_night)
        extra = (("sun_up" if m.daytime else "sun_down", [], m.reasons()["daytime"]),) if day_night == "sun" else ()
        querent = given_facts(self.base, born=born, sex=sex, tz=tz, matter=matter, natal=natal, xingnian=xingnian,
                              question=question)
        querent.check(m.year)
        return DatedInput(m, extra + querent.facts, querent.tag)

    def cast_many(self, inputs: Sequence, alongside: Optional["Session"] = None, eager: bool = False) -> list[Chart]:
        """Cast a batch of charts in one evaluation; a chart cast before is returned as it was.

        The batch is evaluated as it is read; ``eager``: all of it now, so that an evaluation limit
        is raised here rather than at a later read. ``alongside``: another school's session that
        has just cast the same batch (an audit); what both schools define alike is read from its
        evaluation instead of derived again.
        """
        with collection_paused():  # a batch's facts and charts: thousands of objects, no garbage
            return self._cast(inputs, alongside, eager)

    def _cast(self, inputs: Sequence, alongside: Optional["Session"], eager: bool) -> list[Chart]:
        new = {i.id: i for i in inputs if i.id not in self._charts}
        facts = {chart_id: i.facts() for chart_id, i in new.items()}
        if self.engine == "materialise" and new:
            twins = {id(t): t for t in (alongside._sources.get(i) for i in new) if t is not None} if alongside else {}
            twin = next(iter(twins.values())) if len(twins) == 1 else None
            source = self.base.extend([f for batch in facts.values() for f in batch],
                                      twin if isinstance(twin, Materialisation) else None)
            if eager:
                source.evaluate_all()
        else:
            for fact in (f for batch in facts.values() for f in batch):
                self.base.add_fact(*fact)
            source = self.base
        for chart_id, chart_input in new.items():
            self._sources[chart_id] = source
            self._charts[chart_id] = Chart(self, chart_input)
        return [self._charts[i.id] for i in inputs]

    def forget(self, chart_ids: Sequence[str]) -> None:
        """Release charts cast before (a long audit's batches): their answers and explainers
        (``session.kb`` no longer answers for them; pyDatalog keeps the facts it was given)."""
        for chart_id in chart_ids:
            self._charts.pop(chart_id, None)
            self._sources.pop(chart_id, None)
        live = {id(source) for source in self._sources.values()}
        self._explainers = {key: e for key, e in self._explainers.items() if key in live}

    def table(self, daytime: bool = True) -> list[Chart]:
        """All 720 charts (60 days × 12 offsets), cast in one evaluation whatever the session cast
        before: a chart of the table cast in another batch is cast again with the rest (and replaces
        it), so that the table's charts share their rows and one query of its batch reads them all."""
        pillars = sorted(self.base.query("pillar_index", [None, None, None]), key=lambda r: r[2])
        self._from_pillars()
        branches, none = members(self.base, "branch"), given_facts(self.base)
        inputs = [self._at_offset(s, b, o, daytime, branches, none) for s, b, _ in pillars for o in range(12)]
        if len({id(self.source(i.id)) for i in inputs}) > 1:  # some were cast before, apart
            self.forget([i.id for i in inputs])
        return self.cast_many(inputs)

    # reading -----------------------------------------------------------------
    def chart(self, chart_id: str) -> Optional[Chart]:
        """A chart cast before in this session, by its id."""
        return self._charts.get(chart_id)

    def source(self, chart_id: Optional[str] = None):
        """What answers for a chart (its batch, or pyDatalog), or for chart-free questions."""
        return self._sources.get(chart_id, self.base)

    def rows(self, pred: str, chart_id: str) -> list[tuple]:
        """A chart's tuples of ``pred``, sorted, the chart id first."""
        return [(chart_id, *row) for row in self.by_chart(chart_id)(pred).get(chart_id, ())]

    def chart_rows(self, pred: str, chart_id: str) -> list[tuple]:
        """A chart's tuples of ``pred``, sorted, without the chart id."""
        return list(self.by_chart(chart_id)(pred).get(chart_id, ()))

    def by_chart(self, chart_id: str) -> Callable[[str], Mapping[str, Sequence[tuple]]]:
        """What answers for a chart, by relation: ``by_chart(chart_id)(pred)`` maps chart ids to
        their rows of ``pred`` (sorted, without the id; read-only), as its batch holds them."""
        source = self.source(chart_id)
        return source.grouped.__getitem__ if isinstance(source, Materialisation) else partial(_Asked, source)

    def lookup(self, pred: str, chart_id: Optional[str] = None) -> dict:
        """A relation as a mapping from its first column to its second (``branch_index``: 子 → 0), as
        the chart's source answers it; one no chart input reaches is read once a session."""
        if pred in self._lookups:
            return self._lookups[pred]
        static = pred not in self.program.moving()
        rows = (self.base if static else self.source(chart_id)).query(pred, [None] * self.program.preds[pred].arity)
        mapping = {row[0]: row[1] for row in rows}
        if static:
            self._lookups[pred] = mapping
        return mapping

    def view(self, chart_id: str, name: str, pred: str, order: Optional[Callable[[tuple], object]] = None,
             make: Optional[Callable[[tuple], object]] = None, source=None) -> Sequence:
        """A chart's rows of ``pred`` (sorted, without the id) in the order of ``order(row)`` (stable),
        each ``make(row)``: a batch orders and makes each distinct row once for all its charts
        (:meth:`Materialisation.view`; a table's charts show the same (spirit, branch, place)
        thousands of times). ``name`` names what ``order`` and ``make`` do, within the batch; ``source``
        is what answers for the chart (by default the session's: :meth:`source`)."""
        source = self.source(chart_id) if source is None else source
        if isinstance(source, Materialisation):
            return source.view(name, pred, order, make).get(chart_id, ())
        rows = _Asked(source, pred).get(chart_id)
        rows = rows if order is None else sorted(rows, key=order)
        return tuple(rows if make is None else map(make, rows))

    def explainer(self, chart_id: Optional[str] = None) -> "Explainer":
        from ..datalog.provenance import Explainer

        source = self.source(chart_id)
        if id(source) not in self._explainers:
            self._explainers[id(source)] = Explainer(source)
        return self._explainers[id(source)]

    # explanations ------------------------------------------------------------
    def atom(self, chart: Chart, question: str, value: Optional[str] = None) -> tuple[str, tuple]:
        """The atom a question names: ``initial`` → initial(C, 午); ``lesson1`` → lesson(C, 1, …)."""
        if question in QUESTIONS:
            pred = QUESTIONS[question]
            if value is None:
                rows = chart.rows(pred)
                if not rows:
                    raise InputError(f"chart {chart.id} has no {question}; ask why-not",
                                     f"此課無{self._named(question)}；可問 why-not（何以不是）")
                value = rows[0][0]
            return pred, (chart.id, value)
        if question.startswith("lesson") and question[6:] in ("1", "2", "3", "4"):
            number = int(question[6:])
            if value is not None:
                return "lesson", (chart.id, number, value, None)
            rows = [r for r in chart.rows("lesson") if r[0] == number]
            return "lesson", (chart.id, *rows[0])
        if question in JUDGEMENT:
            return self._judged(chart, value)
        decl = self.program.preds.get(question)
        if decl is not None and decl.params and decl.params[0][1] == "text" and decl.arity > 1:
            # any chart relation by name: 'pattern 貴人入獄', 'spirit 天目', 'general 午'
            lacking = self._not_given(chart, question) if value is None and not chart.rows(question) else []
            if lacking:
                raise InputError(f"chart {chart.id} has no {question}: it rests on what the chart was not given "
                                 f"({', '.join(lacking)}); give {options_giving(lacking)}",
                                 f"此課無{self._named(question)}：其所據者起課時未給；請給 {options_giving(lacking, 'zh')}")
            return question, (chart.id, value, *[None] * (decl.arity - 2))
        raise InputError(f"unknown question {question!r}; ask one of: {', '.join(self.questions())}",
                         f"無此問「{question}」；可問：{'、'.join(self._names())}、斷（須給 --matter），"
                         "或課盤之關係帶值（如 general 午、pattern 貴人入獄），或謂詞式（如 clashes(子, 午)）", "q")

    def _names(self) -> list[str]:
        """The questions by their Chinese names (``question_name``), in the KB's order."""
        rows = self.base.query("question_name", [None, None]) if "question_name" in self.program.preds else []
        return list(dict.fromkeys(str(row[0]) for row in rows))

    def _named(self, question: str) -> str:
        """A question by its Chinese name (``initial`` → 初傳), else as it is."""
        rows = self.base.query("question_name", [None, question]) if "question_name" in self.program.preds else []
        return str(rows[0][0]) if rows else question

    def question(self, asked: str) -> str:
        """The question a reader's word names: its id by its KB name (``初傳`` → ``initial``,
        ``question_name``), simplified characters read as traditional (``断`` → ``斷``); else as asked."""
        word = traditional(asked)
        rows = self.base.query("question_name", [word, None]) if "question_name" in self.program.preds else []
        return str(rows[0][1]) if rows else word if word in JUDGEMENT else asked

    def _not_given(self, chart: Chart, pred: str) -> list[str]:
        """The input relations ``pred`` rests on through the rules (not under a ``not``) of which
        ``chart`` has no row and no option given gives (:func:`.querent.still_needed`), in order."""
        rests_on: dict[str, set] = {}
        for rule in self.program.rules:
            rests_on.setdefault(rule.head.pred, set()).update(_positive_preds(rule.body))
        seen, stack = set(), [pred]
        while stack:
            name = stack.pop()
            if name not in seen:
                seen.add(name)
                stack += rests_on.get(name, ())
        inputs = [p for p in seen if self.program.preds[p].input]
        return still_needed([p for p in inputs if not chart.rows(p)], [p for p in inputs if chart.rows(p)])

    def verdicts(self) -> list[str]:
        """Every verdict a rule of the KB can reach (the constant of a ``verdict`` rule's head)."""
        heads = (r.head for r in self.program.rules if r.head.pred == "verdict")
        return sorted({str(h.args[1].value) for h in heads if len(h.args) > 1 and isinstance(h.args[1], Const)})

    def _judged(self, chart: Chart, value: Optional[str]) -> tuple[str, tuple]:
        """The row of the chart's 斷 that ``value`` names: the answer (吉, 凶, 先吉後凶, 先凶後吉, 吉凶參半:
        the chart's, or one it does not have, for why-not), a verdict (女尸做祟), a finding's words
        (天網) or an 應期 (丑, or its method 沖開墓); else a verdict the KB can reach (晴: why-not 斷 晴
        asks why not clear, not about the 晴朗 a finding names); else a row with a word they contain
        (女尸); else the verdict ``value``, which does not hold."""
        if not chart.rows("matter"):
            raise InputError(f"chart {chart.id} has no 斷: cast it with --matter", "此課無斷：起課時請給 --matter（所占之事）",
                             "matter")
        if not value:
            raise InputError("斷 needs what is asked about: a verdict, a finding or an 應期, e.g. 斷 不正之神",
                             "斷須給所問之事：斷語、所見或應期，如 斷 不正之神", "value")
        rows = [("verdict", r, r[:1]) for r in chart.rows("verdict")] + \
               [("finding", r, r[1:2]) for r in chart.rows("finding")] + [("timing", r, r) for r in chart.rows("timing")]
        wanted = traditional(str(value).strip())
        if "answer_kind" in self.program.kinds and wanted in members(self.base, "answer_kind"):
            return "answer", (chart.id, wanted)
        for exact in (True, False):
            for pred, row, keys in rows:
                if any(wanted == k if exact else wanted in str(k) for k in keys):
                    return pred, (chart.id, *row)
            if exact and wanted in self.verdicts():
                break
        return "verdict", (chart.id, wanted, None)

    @staticmethod
    def questions() -> list[str]:
        return list(QUESTIONS) + ["lesson1", "lesson2", "lesson3", "lesson4",
                                  "斷 (or judgement) with the answer, a verdict, a finding or an 應期 (--matter): 斷 凶, 斷 女尸做祟",
                                  "any chart relation with a value (general 午, pattern 貴人入獄, spirit 天目)",
                                  "an atom such as clashes(子, 午)"]

    def why(self, chart: Optional[Chart], question: str, value: Optional[str] = None,
            graph_type: Optional[type] = None) -> "nx.DiGraph":
        """The derivation of a chart's conclusion (``initial``, ``method`` …) or of any atom, a
        ``networkx.DiGraph`` (``graph_type``: another class with its interface, e.g. ``digraph.Digraph``)."""
        pred, args = self._resolve(chart, question, value)
        explainer = self.explainer(self._chart_of(args, chart))
        if None in args:  # the first row that matches, the chart's own first
            matches = explainer.kb.query(pred, args)
            ours = [row for row in matches if chart is not None and row and row[0] == chart.id]
            args = (ours or matches or [args])[0]
        return explainer.why(pred, args, graph_type=graph_type)

    def why_not(self, chart: Optional[Chart], question: str, value: Optional[str] = None,
                depth: int = 3, graph_type: Optional[type] = None) -> "nx.DiGraph":
        """Why a chart's conclusion is not ``value`` (``why_not(c, 'initial', '丑')``), or why an atom
        fails, a ``networkx.DiGraph`` (``graph_type`` as for :meth:`why`)."""
        pred, args = self._resolve(chart, question, value)
        return self.explainer(self._chart_of(args, chart)).why_not(pred, args, depth, graph_type)

    def _chart_of(self, args: Sequence, chart: Optional[Chart] = None) -> Optional[str]:
        """The chart whose evaluation answers for an atom: the one its first argument names, else
        the one asked about (``lesson(_, 1, _, _)`` on a chart is asked of that chart's rows)."""
        if args and args[0] in self._charts:
            return args[0]
        return chart.id if chart is not None else None

    def resolve(self, chart: Optional[Chart], question: str, value: Optional[str] = None) -> tuple[str, tuple]:
        """The relation and arguments a question names (``None`` for any value)."""
        return self._resolve(chart, question, value)

    def _resolve(self, chart, question, value):
        if chart is None or "(" in question:
            return parse_atom(self.base, question)
        if value is not None and question in QUESTIONS:
            kind = {"method": "method", "name": "subname"}.get(question, "branch")
            value = parse_symbol(self.base, value, kind, question)
        elif value is not None and question in self.program.preds:
            kind = self.program.preds[question].params[1][1]
            value = parse_symbol(self.base, value, kind, question) if kind in self.program.kinds else value
        return self.atom(chart, question, value)


__all__ = ["Session", "Chart", "ENGINES"]
