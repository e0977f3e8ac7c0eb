"""The pyDatalog backend: a loaded knowledge base compiled into pyDatalog, asked top-down.

:class:`PyDatalog` is one of the two engines over a :class:`~liuren_logic.datalog.program.KnowledgeBase`
(the bottom-up :class:`~liuren_logic.datalog.evaluate.Materialisation` is the other, and the default);
a session chooses one (``Session(engine="pydatalog")``, ``--engine pydatalog``). Each
:class:`PyDatalog` owns one ``pyDatalog.Logic()``, compiled on first use, so several (two
schools in an audit) live in one process; it switches the thread's logic to itself before
every operation. Use one from one thread at a time.

pyDatalog's tabling does not finish on a cycle of three or more relations (a subgoal
waiting on one that waits on a third keeps rescheduling them), so such a stratum is
derived round by round: its rules are compiled as fire relations only, each round asks
pyDatalog for their firings over the tuples so far and asserts the new heads as facts,
until a round adds nothing (bounded as the bottom-up engine is). A stratum no chart
input reaches is derived once, at load; one an input reaches, again after new input.
"""
from __future__ import annotations

from itertools import count
from typing import Sequence

from . import compiler
from . import syntax as S
from .checker import pydatalog_problems, recursive_atoms
from .compiler import Term
from .errors import KBError
from .program import KnowledgeBase, Pattern, Value
from .semantics import EvaluationLimit, Limits, sort_key

_active: list = [None]  # the PyDatalog whose logic is the thread's current one
# The work a stratum derived round by round may do (firings found and heads added): pyDatalog finds
# 1 500 to 12 000 firings a second, so this is a minute or two; the bottom-up engine allows 20 times more.
ROUNDS_TUPLES = 250_000


def Logic(*args):  # noqa: N802 - pyDatalog's; imported, as Term, on the first compile
    from pyDatalog import Logic as logic

    return logic(*args)


class PyDatalog:
    """A knowledge base compiled into a fresh pyDatalog logic (on first use), with the run-time
    facts given to it and why each holds (``origins``)."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.program, self.name, self.school = kb.program, kb.name, kb.school
        self.rules, self.rules_for = kb.rules, kb.rules_for
        self.origins: dict[tuple, str] = dict(kb.origins)  # and why each run-time fact holds
        self.faults: list = []  # (rule, message) of arithmetic past the integer limit, from pyDatalog
        self._logic = None  # compiled on first use
        self._pending: list[tuple[str, tuple]] = []  # run-time facts given before the compile
        self._rounds: list[tuple[str, ...]] = []  # cycles of three or more relations (at the compile)
        self._stale = False  # new input since the strata an input reaches were last derived
        self.limits = None  # the bounds of a stratum derived round by round (None: ROUNDS_TUPLES, 10 000 rounds)
        self._delta_fires: dict = {}  # a rule's index → [(fire relation reading a delta, its relation)]
        self._deltas: dict[str, set] = {}  # relation → the tuples its delta relation holds now

    def _compile(self) -> None:
        """Compile the program into a fresh pyDatalog logic, then assert the run-time facts so far
        (a :class:`KBError` if pyDatalog could not finish on it)."""
        problems = pydatalog_problems(self.program)
        if problems:
            raise KBError(problems)
        Logic()
        _active[0] = self
        # strata of three or more mutually recursive relations, lowest first: derived round by round
        self._rounds = [members for members, _ in self.program.strata() if len(members) >= 3]
        for fact in self.program.facts:
            compiler.emit_fact(fact)
        static = self._static_order()
        stored = {p for group in static for p in group} | {p for members in self._rounds for p in members}
        for compiled in self.rules:
            compiler.emit_rule(compiled, head=compiled.rule.head.pred not in stored, faults=self.faults,
                               first=self._recursive_atoms(compiled))
        for members in self._rounds:
            for pred in members:
                compiler.declare_empty(pred, self.program.preds[pred].arity, compiler.delta(pred))
                for compiled in self.rules_for.get(pred, ()):
                    self._delta_fires[compiled.index] = compiler.emit_delta_rules(compiled, set(members), self.faults)
        defined = {f.head.pred for f in self.program.facts} | set(self.rules_for) - stored
        for decl in self.program.preds.values():
            if decl.name not in defined:
                compiler.declare_empty(decl.name, decl.arity)
        for group in static:
            if len(group) == 1:
                self._materialise(group[0])
            else:
                self._derive(group)
        for pred, args in self._pending:
            +Term(compiler.relation(pred))(*[compiler.constant(a) for a in args])
        self._pending = []
        self._derived: dict[str, set] = {}  # relation → the tuples _derive asserted for a moving stratum
        self._stale = bool(self._rounds)
        self._logic = Logic(True)

    def _recursive_atoms(self, compiled: compiler.CompiledRule) -> list:
        """The atoms of a compiled body (anonymous variables named) in the rule's own recursion."""
        preds = {a.pred for a in recursive_atoms(self.program, compiled.rule)}
        return [l for l in compiled.body if isinstance(l, S.Atom) and l.pred in preds]

    def _static_order(self) -> list[tuple[str, ...]]:
        """What no chart input reaches and is computed once, at load, lowest first: each derived
        non-recursive relation (as a group of one) and each stratum derived round by round."""
        moving = self.program.moving()
        order: list[tuple[str, ...]] = []
        done: set[str] = set()
        for members, recursive in self.program.strata():
            if members in self._rounds and not moving & set(members):
                order.append(members)
                done |= set(members)
                continue
            pred = members[0]
            needs = [q for q in self.program.dependencies.predecessors(pred) if q in self.rules_for]
            if pred in self.rules_for and pred not in moving and not recursive and all(q in done for q in needs):
                order.append(members)
                done.add(pred)
        return order

    def _materialise(self, pred: str) -> None:
        """Store a static relation's tuples as pyDatalog facts; its fire relations stay for proofs."""
        tuples = set()
        for compiled in self.rules_for[pred]:
            fire = Term(compiled.fire)(*[Term(f"Q{i}") for i in range(len(compiled.variables))])
            tuples |= {compiler.head_values(compiled, row) for row in self._answers(fire)}
        for values in sorted(tuples, key=sort_key):
            +Term(compiler.relation(pred))(*[compiler.constant(v) for v in values])
        if not tuples:
            compiler.declare_empty(pred, self.program.preds[pred].arity)

    def _derive(self, members: tuple[str, ...]) -> dict[str, set]:
        """Derive a stratum round by round, semi-naively (see the module's note): the first round asks
        every rule's fire relation, each later one only the firings that read a tuple the round before
        added. The tuples asserted, by relation."""

        limits, rules = self.limits or Limits(tuples=ROUNDS_TUPLES), [c for pred in members for c in self.rules_for.get(pred, ())]
        known = {p: set(self._answers(self._pattern(p))) for p in members}
        added: dict[str, set] = {p: set() for p in members}
        asks = [(compiled, compiled.fire) for compiled in rules]
        work = 0  # as the bottom-up engine counts: the firings found and the heads added
        for rounds in count(1):
            new: dict[str, set] = {}
            for compiled, fire in asks:
                rows = self._answers(Term(fire)(*[Term(f"Q{i}") for i in range(len(compiled.variables))]))
                pred = compiled.rule.head.pred
                heads = {compiler.head_values(compiled, row) for row in rows} - known[pred]
                new.setdefault(pred, set()).update(heads)
                known[pred] |= heads
                work += len(rows) + len(heads)
                if work > limits.tuples:
                    grew = compiled.fire if len(rows) > len(heads) else pred
                    raise EvaluationLimit(compiled.rule, f"{grew} grew past the limit of {limits.tuples} "
                                          f"derived tuples (pyDatalog's bound on firings and heads; the bottom-up engine "
                                          f"keeps up to {Limits().tuples} and finds up to {Limits().firings} "
                                          "firings in recursion)")
            for pred in members:  # the last round's delta, replaced by this one's
                for values in self._deltas.pop(pred, ()):
                    -Term(compiler.delta(pred))(*[compiler.constant(v) for v in values])
            new = {pred: rows for pred, rows in new.items() if rows}
            if not new:
                return added
            if rounds >= limits.rounds:
                rule = self.rules_for[next(iter(new))][0].rule
                raise EvaluationLimit(rule, f"{next(iter(new))} keeps growing: no fixpoint after "
                                      f"{limits.rounds} rounds of recursion")
            for pred, rows in new.items():
                added[pred] |= rows
                self._deltas[pred] = rows
                for values in sorted(rows, key=sort_key):
                    args = [compiler.constant(v) for v in values]
                    +Term(compiler.relation(pred))(*args)
                    +Term(compiler.delta(pred))(*args)
            asks = [(compiled, fire) for compiled in rules for fire, pred in self._delta_fires[compiled.index] if pred in new]

    def _pattern(self, pred: str):
        return Term(compiler.relation(pred))(*[Term(f"Q{i}") for i in range(self.program.preds[pred].arity)])

    def _refresh(self) -> None:
        """Derive again the round-by-round strata an input reaches, after new input."""
        self._stale = False
        moving = self.program.moving()
        for members in self._rounds:
            if not moving & set(members):
                continue
            for pred in members:
                for values in self._derived.pop(pred, ()):
                    -Term(compiler.relation(pred))(*[compiler.constant(v) for v in values])
            self._derived.update(self._derive(members))

    def activate(self) -> None:
        """Make this knowledge base's logic the thread's current one (compiling it the first time)."""
        if self._logic is None:
            self._compile()
        elif _active[0] is not self:
            Logic(self._logic)
            self._logic = Logic(True)
            _active[0] = self
        if self._stale:
            self._refresh()

    # facts -------------------------------------------------------------------
    def add_fact(self, pred: str, args: Sequence[Value], origin: str) -> None:
        """Assert a run-time fact of an ``input`` relation (a chart's input), remembering why it holds."""
        self.kb.check_input(pred)
        self.origins[(pred, tuple(args))] = origin
        if self._logic is None:
            self._pending.append((pred, tuple(args)))
        else:
            self.activate()
            +Term(compiler.relation(pred))(*[compiler.constant(a) for a in args])
            self._stale = bool(self._rounds)

    def is_fact(self, pred: str, args: Sequence[Value]) -> bool:
        return (pred, tuple(args)) in self.origins

    # queries -----------------------------------------------------------------
    def query(self, pred: str, pattern: Pattern) -> list[tuple]:
        """All tuples of ``pred`` matching the pattern (``None`` = any), sorted."""
        self.kb.check_query(pred, pattern)
        self.activate()
        terms = [compiler.constant(v) if v is not None else Term(f"Q{i}") for i, v in enumerate(pattern)]
        name = compiler.relation(pred) if pred in self.program.preds else pred
        rows = self._answers(Term(name)(*terms))
        return sorted(set(rows), key=sort_key)

    def holds(self, pred: str, args: Pattern) -> bool:
        return bool(self.query(pred, args))

    def aggregate_value(self, agg: compiler.CompiledAggregate, group: Sequence[Value]):
        """The value of an aggregate for one group, or None when the group is empty."""
        self.activate()
        keys = tuple(compiler.constant(v) for v in [compiler.ALL, *group])
        rows = self._answers(Term(agg.function)[keys] == Term("Q"))
        return rows[0][-1] if rows else None

    def declared(self, pred: str):
        return self.kb.declared(pred)

    def _answers(self, query) -> list[tuple]:
        """Resolve a query built from ``Term`` objects with pyDatalog's engine (``pyEngine.Literal``).

        This is the one place the engine is asked anything; it receives compiled terms only,
        never text (``pyDatalog.load``/``ask`` would run text as Python and are not used).
        """
        rows = query.lua.ask() or []
        if self.faults:
            rule, message = self.faults[0]
            self.faults.clear()
            raise EvaluationLimit(rule, f"{message} (deriving {rule.head.pred})")
        return rows
