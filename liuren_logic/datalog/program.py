"""A loaded knowledge base: the checked program, its compiled rules, what a query may ask, the
facts' origins and the checks on what is asked or given. It evaluates nothing.

Two engines answer from one :class:`KnowledgeBase`, chosen once per session: the bottom-up
:class:`~liuren_logic.datalog.evaluate.Materialisation` (the default) and
:class:`~liuren_logic.datalog.pydatalog_backend.PyDatalog`. This module imports neither, nor pyDatalog.
"""
from __future__ import annotations

from threading import Lock
from typing import Callable, Mapping, Optional, Protocol, Sequence

from . import compiler
from . import syntax as S
from .checker import Program
from .errors import InputError
from .semantics import Value

Pattern = Sequence[Optional[Value]]


class Prepared:
    """What a checked program and its compiled rules give that no cast changes, worked out once and
    shared by every knowledge base loaded from the same files (:mod:`.snapshot` keeps one per
    entry): the rules by relation, what a query may ask, the facts' origins, and the bottom-up
    engine's plan of the rules (:meth:`plan`, made on first use). Nothing here changes once made.

    ``rules``: the program's rules as :func:`compiler.plan` compiles them, when known already;
    ``layout``: the shape of the bottom-up engine's plan, as values, when a snapshot kept it
    (:class:`~liuren_logic.datalog.evaluate.Layout`)."""

    def __init__(self, program: Program, rules: Optional[list] = None, layout=None):
        self.program = program
        self.layout = layout
        self.rules = rules if rules is not None else [compiler.plan(rule, i) for i, rule in enumerate(program.rules)]
        self.rules_for: dict[str, list[compiler.CompiledRule]] = {}
        for compiled in self.rules:
            self.rules_for.setdefault(compiled.rule.head.pred, []).append(compiled)
        # what a query may ask: the KB's relations, and the fire and aggregate helper relations of its rules
        self.arity = {decl.name: decl.arity for decl in program.preds.values()}
        for compiled in self.rules:
            self.arity[compiled.fire] = len(compiled.variables)
            for agg in compiled.aggregates.values():
                self.arity[agg.helper] = max(len(agg.group), 1) + len(agg.inner)
        self.origins: dict[tuple, str] = {}  # (pred, args) → "file:line" of each fact
        for fact in program.facts:
            path, line, _ = fact.at
            self.origins.setdefault((fact.head.pred, tuple([a.value for a in fact.head.args])), f"{path}:{line}")
        self._plan = None
        self._planning = Lock()

    def plan(self, make: Callable[[], object]):
        """The bottom-up engine's plan of these rules: ``make()``'s, made once (another thread
        asking meanwhile waits for it: none sees a plan half made)."""
        if self._plan is None:
            with self._planning:
                if self._plan is None:
                    self._plan = make()
        return self._plan


class KnowledgeBase:
    """A checked program with its compiled rules, loaded once and shared by the engines.

    ``prepared``: what the program gives that no cast changes (:class:`Prepared`), when known
    already; ``static``: the chart-independent relations the bottom-up engine evaluated for this
    program (:meth:`~liuren_logic.datalog.evaluate.Materialisation.static_state`), when known."""

    def __init__(self, program: Program, name: str = "kb", school=None, prepared: Optional[Prepared] = None,
                 static: Optional[dict] = None):
        self.program = program
        self.name = name
        self.school = school  # the School it was loaded for, if any (its calendar readings)
        self.static = static
        self.prepared = prepared if prepared is not None else Prepared(program)
        if self.prepared.program is not program:
            raise ValueError("prepared for another program")
        self.rules = self.prepared.rules
        self.rules_for = self.prepared.rules_for  # read only
        self.arity = self.prepared.arity  # read only
        self.origins = self.prepared.origins  # read only: "file:line" of each fact of the files

    def check_input(self, pred: str) -> None:
        """An :class:`InputError` unless ``pred`` is declared ``input`` (takes facts at run time)."""
        decl = self.program.preds.get(pred)
        if decl is None or not decl.input:
            raise InputError(f"{pred} is not an input relation: only relations declared 'input' take facts at run time",
                             f"{pred} 不是輸入關係：唯宣告為 input 之關係，可於執行時給事實")

    def check_query(self, pred: str, pattern: Pattern) -> None:
        """An :class:`InputError` unless ``pred`` is a relation that takes as many arguments as ``pattern``."""
        arity = self.arity.get(pred)
        if arity is None:
            raise InputError(f"unknown relation {pred!r}", f"無此關係「{pred}」")
        if arity != len(pattern):
            decl = self.program.preds.get(pred)
            names = f" ({', '.join(a for a, _ in decl.params)})" if decl else ""
            raise InputError(f"{pred} takes {arity} argument{'s' * (arity != 1)}{names}, not {len(pattern)}",
                             f"{pred} 應有 {arity} 個參數{names}，今有 {len(pattern)} 個")

    def declared(self, pred: str) -> Optional[S.PredDecl]:
        return self.program.preds.get(pred)


class Engine(Protocol):
    """What answers questions over a :class:`KnowledgeBase`: an engine
    (:class:`~liuren_logic.datalog.evaluate.Materialisation`, :class:`~liuren_logic.datalog.pydatalog_backend.PyDatalog`) or
    ``session.kb``. Queries may ask fire and aggregate helper relations too."""

    program: Program
    name: str
    rules_for: Mapping[str, list]
    origins: Mapping[tuple, str]

    def query(self, pred: str, pattern: Pattern) -> list[tuple]: ...

    def holds(self, pred: str, args: Pattern) -> bool: ...

    def is_fact(self, pred: str, args: Sequence[Value]) -> bool: ...

    def aggregate_value(self, agg: compiler.CompiledAggregate, group: Sequence[Value]): ...

    def declared(self, pred: str) -> Optional[S.PredDecl]: ...
