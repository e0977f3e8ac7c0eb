"""Static checks that run before anything is compiled.

pyDatalog checks none of these and silently answers wrongly (or hangs), so a
program that reaches the compiler has: declared predicates of the right arity,
constants of the declared kinds, variables used consistently and bound by a
positive atom, no negation or aggregate through recursion, and unique rule ids.
:func:`warnings` finds arithmetic that can feed its own recursion;
:func:`pydatalog_problems` what pyDatalog alone cannot evaluate (the bottom-up
engine can). Every finding is a
:class:`~liuren_logic.datalog.errors.Problem` at ``path:line:col``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import syntax as S
from .digraph import Digraph, components, descendants, shortest_path
from .defeasible import Defeat, describe, expand, idle_prefers
from .errors import KBError, Position, Problem, did_you_mean

OPEN_KINDS = {"any", "int", "text"}


@dataclass
class Program:
    """A checked set of modules: declarations, facts and rules, in load order."""

    modules: list[S.Module]
    kinds: dict[str, S.KindDecl] = field(default_factory=dict)
    preds: dict[str, S.PredDecl] = field(default_factory=dict)
    facts: list[S.Rule] = field(default_factory=list)
    rules: list[S.Rule] = field(default_factory=list)
    members: dict[str, frozenset | None] = field(default_factory=dict)
    dependencies: Digraph = field(default_factory=Digraph)
    defeat: Optional[Defeat] = None  # what the compilation of its defeasible rules made (defeasible.py)
    _moving: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)  # (graph, moving())
    _strata: Optional[tuple] = field(default=None, init=False, repr=False, compare=False)  # (graph, stratum_of())

    def rules_for(self, pred: str) -> list[S.Rule]:
        return [r for r in self.rules if r.head.pred == pred]

    def moving(self) -> frozenset[str]:
        """The relations a chart's input facts can change: the input relations and all they reach
        (worked out once for a dependency graph: a checked program does not change)."""
        graph = self.dependencies
        if self._moving is None or self._moving[0] is not graph:
            moving: set[str] = set()
            for decl in self.preds.values():
                if decl.input and decl.name in graph:
                    moving |= {decl.name} | descendants(graph, decl.name)
            self._moving = (graph, frozenset(moving))
        return self._moving[1]

    def stratum_of(self) -> dict[str, int]:
        """Each relation's group of mutually recursive relations, by number (worked out once for a
        dependency graph)."""
        graph = self.dependencies
        if self._strata is None or self._strata[0] is not graph:
            self._strata = (graph, {pred: k for k, members in enumerate(components(graph)) for pred in members})
        return self._strata[1]

    def strata(self) -> list[tuple[tuple[str, ...], bool]]:
        """Groups of mutually recursive relations, lowest first, each with whether it recurses."""
        graph = self.dependencies
        return [(members, len(members) > 1 or graph.has_edge(members[0], members[0]))
                for members in components(graph)]


class _Checker:
    def __init__(self, modules: list[S.Module]):
        self.program = Program(modules)
        self.problems: list[Problem] = []
        self.lines = {m.path: m.lines for m in modules}

    def report(self, position: Position, message: str) -> None:
        lines = self.lines.get(position.path, [])
        text = lines[position.line - 1] if 0 < position.line <= len(lines) else ""
        self.problems.append(Problem(position, message, text))

    # declarations ----------------------------------------------------------
    def declarations(self) -> None:
        program = self.program
        for module in program.modules:
            for kind in module.kinds:
                if kind.name in program.kinds or kind.name in OPEN_KINDS:
                    self.report(kind.pos, f"kind {kind.name} is declared twice")
                else:
                    program.kinds[kind.name] = kind
            for pred in module.preds:
                if pred.name in program.preds:
                    first = program.preds[pred.name].pos
                    self.report(pred.pos, f"predicate {pred.name} is already declared at {first}")
                else:
                    program.preds[pred.name] = pred
        for name in program.kinds:
            program.members[name] = self.members_of(name, set())
        for name in OPEN_KINDS:
            program.members[name] = None
        for pred in program.preds.values():
            for arg, kind in pred.params:
                if kind not in program.members:
                    self.report(pred.pos, f"unknown kind {kind!r} for argument {arg} of {pred.name}{self.suggest(kind, program.members)}")

    def members_of(self, name: str, seen: set) -> frozenset:
        kind = self.program.kinds[name]
        if not kind.union:
            return frozenset(kind.members)
        members: set = set()
        for part in kind.union:
            if part in seen:
                self.report(kind.pos, f"kind {name} is defined in terms of itself")
            elif part not in self.program.kinds:
                self.report(kind.pos, f"unknown kind {part!r} in the union {name}")
            else:
                members |= self.members_of(part, seen | {name})
        return frozenset(members)

    @staticmethod
    def suggest(name: str, known) -> str:
        return did_you_mean(name, known)

    # clauses ---------------------------------------------------------------
    def clauses(self) -> None:
        ids: dict[str, S.Place] = {}
        for module in self.program.modules:
            for rule in module.rules:
                if rule.annotated and not rule.is_fact:  # the facts of one table share its id
                    if rule.id in ids:
                        self.report(rule.pos, f"rule id {rule.id} is already used at {Position(*ids[rule.id])}")
                    ids.setdefault(rule.id, rule.at)
                if self.clause(rule):
                    (self.program.facts if rule.is_fact else self.program.rules).append(rule)

    def clause(self, rule: S.Rule) -> bool:
        before = len(self.problems)
        kinds: dict[str, tuple[str, S.Place]] = {}
        for atom in self.atoms(rule):
            self.atom(atom, kinds, computed=atom is rule.head and not rule.is_fact)
        if rule.is_fact:
            for arg, at in zip(rule.head.args, rule.head.places):
                if not isinstance(arg, S.Const):
                    self.report(Position(*at), f"a fact must be ground: {arg} is not a constant")
        else:
            self.safety(rule)
        return len(self.problems) == before

    @staticmethod
    def atoms(rule: S.Rule):
        yield rule.head
        yield from S.body_atoms(rule.body)

    def atom(self, atom: S.Atom, kinds: dict, computed: bool = False) -> None:
        """Check an atom against its declaration (``~p(…)``'s is p's); ``computed``: a rule's head, whose
        arguments may be arithmetic."""
        decl = self.program.preds.get(S.base(atom.pred))
        if decl is None:
            name = S.base(atom.pred)
            self.report(atom.pos, f"undeclared predicate {name}{self.suggest(name, self.program.preds)}")
            return
        if decl.arity != len(atom.args):
            self.report(atom.pos, f"{atom.pred} takes {decl.arity} argument{'s' * (decl.arity != 1)} "
                        f"({', '.join(a for a, _ in decl.params)}), not {len(atom.args)}")
            return
        for arg, at, (name, kind) in zip(atom.args, atom.places, decl.params):
            if isinstance(arg, S.BinOp) and computed:
                if kind not in ("int", "any"):
                    self.report(Position(*at), f"{arg} is a number, but argument {name} of {atom.pred} is a {kind}")
            elif isinstance(arg, S.BinOp):
                self.report(Position(*at), f"arithmetic cannot stand inside {atom.pred}(…) in a body: bind it first, "
                            f"e.g. Y = {arg}, and write Y there")
            elif isinstance(arg, S.Const):
                self.constant(arg, at, kind, f"argument {name} of {atom.pred}")
            elif not arg.anonymous:
                self.variable_kind(arg, at, kind, kinds)

    def constant(self, const: S.Const, at: S.Place, kind: str, where: str) -> None:
        members = self.program.members.get(kind)
        if kind == "int" and not isinstance(const.value, int):
            self.report(Position(*at), f"{where} is a number, not {const}")
        elif kind == "text" and not isinstance(const.value, str):
            self.report(Position(*at), f"{where} is text, not {const}")
        elif members is not None and const.value not in members:
            shown = " ".join(map(str, sorted(members, key=str)[:12]))
            more = " …" if len(members) > 12 else ""
            self.report(Position(*at), f"{const} is not a {kind} ({where}; a {kind} is one of: {shown}{more})")

    def variable_kind(self, var: S.Var, at: S.Place, kind: str, kinds: dict) -> None:
        if var.name not in kinds:
            kinds[var.name] = (kind, at)
            return
        other, (_, line, col) = kinds[var.name]
        if not self.compatible(kind, other):
            self.report(Position(*at), f"variable {var.name} is a {kind} here but a {other} at {line}:{col}")

    def compatible(self, a: str, b: str) -> bool:
        if a == b or "any" in (a, b):
            return True
        ma, mb = self.program.members.get(a), self.program.members.get(b)
        if ma is None and mb is None:
            return False
        if ma is None or mb is None:
            open_kind, members = (a, mb) if ma is None else (b, ma)
            wanted = int if open_kind == "int" else str
            return any(isinstance(m, wanted) for m in members)
        return bool(ma & mb)

    # safety ----------------------------------------------------------------
    def safety(self, rule: S.Rule) -> None:
        bound = self.bind(rule.body, set())
        for var, at in S.atom_placed_variables(rule.head):
            if var.name not in bound:
                self.report(Position(*at), f"variable {var.name} in the head is not bound by a positive atom of the body")
        for arg, at in zip(rule.head.args, rule.head.places):
            if isinstance(arg, S.Var) and arg.anonymous:
                self.report(Position(*at), "'_' cannot stand in a rule's head")
        self.uses(rule.body, bound)

    def bind(self, body, outer: set[str]) -> set[str]:
        """Variables bound by the body: positive atoms, then assignments and aggregate results."""
        bound = set(outer)
        for literal in body:
            if isinstance(literal, S.Atom):
                bound |= {v.name for v in S.atom_variables(literal)}
            elif isinstance(literal, S.Aggregate):
                bound.add(literal.result.name)
        changed = True
        while changed:
            changed = False
            for literal in body:
                target = S.assignment_target(literal, bound)
                if target is not None:
                    bound.add(target)
                    changed = True
        return bound

    def uses(self, body, bound: set[str]) -> None:
        for literal in body:
            if isinstance(literal, S.Negation):
                local = _existential(literal, body)
                for var, at in S.atom_placed_variables(literal.atom):
                    if var.name not in bound and var.name not in local:
                        self.report(Position(*at), f"variable {var.name} under 'not' is not bound by a positive atom "
                                    "(write _ for 'any'; a variable repeated only inside this atom, as in "
                                    "not p(X, Y, Y), means 'for no Y')")
            elif isinstance(literal, S.Comparison):
                sides = tuple(zip((literal.left, literal.right), literal.places))
                for var, at in (found for side in sides for found in S.placed_variables(*side)):
                    if var.name not in bound:
                        self.report(Position(*at), f"variable {var.name} in a comparison is not bound by a positive atom")
                for side, at in sides:
                    if isinstance(side, S.Var) and side.anonymous:
                        self.report(Position(*at), "'_' cannot stand in a comparison")
            elif isinstance(literal, S.Aggregate):
                inner = self.bind(literal.body, bound - {literal.result.name})
                if literal.term.name not in inner:
                    self.report(Position(*literal.places[1]), f"the aggregated variable {literal.term.name} is not bound inside {{ … }}")
                self.uses(literal.body, inner)
                if literal.result.name in {v.name for a in S.body_atoms(literal.body) for v in S.atom_variables(a)}:
                    self.report(Position(*literal.places[0]), f"the aggregate's result {literal.result.name} cannot also stand inside {{ … }}")

    # recursion -------------------------------------------------------------
    def recursion(self) -> None:
        graph = self.program.dependencies
        graph.add_nodes_from(self.program.preds)
        estimates = self.program.defeat.estimates if self.program.defeat else {}
        for rule in self.program.rules:
            for literal, negative in _dependencies(rule.body):
                previous = graph.get_edge_data(literal.pred, rule.head.pred, {}).get("negative", False)
                graph.add_edge(literal.pred, rule.head.pred, negative=negative or previous, at=literal.at)
                if literal.pred in estimates:  # a cycle through defeat: one group, derived by an alternating fixpoint
                    graph.add_edge(estimates[literal.pred], rule.head.pred, negative=True, at=literal.at)
        component_of = self.program.stratum_of()
        for rule in self.program.rules:
            head = component_of.get(rule.head.pred)
            for literal, negative in _dependencies(rule.body):
                if negative and component_of.get(literal.pred) == head:
                    cycle = self.cycle(literal.pred, rule.head.pred)
                    if "·" in cycle:
                        self.defeat_cycle(literal.pred, rule.head.pred)
                    else:
                        self.report(literal.pos, f"negation or aggregate through recursion: {cycle} "
                                    "(the program cannot be stratified)")

    def cycle(self, start: str, end: str) -> str:
        return _cycle(self.program.dependencies, start, end)

    def defeat_cycle(self, start: str, end: str) -> None:
        """A cycle through the defeat of a defeasible conclusion, at the user's rule that reads the
        conclusion (a compiled rule's place is its origin's, not the cycle's)."""
        graph = self.program.dependencies
        path = shortest_path(graph, end, start) + [end] if start != end else [start, end]
        edges = list(zip(path, path[1:]))
        reading = next(((a, b) for a, b in edges if b.startswith("app·")), edges[-1])
        at = Position(*graph.get_edge_data(*reading)["at"])
        message = ("a cycle through defeat: " + " → ".join(map(describe, path)) +
                   " (a conclusion's attack reads the conclusion itself; the theory cannot be stratified)")
        if not any(p.position == at and p.message == message for p in self.problems):  # one cycle, many literals
            self.report(at, message)

def _cycle(graph: Digraph, start: str, end: str) -> str:
    path = shortest_path(graph, end, start) if start != end else [start]
    return " → ".join(path + [end])


def _problem(program: Program, position: Position, message: str) -> Problem:
    lines = next((m.lines for m in program.modules if m.path == position.path), [])
    return Problem(position, message, lines[position.line - 1] if 0 < position.line <= len(lines) else "")


def recursive_atoms(program: Program, rule: S.Rule) -> list[S.Atom]:
    """The positive body atoms of a rule that are mutually recursive with its head: of its group of
    mutually recursive relations (each atom's relation has an edge to the head, so a path back is
    the same group)."""
    stratum_of = program.stratum_of()
    head = stratum_of.get(rule.head.pred)
    return [a for a in rule.body if isinstance(a, S.Atom) and head is not None and stratum_of.get(a.pred) == head]


def warnings(program: Program) -> list[Problem]:
    """Findings that do not stop a program: arithmetic that can feed its own recursion (the
    bottom-up engine stops such a rule after its round limit; pyDatalog refuses it), and @prefer
    statements that can never decide anything."""
    return [_problem(program, position, message) for position, message in idle_prefers(program)] + \
        _feeding_arithmetic(program)


def _feeding_arithmetic(program: Program) -> list[Problem]:
    """Arithmetic that computes an argument of a relation from its own recursion."""
    found = []
    for rule in program.rules:
        if not recursive_atoms(program, rule):
            continue
        head = {v.name for v in S.atom_variables(rule.head)}
        computing = [(literal, literal.at) for literal in rule.body if _computes(literal) & head]
        computing += [(arg, at) for arg, at in zip(rule.head.args, rule.head.places) if isinstance(arg, S.BinOp)]
        for literal, at in computing:
            found.append(_problem(program, Position(*at), f"{literal} computes an argument of {rule.head.pred} "
                                  "from its own recursion, so its evaluation may never end (the bottom-up "
                                  "engine stops it after a bounded number of rounds; pyDatalog refuses it)"))
    return found


def pydatalog_problems(program: Program) -> list[Problem]:
    """Why pyDatalog would not finish on a program, which the bottom-up engine evaluates:
    arithmetic feeding its own recursion. (Right recursion it does not finish either, so the
    compiler puts the recursive atoms first; a cycle of three or more relations, so the
    engine derives it round by round.) A cycle through defeat it is not given (the bottom-up engine
    derives it by an alternating fixpoint): one problem, at the first atom that closes one."""
    if program.defeat is not None and program.defeat.estimates:
        atom = min(program.defeat.readings, key=lambda a: a.at)
        return [_problem(program, atom.pos, f"{atom} closes a cycle through defeat (a rule that bears on the "
                         "conclusion it reads), which the pyDatalog engine does not evaluate: use the bottom-up engine")]
    return _feeding_arithmetic(program)


def _computes(literal) -> set[str]:
    """The variable an ``X = expr`` comparison with arithmetic assigns (as a set, empty if none)."""
    if not isinstance(literal, S.Comparison) or literal.op != "=":
        return set()
    sides = ((literal.left, literal.right), (literal.right, literal.left))
    return {t.name for t, e in sides if isinstance(t, S.Var) and isinstance(e, S.BinOp)}


def _existential(negation: S.Negation, body) -> set[str]:
    """Variables repeated inside a negated atom and found nowhere else in the body: ``not p(X, Y, Y)``
    holds when no Y makes p(X, Y, Y) true."""
    names = [v.name for v in S.atom_variables(negation.atom)]
    elsewhere = {v.name for literal in body if literal is not negation for v in S.literal_variables(literal)}
    return {n for n in names if names.count(n) > 1 and n not in elsewhere}


def _dependencies(body, negative: bool = False):
    """(atom, through negation or aggregate) for every atom a body depends on."""
    for literal in body:
        if isinstance(literal, S.Atom):
            yield literal, negative
        elif isinstance(literal, S.Negation):
            yield literal.atom, True
        elif isinstance(literal, S.Aggregate):
            yield from _dependencies(literal.body, True)


def check(modules: list[S.Module], policy: str = "blocking") -> Program:
    """Check modules together, their defeasible rules compiled under ``policy`` (ambiguity
    ``blocking`` or ``propagating``, :mod:`.defeasible`); return the program or raise
    :class:`KBError` listing every problem."""
    checker = _Checker(modules)
    checker.declarations()
    checker.clauses()
    if not checker.problems:
        for position, message in expand(checker.program, policy):
            checker.report(position, message)
    if not checker.problems:
        checker.recursion()
    if checker.problems:
        raise KBError(checker.problems)
    return checker.program
