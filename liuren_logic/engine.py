"""A loaded knowledge base: its own pyDatalog logic, its facts with their origins, queries.

Each :class:`KnowledgeBase` owns one ``pyDatalog.Logic()``, so several (two schools
in an audit) live in one process; it switches the thread's logic to itself before
every operation. Use one knowledge base from one thread at a time.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Optional, Sequence

from . import compiler
from . import syntax as S
from .checker import Program, pydatalog_problems, recursive_atoms
from .errors import InputError, KBError
from .compiler import Term
from .semantics import EvaluationLimit, Value, sort_key
Pattern = Sequence[Optional[Value]]

_active: list = [None]  # the KnowledgeBase whose logic is the thread's current one


def Logic(*args):  # noqa: N802 - pyDatalog's; imported, as Term, on the first compile
    from pyDatalog import Logic as logic

    return logic(*args)


class KnowledgeBase:
    """A checked program compiled into a fresh pyDatalog logic.

    ``rules``: the program's rules as :func:`compiler.plan` compiles them, when known already;
    ``static``: the chart-independent relations the bottom-up engine evaluated for this
    program (:meth:`~liuren_logic.evaluate.Materialisation.static_state`), when known."""

    def __init__(self, program: Program, name: str = "kb", school=None, rules: Optional[list] = None,
                 static: Optional[dict] = None):
        self.program = program
        self.name = name
        self.school = school  # the School it was loaded for, if any (its calendar readings)
        self.static = static
        self.rules = rules if rules is not None else [compiler.plan(rule, i) for i, rule in enumerate(program.rules)]
        self.rules_for: dict[str, list[compiler.CompiledRule]] = defaultdict(list)
        for compiled in self.rules:
            self.rules_for[compiled.rule.head.pred].append(compiled)
        self.origins: dict[tuple, str] = {}  # (pred, args) → "file:line" or why a runtime fact holds
        for fact in program.facts:
            key = (fact.head.pred, tuple(a.value for a in fact.head.args))
            self.origins.setdefault(key, f"{fact.pos.path}:{fact.pos.line}")
        self.faults: list = []  # (rule, message) of arithmetic past the integer limit, from pyDatalog
        self._logic = None  # compiled on first use: a session that only materialises never needs it
        self._pending: list[tuple[str, tuple]] = []  # run-time facts given before the compile

    def _compile(self) -> None:
        """Compile the program into a fresh pyDatalog logic, then assert the run-time facts so far
        (a :class:`KBError` if pyDatalog could not finish on it)."""
        problems = pydatalog_problems(self.program)
        if problems:
            raise KBError(problems)
        Logic()
        _active[0] = self
        for fact in self.program.facts:
            compiler.emit_fact(fact)
        static = self._static_order()
        for compiled in self.rules:
            compiler.emit_rule(compiled, head=compiled.rule.head.pred not in static, faults=self.faults,
                               first=self._recursive_atoms(compiled))
        defined = {f.head.pred for f in self.program.facts} | set(self.rules_for)
        for decl in self.program.preds.values():
            if decl.name not in defined:
                compiler.declare_empty(decl.name, decl.arity)
        for pred in static:
            self._materialise(pred)
        for pred, args in self._pending:
            +Term(compiler.relation(pred))(*[compiler.constant(a) for a in args])
        self._pending = []
        self._logic = Logic(True)

    def _recursive_atoms(self, compiled: compiler.CompiledRule) -> list:
        """The atoms of a compiled body (anonymous variables named) in the rule's own recursion."""
        preds = {a.pred for a in recursive_atoms(self.program, compiled.rule)}
        return [l for l in compiled.body if isinstance(l, S.Atom) and l.pred in preds]

    def _static_order(self) -> list[str]:
        """Derived, non-recursive relations no chart input reaches, lowest first: computed once, at load."""
        moving = self.program.moving()
        order: list[str] = []
        for members, recursive in self.program.strata():
            pred = members[0]
            needs = [q for q in self.program.dependencies.predecessors(pred) if q in self.rules_for]
            if pred in self.rules_for and pred not in moving and not recursive and all(q in order for q in needs):
                order.append(pred)
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

    def activate(self) -> None:
        """Make this knowledge base's logic the thread's current one (compiling it the first time)."""
        if self._logic is None:
            self._compile()
        elif _active[0] is not self:
            Logic(self._logic)
            self._logic = Logic(True)
            _active[0] = self

    # facts -------------------------------------------------------------------
    def add_fact(self, pred: str, args: Sequence[Value], origin: str) -> None:
        """Assert a run-time fact of an ``input`` relation (a chart's input), remembering why it holds."""
        decl = self.program.preds.get(pred)
        if decl is None or not decl.input:
            raise InputError(f"{pred} is not an input relation: only relations declared 'input' take facts at run time")
        self.origins[(pred, tuple(args))] = origin
        if self._logic is None:
            self._pending.append((pred, tuple(args)))
        else:
            self.activate()
            +Term(compiler.relation(pred))(*[compiler.constant(a) for a in args])

    def is_fact(self, pred: str, args: Sequence[Value]) -> bool:
        return (pred, tuple(args)) in self.origins

    # queries -----------------------------------------------------------------
    def query(self, pred: str, pattern: Pattern) -> list[tuple]:
        """All tuples of ``pred`` matching the pattern (``None`` = any), sorted."""
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

    def declared(self, pred: str) -> Optional[S.PredDecl]:
        return self.program.preds.get(pred)


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
