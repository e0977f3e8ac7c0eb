"""Defeasible logic compiled into ordinary rules (docs/defeasible.md).

A checked program's strict rules, ``@default`` rules, ``@defeater`` rules, strong negations
``~p`` and ``@prefer`` statements become stratified Datalog with negation, which the engines
evaluate like any rule, each conclusion with its derivation. For every defeasible predicate
``p`` (one with a defeasible rule or defeater, or a strong negation ``~p`` anywhere in a head)
and each of its literals ``L`` (``p``, ``~p``) with complement ``L̄``:

- ``Δ·L``: definitely (+Δ): the facts of L, and its strict rules over definite bodies;
- ``app·r``: rule r is applicable (its body defeasibly proven): the user's rule r itself, its head
  renamed;
- ``outranked·s``: an attacker s of L is answered by an applicable rule t for L with
  ``@prefer t > s`` (one rule for each @prefer, with its id, labels and source: team defeat),
  where s is supported (its derivation shows s; whether s applies is ``beaten·L``'s question);
- ``beaten·L``: some attacker of L (a rule of any kind for L̄) is live and not outranked;
- ``L``: defeasibly proven (+∂), ``L(x) :- Δ·L(x)`` and, for each strict or defeasible rule r for
  L, ``L(x) :- app·r(x), not Δ·L̄(x), not beaten·L(x)`` (the rule ``r·wins``);
- ``Σ·L``: supported (+Σ, Governatori et al. 2004): a chain of strict and defeasible rules, attacks
  ignored; ``sup·r`` is r over supported bodies.

An attacker is live when applicable (ambiguity blocking, the default) or when supported
(ambiguity propagating). A predicate that reads a defeasible one through positive atoms (and is not
defeasible itself) keeps its rules as they are (they give +∂) and has ``Δ·`` and ``Σ·`` relations
too; every other relation is definite, supported and defeasibly proven alike. ``not p(…)`` always
reads +∂ p. Ambiguity blocking reproduces the proof theory of Antoniou, Billington, Governatori and
Maher (2001) on a theory whose compiled program can be stratified; a theory that cannot (a cycle
through defeat) is refused by the checker.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple, Optional

from . import syntax as S
from .digraph import Digraph, components, shortest_path
from .errors import Position, did_you_mean
from .labels import defined

BLOCKING, PROPAGATING = "blocking", "propagating"
POLICIES = (BLOCKING, PROPAGATING)


def definite(pred: str) -> str:
    """The relation holding what is definitely proven (+Δ) of ``pred`` (``p`` or ``~p``) in a
    program with defeasible rules (:attr:`Defeat.definite`)."""
    return "Δ·" + pred


def supported(pred: str) -> str:
    return "Σ·" + pred


def applicable(rule_id: str) -> str:
    return "app·" + rule_id


def outranked(rule_id: str) -> str:
    return "outranked·" + rule_id


def beaten(pred: str) -> str:
    return "beaten·" + pred


def _supporting(rule_id: str) -> str:
    return "sup·" + rule_id


def estimate(pred: str) -> str:
    """The relation a negation of ``pred`` reads inside a cycle through defeat: the estimate of
    ``pred`` the alternating fixpoint holds fixed while it derives the cycle's relations."""
    return "est·" + pred


_READINGS = (("app·", "rule {}"), ("sup·", "the support of rule {}"), ("outranked·", "a rule preferred to {}"),
             ("beaten·", "the attack on {}"), ("Δ·", "definitely {}"), ("Σ·", "supported {}"))


def describe(relation: str) -> str:
    """A compiled relation as a reader of the checker's messages knows it (``app·r`` → ``rule r``)."""
    for prefix, reading in _READINGS:
        if relation.startswith(prefix):
            return reading.format(relation.removeprefix(prefix))
    return relation


@dataclass
class Defeat:
    """What the compilation made of a program's defeasible rules: the policy, the defeasible
    predicates, the relations read through them (``tainted``), every literal's rules and attackers
    (user rules, by relation ``p``/``~p``) and the @prefer statements by inferior rule."""

    policy: str = BLOCKING
    predicates: frozenset = frozenset()
    tainted: frozenset = frozenset()
    rules: dict = field(default_factory=dict)  # literal → the user's rules for it (all kinds)
    prefers: dict = field(default_factory=dict)  # inferior rule id → [S.Prefer]
    estimates: dict = field(default_factory=dict)  # est·q → q, in the cycles through defeat
    readings: list = field(default_factory=list)  # the user's body atoms that close a cycle through defeat
    cycles: tuple = ()  # the groups of relations in a cycle through defeat, each sorted
    # a compiled rule whose label is a user's rule's (·wins, ·attacks, ·supports) → its words after
    # it, by language: its application reads the bindings of that rule's application, its first premise
    restated: dict = field(default_factory=dict)

    def definite(self, pred: str) -> str:
        """The relation of +Δ ``pred`` (``pred`` itself where nothing defeasible reaches it)."""
        return definite(pred) if S.base(pred) in self.tainted else pred

    def supported(self, pred: str) -> str:
        return supported(pred) if S.base(pred) in self.tainted else pred

    def attackers(self, pred: str) -> list[S.Rule]:
        """The rules for the complement of ``pred`` (``p`` or ``~p``): what may defeat it."""
        return self.rules.get(S.strong(pred), [])


class Analysis(NamedTuple):
    """What :func:`expand` works out of a program before and while it compiles it: the relations read
    through a defeasible one (``Defeat.tainted``) and the groups in a cycle through defeat
    (``Defeat.cycles``). A snapshot keeps them (:mod:`.snapshot`), so that a program decoded from it,
    which passed its check, compiles without working them out again."""

    tainted: frozenset
    cycles: tuple


def expand(program, policy: str = BLOCKING, known: Optional[Analysis] = None) -> list[tuple[Position, str]]:
    """Compile the defeasible rules of a program whose clauses are checked, in place: its rules for
    defeasible literals renamed to their ``app·`` relations (each at its place), the relations above
    declared and their rules and facts added after. Returns the problems (place, message) of its
    @prefer statements and strong negations; only a program without any is compiled. A program with
    no defeasible rule and no @prefer is left as it is. ``known``: the :class:`Analysis` of this
    program compiled before (none of its problems are then looked for: it had none)."""
    prefers = [p for module in program.modules for p in module.prefers]
    program.defeat = None
    rules = program.rules
    defeasible = {S.base(r.head.pred) for r in rules + program.facts if r.kind != S.STRICT or r.head.pred[0] == "~"}
    if not defeasible and not prefers:
        return []
    if known is None:
        problems = _problems(program, prefers, defeasible)
        if problems:
            return problems
    tainted = _tainted(rules, defeasible) if known is None else known.tainted
    by_literal: dict[str, list[S.Rule]] = {}
    for rule in rules:
        if S.base(rule.head.pred) in defeasible:
            by_literal.setdefault(rule.head.pred, []).append(rule)
    by_inferior: dict[str, list[S.Prefer]] = {}
    for prefer in prefers:
        by_inferior.setdefault(prefer.inferior, []).append(prefer)
    defeat = program.defeat = Defeat(policy, frozenset(defeasible), frozenset(tainted), by_literal, by_inferior)
    _Builder(program, defeat).build()
    _estimate_cycles(program, defeat, _cycles(program) if known is None else known.cycles)
    return []


def analysis(defeat: Optional[Defeat]) -> Optional[Analysis]:
    """What :func:`expand` worked out for a program it compiled to ``defeat`` (None when it had nothing to compile)."""
    return None if defeat is None else Analysis(defeat.tainted, defeat.cycles)


def _problems(program, prefers: list, defeasible: set) -> list[tuple[Position, str]]:
    """Unknown rules and cycles in @prefer; strong negations nothing concludes; input relations
    made defeasible."""
    found = []

    def report(at, message):
        found.append((Position(*at), message))

    ids = {r.id for r in program.rules}
    graph = Digraph()
    for prefer in prefers:
        for rule_id, at in zip((prefer.superior, prefer.inferior), prefer.places):
            if rule_id not in ids:
                report(at, f"@prefer names {rule_id}, which is no rule's id{did_you_mean(rule_id, ids)}")
        if prefer.superior == prefer.inferior:
            report(prefer.at, f"@prefer {prefer.superior} > {prefer.inferior}: a rule cannot be superior to itself")
        elif prefer.superior in graph and prefer.inferior in graph and \
                (path := shortest_path(graph, prefer.inferior, prefer.superior)):
            report(prefer.at, "a cycle in @prefer: " + " > ".join([prefer.superior] + path))
        graph.add_edge(prefer.superior, prefer.inferior)
    concluded = {r.head.pred for r in program.rules + program.facts if r.kind != S.DEFEATER}
    for rule in program.rules:
        for atom in S.body_atoms(rule.body):
            if atom.pred[0] == "~" and atom.pred not in concluded:
                report(atom.at, f"{atom} can never hold: no fact, strict or @default rule concludes {atom.pred}")
    for name in sorted(defeasible):
        decl = program.preds[name]
        if decl.input:
            report(decl.at, f"{name} is an input relation: its facts come at run time, so it cannot be defeasible "
                   "(conclude another relation from it)")
    return found


def idle_prefers(program) -> list[tuple[Position, str]]:
    """The @prefer statements that can never decide anything (a warning, not an error): between
    rules whose heads never conflict (not p and ~p), or with a defeater preferred, which cannot
    defend its head (a defeater blocks what it attacks unless a rule for that is preferred to it)."""
    if program.defeat is None:
        return []
    by_id = {r.id: r for rules in program.defeat.rules.values() for r in rules}
    by_id.update((r.id, r) for r in program.rules if r.id not in by_id)
    found = []
    for prefer in (p for m in program.modules for p in m.prefers):
        superior, inferior = by_id[prefer.superior], by_id[prefer.inferior]
        if superior.head.pred != S.strong(inferior.head.pred):
            found.append((prefer.pos, f"@prefer {prefer.superior} > {prefer.inferior} has no effect: their heads "
                          f"({superior.head.pred}, {inferior.head.pred}) never conflict (only p and ~p do)"))
        elif superior.kind == S.DEFEATER:
            found.append((prefer.pos, f"@prefer {prefer.superior} > {prefer.inferior} has no effect: a defeater "
                          f"concludes nothing to defend; it blocks {inferior.head.pred} unless "
                          f"@prefer {prefer.inferior} > {prefer.superior}"))
    return found


def _cycles(program) -> tuple[tuple[str, ...], ...]:
    """The groups of mutually recursive relations with a negation inside it and a compiled relation
    among them (the cycles through defeat), each sorted, in dependency order."""
    graph = Digraph()
    graph.add_nodes_from(program.preds)
    for rule in program.rules:
        for atom in S.body_atoms(rule.body):
            graph.add_edge(atom.pred, rule.head.pred)
    groups = components(graph)
    group_of = {pred: k for k, members in enumerate(groups) for pred in members}
    cyclic = set()
    for rule in program.rules:
        for literal in rule.body:
            if isinstance(literal, S.Negation) and group_of[literal.atom.pred] == group_of[rule.head.pred]:
                cyclic.add(group_of[rule.head.pred])
    return tuple(members for k, members in enumerate(groups) if k in cyclic and any("·" in p for p in members))


def _estimate_cycles(program, defeat: Defeat, cycles: tuple) -> None:
    """Make each cycle through defeat (``cycles``, :func:`_cycles`) read its negations of its own
    relations from their estimates (``est·q``), declared: the engine derives the group by an
    alternating fixpoint (docs/defeasible.md). The rules keep their places; a group without a
    compiled relation is left for the checker to refuse."""
    defeat.cycles = cycles
    group_of = {pred: k for k, members in enumerate(cycles) for pred in members}
    if not group_of:
        return
    for index, rule in enumerate(program.rules):
        group = group_of.get(rule.head.pred)
        if group is None:
            continue
        if rule.head.pred.startswith("app·"):  # a user's rule reading its own group: where the cycle closes
            defeat.readings += [a for a in rule.body if isinstance(a, S.Atom) and group_of.get(a.pred) == group]
        body = []
        for literal in rule.body:
            if isinstance(literal, S.Negation) and group_of.get(literal.atom.pred) == group:
                pred = literal.atom.pred
                if estimate(pred) not in program.preds:
                    program.preds[estimate(pred)] = replace(program.preds[pred], name=estimate(pred), input=False)
                defeat.estimates[estimate(pred)] = pred
                literal = replace(literal, atom=replace(literal.atom, pred=estimate(pred)))
            body.append(literal)
        if any(a is not b for a, b in zip(body, rule.body)):
            program.rules[index] = replace(rule, body=tuple(body))


def _tainted(rules: list, defeasible: set) -> set:
    """The defeasible predicates and those whose rules read one of these through a positive atom."""
    tainted, changed = set(defeasible), True
    while changed:
        changed = False
        for rule in rules:
            head = S.base(rule.head.pred)
            if head not in tainted and any(isinstance(a, S.Atom) and S.base(a.pred) in tainted for a in rule.body):
                tainted.add(head)
                changed = True
    return tainted


class _Builder:
    """Adds the declarations, rules and facts of :func:`expand` to a program."""

    def __init__(self, program, defeat: Defeat):
        self.program, self.defeat = program, defeat
        self.added: list[S.Rule] = []
        self.concluded: set | None = None  # the literals a fact or strict rule concludes

    def build(self) -> None:
        program, defeat = self.program, self.defeat
        for name in sorted(defeat.tainted):
            literals = [name, "~" + name] if name in defeat.predicates else [name]
            for literal in literals:
                if literal[0] == "~":
                    self.declare(literal, literal, "", "")
                self.declare(definite(literal), literal, "確：", "definitely: ")
                self.declare(supported(literal), literal, "有據：", "supported: ")
        facts = [f for f in program.facts if S.base(f.head.pred) in defeat.tainted]
        program.facts += [self.renamed(f, definite(f.head.pred)) for f in facts]
        for index, rule in enumerate(program.rules):
            head = rule.head.pred
            if S.base(head) not in defeat.tainted:
                continue
            if rule.kind == S.STRICT:
                self.added.append(replace(self.renamed(rule, definite(head)), body=self.mapped(rule.body, definite),
                                          id=rule.id + "·definite"))
            if S.base(head) in defeat.predicates:
                self.defeasible(index, rule)
            else:
                self.added.append(replace(self.renamed(rule, supported(head)), body=self.mapped(rule.body, supported),
                                          id=rule.id + "·supported"))
        for name in sorted(defeat.tainted):
            if name in defeat.predicates:
                for literal in (name, "~" + name):
                    self.literal(literal)
            else:
                self.generic(supported(name), [definite(name)], (), name, name + "·supported")
        program.rules += self.added

    def declare(self, name: str, literal: str, zh: str, en: str) -> None:
        """Declare a compiled relation over the arguments of ``literal``'s predicate, its labels the
        literal's (``~p``: 非…, not …) after ``zh`` or ``en``."""
        decl = self.program.preds[S.base(literal)]
        negated = literal[0] == "~"
        labels = tuple((lang, (zh if lang == "zh" else en) + ("非" if lang == "zh" else "not ") * negated + text)
                       for lang, text in decl.labels)
        self.program.preds[name] = replace(decl, name=name, labels=labels, input=False)

    @staticmethod
    def renamed(rule: S.Rule, pred: str) -> S.Rule:
        return replace(rule, head=replace(rule.head, pred=pred))

    def mapped(self, body, relation) -> tuple:
        """A body whose positive atoms read ``relation(pred)`` where something defeasible reaches
        ``pred`` (negations and aggregates read +∂, as written)."""
        tainted = self.defeat.tainted
        return tuple(replace(l, pred=relation(l.pred)) if isinstance(l, S.Atom) and S.base(l.pred) in tainted else l
                     for l in body)

    def defeasible(self, index: int, rule: S.Rule) -> None:
        """A user's rule for a defeasible literal: renamed to its applicability (in place), with its
        support beside it, and declared."""
        for name, zh, en in ((applicable(rule.id), "可用：", "a rule applies: "), (_supporting(rule.id), "有據：", "supported: ")):
            self.declare(name, rule.head.pred, zh, en)
        self.program.rules[index] = self.renamed(rule, applicable(rule.id))
        self.added.append(replace(self.renamed(rule, _supporting(rule.id)), body=self.mapped(rule.body, supported),
                                  id=rule.id + "·supported"))

    def literal(self, literal: str) -> None:
        """The rules of +∂, beaten and outranked, and +Σ of one literal of a defeasible predicate (a
        literal without facts or strict rules has no rule from its empty Δ relation)."""
        defeat, base = self.defeat, S.base(literal)
        own, attackers = defeat.rules.get(literal, []), defeat.attackers(literal)
        live = _supporting if defeat.policy == PROPAGATING else applicable
        if self.definite_somewhere(literal):
            self.generic(literal, [definite(literal)], (), base, literal + "·definite")
            self.generic(supported(literal), [definite(literal)], (), base, supported(literal) + "·definite")
        if attackers:
            self.declare(beaten(literal), literal, "受制：", "beaten: ")
        guards = [definite(S.strong(literal))] * self.definite_somewhere(S.strong(literal)) + \
            [beaten(literal)] * bool(attackers)
        for rule in own:
            if rule.kind != S.DEFEATER:
                self.generic(literal, [applicable(rule.id)], guards, rule, rule.id + "·wins", " (prevails)", "（勝）")
                self.generic(supported(literal), [_supporting(rule.id)], (), rule, rule.id + "·supports")
        for attacker in attackers:
            answers = [p for p in defeat.prefers.get(attacker.id, [])
                       if any(r.id == p.superior and r.kind != S.DEFEATER for r in own)]
            if answers:
                self.declare(outranked(attacker.id), attacker.head.pred, "被勝：", "outranked: ")
            self.generic(beaten(literal), [live(attacker.id)], [outranked(attacker.id)] * bool(answers), attacker,
                         attacker.id + "·attacks", " (attacks)", "（攻）")
            for prefer in answers:  # answered by an applicable preferred rule (ABGM's 2.3.2), shown with the
                # attacker's support, which its applicability implies: reading whether it applies would
                # make a cycle of every attacker that reads the conclusion
                self.generic(outranked(attacker.id), [applicable(prefer.superior), _supporting(attacker.id)], (),
                             prefer, prefer.id)

    def definite_somewhere(self, literal: str) -> bool:
        """Whether a fact or a strict rule concludes ``literal`` (its Δ relation may hold something)."""
        if self.concluded is None:
            self.concluded = {f.head.pred for f in self.program.facts} | \
                {r.head.pred for rules in self.defeat.rules.values() for r in rules if r.kind == S.STRICT}
        return literal in self.concluded

    def generic(self, head: str, positive: list, negative, origin, rule_id: str, en: str = "", zh: str = "") -> None:
        """``head(X1…) :- positive(X1…)…, not negative(X1…)…`` over the arguments of the declared
        predicate, with ``origin``'s labels and source (a rule or @prefer; a predicate's name: its
        declaration's place) and its place."""
        if isinstance(origin, str):
            decl = self.program.preds[origin]
            labels, source, annotated, at = (), "", False, decl.at
        else:
            labels = tuple((lang, _restated(text, origin, lang) + (zh if lang == "zh" else en))
                           for lang, text in origin.labels)
            source, annotated, at = origin.source, True, origin.at
        if isinstance(origin, S.Rule):
            self.defeat.restated[rule_id] = {"zh": zh, "en": en}
        names = tuple(S.Var(f"X{k}") for k in range(1, self.program.preds[head].arity + 1))
        places = (at,) * len(names)

        def atom(pred):
            return S.Atom(pred, names, places, at)
        body = tuple(atom(p) for p in positive) + tuple(S.Negation(atom(p), at) for p in negative)
        self.added.append(S.Rule(atom(head), body, rule_id, labels, source, annotated, at=at))


def _restated(template: str, origin, lang: str) -> str:
    """``origin``'s label for a rule over its head's arguments (``X1``, ``X2`` …): a slot of a head
    variable becomes that argument's slot; a slot the new rule cannot bind is left out, as a
    definition reads (「用神剋日干」, never 「用神某剋日干某」)."""
    head = origin.head.args if isinstance(origin, S.Rule) else ()
    slots = {arg.name: f"{{X{k}}}" for k, arg in enumerate(head, 1) if isinstance(arg, S.Var)}
    return defined(template, slots, lang)
