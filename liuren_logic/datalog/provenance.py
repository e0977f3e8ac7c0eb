"""Derivations as graphs (``networkx.DiGraph``): ``why`` (a minimal-height proof) and ``why_not``.

Node kinds (attribute ``kind``):

``atom``       a derived atom; one edge to the rule application that derived it
``fact``       a base fact (``where`` = file:line, or the reason a chart fact holds; a fact of an
               ``@facts`` table also has ``table`` and ``source``)
``rule``       a rule application: ``rule``, ``where``, ``source``, ``bindings``, labels
``not``        a negated literal that holds; its children say why the atom fails
``compare``    a comparison with its values (``holds`` True or False); one that fails is labelled
               with what its values stand for (the premises that gave them)
``aggregate``  an aggregate: ``func``, ``value``; children are its witnesses
``absent``     an atom that does not hold (why-not); children: the rules that fail,
               or, for a relation given only by facts, ``reason``: no such fact
``fail``       a rule that could have derived an absent atom, and where it fails; labelled with
               the values its search reached and those its later premises fix, a slot
               nothing fixes left out (``labels.defined``), as is an absent atom's
``holds``      (why-not) a negated literal that fails because its atom holds

Edges point from a conclusion to what supports it and carry ``order`` (the body
position) so views can keep the rule's order. Node ids are short hashes of the
node's text, so the same question gives the same graph, byte for byte.

Every attribute is a text, a number or a truth value, so ``networkx.write_graphml`` writes
any derivation: a node's ``args`` (a list) and a rule's ``bindings`` (variable → value) are
JSON texts; :func:`arguments` and :func:`bindings` read them back. ``graph_type`` builds into
another class with ``networkx.DiGraph``'s interface instead (the command line's text output
passes :class:`~liuren_logic.datalog.digraph.Digraph`, which needs no networkx import).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Optional, Sequence

from . import syntax as S
from .collector import collection_paused
from .compiler import CompiledAggregate, CompiledRule
from .program import Engine
from .semantics import Value, arithmetic, compare, sort_key
from .errors import DatalogError
from .labels import ANY, atom_label, defined, fill

GroundAtom = tuple  # (pred, (values…))
MAX_DEAD_ENDS = 12
MAX_PARTIALS = 500
MAX_HEIGHT = 250  # steps of one derivation drawn: each takes a few frames of Python's stack (1000 by default)


class NotDerivable(DatalogError):
    """``why`` was asked of an atom that does not hold."""


class Derivable(DatalogError):
    """``why_not`` was asked of an atom that holds."""


class TooDeep(DatalogError):
    """The shortest derivation of an atom is longer than can be drawn."""


def atom_text(pred: str, args: Sequence[Optional[Value]]) -> str:
    return f"{pred}({', '.join('_' if a is None else S.format_value(a) for a in args)})"


def firing_label(firing: "Firing", lang: str) -> str:
    """A rule firing's label in ``lang``, filled with its values."""
    shown = {k: v for k, v in firing.binding.items() if not k.endswith("·")}
    return fill(firing.rule.rule.label(lang), shown, ANY[lang], lang)


def node_id(kind: str, text: str) -> str:
    return "n" + hashlib.sha1(f"{kind}|{text}".encode()).hexdigest()[:16]


def new_graph(graph_type: Optional[type], **attrs):
    """An empty derivation of ``graph_type`` (``networkx.DiGraph`` when None) with these graph attributes."""
    if graph_type is None:
        from networkx import DiGraph as graph_type
    return graph_type(**attrs)


def _encoded(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def arguments(attrs: dict) -> list:
    """An atom node's arguments (``_`` for any value), decoded from its ``args`` attribute."""
    return json.loads(attrs.get("args", "[]"))


def bindings(attrs: dict) -> dict:
    """A rule node's variables and their values, decoded from its ``bindings`` attribute."""
    return json.loads(attrs.get("bindings", "{}"))


@dataclass
class Firing:
    """One way a rule fired: the compiled rule and the values of all its variables."""

    rule: CompiledRule
    binding: dict
    premises: list = field(default_factory=list)  # ground atoms the firing rests on

    @property
    def atoms(self) -> list[GroundAtom]:
        """The ground atoms of the rule's body (an aggregate's witnesses left out)."""
        return [(l.pred, ground(l, self.binding)) for l in self.rule.body if isinstance(l, S.Atom)]

    @property
    def sort_key(self):
        return (self.rule.index, sort_key(tuple(self.binding[v] for v in self.rule.variables)))


def substitute(term, binding: dict):
    """The value of a term under a binding (None when a variable is unbound or it has no value)."""
    if isinstance(term, S.Const):
        return term.value
    if isinstance(term, S.Var):
        return binding.get(term.name)
    left, right = substitute(term.left, binding), substitute(term.right, binding)
    return None if left is None or right is None else arithmetic(term.op, left, right)


def show_term(term, binding: dict) -> str:
    """A term with its variables replaced by their values: ``(2 + 6) mod 12``."""
    if isinstance(term, S.BinOp):
        return f"({show_term(term.left, binding)} {term.op} {show_term(term.right, binding)})"
    value = substitute(term, binding)
    return "_" if value is None else S.format_value(value)


def ground(atom: S.Atom, binding: dict) -> tuple:
    return tuple([binding.get(a.name) if a.__class__ is S.Var else substitute(a, binding) for a in atom.args])


class Explainer:
    """Answers why and why-not questions from one engine (a chart's batch, pyDatalog, ``session.kb``)."""

    def __init__(self, kb: Engine, why_not_depth: int = 2):
        self.kb = kb
        self.why_not_depth = why_not_depth
        self._firings: dict[GroundAtom, list[Firing]] = {}
        self._ordered: set[GroundAtom] = set()  # the atoms whose firings have been put in firing order
        self._chosen: dict[GroundAtom, tuple[Firing, int]] = {}  # atom → a firing of least height, its height
        self._tables: dict[GroundAtom, S.Rule] | None = None  # fact → the @facts table it belongs to
        self._shapes: dict[str, Optional[list]] = {}  # fire relation → how its rows give the premises

    # firings -----------------------------------------------------------------
    def firings(self, atom: GroundAtom) -> list[Firing]:
        """Every application of a rule that derives this ground atom, in firing order (``sort_key``)."""
        found = self._found(atom)
        if atom not in self._ordered:
            found.sort(key=lambda f: f.sort_key)
            self._ordered.add(atom)
        return found

    def _found(self, atom: GroundAtom) -> list[Firing]:
        """The applications of ``firings``, in no set order (found once)."""
        if atom in self._firings:
            return self._firings[atom]
        pred, args = atom
        found = []
        for compiled in self.kb.rules_for.get(pred, ()):
            binding = _unify(compiled.rule.head.args, args)
            if binding is None:
                continue
            pattern = [binding.get(v) for v in compiled.variables]
            shape = self._shape(compiled)
            for row in self.kb.query(compiled.fire, pattern):
                firing = Firing(compiled, dict(zip(compiled.variables, row)))
                firing.premises = self._premises(firing) if shape is None else [(p, take(row)) for p, take in shape]
                found.append(firing)
        self._firings[atom] = found
        return found

    def _shape(self, compiled: CompiledRule) -> Optional[list]:
        """(pred, row → its arguments) for each body atom of a rule whose atoms' arguments are its
        variables and constants, read straight from the rows of its fire relation; None otherwise
        (an aggregate's witnesses, arithmetic in an argument)."""
        if compiled.fire in self._shapes:
            return self._shapes[compiled.fire]
        column = {v: i for i, v in enumerate(compiled.variables)}
        shape = []
        for literal in compiled.body:
            if isinstance(literal, S.Aggregate):
                shape = None
                break
            if not isinstance(literal, S.Atom):
                continue
            args = literal.args
            if not all(isinstance(a, S.Const) or isinstance(a, S.Var) and a.name in column for a in args):
                shape = None
                break
            if all(isinstance(a, S.Var) for a in args) and len(args) > 1:
                shape.append((literal.pred, itemgetter(*(column[a.name] for a in args))))
            else:
                cells = [(True, column[a.name]) if isinstance(a, S.Var) else (False, a.value) for a in args]
                shape.append((literal.pred, lambda row, cells=cells: tuple([row[c] if var else c for var, c in cells])))
        self._shapes[compiled.fire] = shape
        return shape

    def _premises(self, firing: Firing) -> list[GroundAtom]:
        out = []
        for literal in firing.rule.body:
            if isinstance(literal, S.Atom):
                out.append((literal.pred, ground(literal, firing.binding)))
            elif isinstance(literal, S.Aggregate):
                agg = firing.rule.aggregates[literal]
                for witness in self.witnesses(agg, firing.binding):
                    out.extend((a.pred, ground(a, witness)) for a in agg.body if isinstance(a, S.Atom))
        return out

    def witnesses(self, agg: CompiledAggregate, binding: dict) -> list[dict]:
        group = [binding[n] for n in agg.group] or ["all"]
        rows = self.kb.query(agg.helper, group + [None] * len(agg.inner))
        names = (agg.group or ("·all",)) + agg.inner
        return [dict(zip(names, row)) for row in rows]

    def is_fact(self, atom: GroundAtom) -> bool:
        return self.kb.is_fact(*atom)

    def table_of(self, atom: GroundAtom) -> S.Rule | None:
        """The ``@facts`` table a KB fact was written in (with its id, labels and source), if any."""
        if self._tables is None:
            self._tables = {(f.head.pred, tuple(a.value for a in f.head.args)): f
                            for f in self.kb.program.facts if f.annotated}
        pred, args = atom
        return self._tables.get((pred, tuple(args)))

    # why ---------------------------------------------------------------------
    def why(self, pred: str, args: Sequence[Value], firing: Optional[Firing] = None, graph_type: Optional[type] = None):
        """A minimal-height derivation of a ground atom (through ``firing`` at the root, if given), as a
        ``graph_type`` (``networkx.DiGraph`` by default)."""
        root = (pred, tuple(args))
        if not self.is_fact(root) and not self._found(root):
            raise NotDerivable(f"{atom_text(pred, args)} does not hold; ask why-not")
        chosen = self._choose(root)
        if root in chosen and chosen[root][1] > MAX_HEIGHT:
            raise TooDeep(self._too_deep(root, chosen))
        if firing is not None:
            chosen = {**chosen, root: (firing, chosen[root][1])}
        graph = new_graph(graph_type, question=f"why {atom_text(pred, args)}", school=self.kb.name)
        graph.graph["root"] = self._add_atom(graph, root, chosen)
        return graph

    def chosen(self, pred: str, args: Sequence[Value]) -> Optional[Firing]:
        """The rule application at the root of ``why(pred, args)``, without drawing the graph (None for a fact)."""
        root = (pred, tuple(args))
        if self.is_fact(root):
            return None
        found = self._found(root)
        if not found:
            raise NotDerivable(f"{atom_text(pred, args)} does not hold; ask why-not")
        if len(found) == 1:  # the only application is the one chosen, whatever the heights below it
            return found[0]
        return self._choose(root)[root][0]

    def application(self, firing: Firing) -> dict:
        """A rule application's node attributes, as ``why`` draws them."""
        return {**self._rule_attrs(firing.rule, firing.binding), **self._restating(firing)}

    def _restating(self, firing: Firing) -> dict:
        """The labels of an application of a rule that restates a user's rule (a defeasible rule
        that prevails, attacks or supports: :attr:`~.defeasible.Defeat.restated`), filled with the
        bindings of that rule's application below it, its first premise; {} for any other rule."""
        defeat = self.kb.program.defeat
        after = defeat.restated.get(firing.rule.rule.id) if defeat is not None else None
        if after is None:
            return {}
        inner = self.chosen(*firing.atoms[0])
        if inner is None:
            return {}
        shown = {k: v for k, v in inner.binding.items() if not k.endswith("·")}
        return {lang: fill(inner.rule.rule.label(lang), shown, ANY[lang], lang) + words for lang, words in after.items()}

    def _too_deep(self, root: GroundAtom, chosen) -> str:
        """Which rule makes a derivation too long: the one used most on its longest path."""
        uses: dict[str, int] = {}
        atom, rules = root, {}
        while atom in chosen:
            firing = chosen[atom][0]
            rule = firing.rule.rule
            uses[rule.id], rules[rule.id] = uses.get(rule.id, 0) + 1, rule
            atom = max(firing.premises, key=lambda p: chosen[p][1] if p in chosen else 0, default=None)
        rule = rules[max(uses, key=lambda r: (uses[r], r))]
        return (f"the derivation of {atom_text(*root)} is {chosen[root][1]} steps deep, {uses[rule.id]} of them "
                f"by rule {rule.id} ({rule.pos}) deriving {rule.head.pred}; at most {MAX_HEIGHT} can be drawn: "
                "ask about an atom nearer the facts")

    def _choose(self, root: GroundAtom) -> dict[GroundAtom, tuple[Firing, int]]:
        """Explore every derivation below root; keep, per atom, a firing of least height (the first
        in firing order among those of that height).

        An atom's height rests only on what lies below it, so the choices are kept for the next
        question: what was chosen before is not explored again. (Exploring only as deep as root's
        height needs was tried: on a points-to analysis that depth reaches nearly every atom below,
        and counting the heights again at each depth cost more than it saved.)"""
        chosen, explored = self._chosen, {}
        stack = [root]
        with collection_paused():  # firings make no cycles: the collector would only walk them
            while stack:
                atom = stack.pop()
                if atom in explored or atom in chosen or self.is_fact(atom):
                    continue
                explored[atom] = self._found(atom)
                for firing in explored[atom]:
                    stack.extend(p for p in firing.premises if p not in explored)
            height, reached = self._least_heights(explored)
        first = 0  # the index of an atom's first firing
        for atom, firings in explored.items():
            least = height.get(atom, math.inf)
            usable = [f for i, f in enumerate(firings, first) if reached[i] == least]
            if usable:
                chosen[atom] = (min(usable, key=lambda f: f.sort_key), least)
            first += len(firings)
        return chosen

    def _least_heights(self, explored: dict[GroundAtom, list[Firing]]) -> tuple[dict[GroundAtom, int], list]:
        """The least height of each explored atom, and each firing's height, in order (every atom
        below is explored, chosen before, of its height, or a fact, of height 0).

        Heights settle in increasing order (Knuth's generalisation of Dijkstra's search, a firing's
        height being one more than its highest premise): a firing is ready once its last premise has
        settled, and an atom settles at the lowest height one of its firings is ready."""
        chosen = self._chosen
        heads, tops, missing = [], [], []  # per firing: the atom it derives, its highest settled premise, premises to settle
        waiting: dict[GroundAtom, list[int]] = {}  # unsettled atom → the firings resting on it
        ready: dict[int, list[int]] = {}  # height → the firings of that height whose premises have all settled
        for atom, firings in explored.items():
            for firing in firings:
                i, unsettled = len(heads), {p for p in firing.premises if p in explored}
                heads.append(atom)
                tops.append(max((chosen[p][1] if p in chosen else 0
                                 for p in firing.premises if p not in unsettled), default=0))
                missing.append(len(unsettled))
                for p in unsettled:
                    waiting.setdefault(p, []).append(i)
                if not unsettled:
                    ready.setdefault(1 + tops[i], []).append(i)
        height: dict[GroundAtom, int] = {}
        while ready:  # the lowest height first; a firing made ready there is higher
            h = min(ready)
            for i in ready.pop(h):
                if heads[i] in height:
                    continue
                height[heads[i]] = h
                for j in waiting.get(heads[i], ()):
                    tops[j], missing[j] = max(tops[j], h), missing[j] - 1
                    if missing[j] == 0:
                        ready.setdefault(1 + tops[j], []).append(j)
        return height, [1 + top if not left else math.inf for top, left in zip(tops, missing)]

    def _add_atom(self, graph, atom: GroundAtom, chosen) -> str:
        pred, args = atom
        text = atom_text(pred, args)
        kind = "fact" if self.is_fact(atom) else "atom"
        nid = node_id(kind, text)
        if nid in graph:
            return nid
        graph.add_node(nid, **self._atom_attrs(kind, pred, args))
        if kind == "fact":
            graph.nodes[nid]["where"] = self.kb.origins[(pred, tuple(args))]
            table = self.table_of(atom)
            if table is not None:
                graph.nodes[nid].update(table=table.id, source=table.source)
        else:
            firing, graph.nodes[nid]["height"] = chosen[atom]
            graph.add_edge(nid, self._add_firing(graph, firing, chosen), order=0)
        return nid

    def _atom_attrs(self, kind: str, pred: str, args) -> dict:
        decl = self.kb.declared(pred)
        return {"kind": kind, "text": atom_text(pred, args), "pred": pred,
                "args": _encoded([("_" if a is None else a) for a in args]),
                "zh": atom_label(decl, args, "zh"), "en": atom_label(decl, args, "en")}

    def _rule_attrs(self, compiled: CompiledRule, binding: dict, kind: str = "rule", known: Optional[dict] = None) -> dict:
        """A rule node's attributes; a rule that failed (``fail``) is labelled with ``known`` (its
        bindings and what its other premises fix, :meth:`_known`), an unknown slot left out."""
        rule = compiled.rule
        shown = {k: v for k, v in binding.items() if not k.endswith("·")}
        bindings = ", ".join(f"{k}={S.format_value(v)}" for k, v in sorted(shown.items()))
        attrs = {"kind": kind, "text": f"{rule.id} [{bindings}]", "rule": rule.id,
                 "where": f"{rule.pos.path}:{rule.pos.line}", "source": rule.source,
                 "labelled": rule.annotated, "bindings": _encoded(dict(sorted(shown.items())))}
        if kind == "fail":
            known = {k: v for k, v in (known or binding).items() if not k.endswith("·")}
            return {**attrs, "zh": defined(rule.label("zh"), known, "zh"), "en": defined(rule.label("en"), known, "en")}
        return {**attrs, "zh": fill(rule.label("zh"), shown, ANY["zh"], "zh"), "en": fill(rule.label("en"), shown, ANY["en"])}

    def _add_firing(self, graph, firing: Firing, chosen) -> str:
        attrs = self.application(firing)
        nid = node_id("rule", attrs["text"])
        if nid in graph:
            return nid
        graph.add_node(nid, **attrs)
        for order, literal in enumerate(firing.rule.body):
            child = self._add_literal(graph, firing, literal, chosen)
            graph.add_edge(nid, child, order=order)
        return nid

    def _add_literal(self, graph, firing: Firing, literal, chosen) -> str:
        binding = firing.binding
        if isinstance(literal, S.Atom):
            return self._add_atom(graph, (literal.pred, ground(literal, binding)), chosen)
        if isinstance(literal, S.Comparison):
            return self._add_comparison(graph, firing.rule, literal, binding, True)
        if isinstance(literal, S.Negation):
            nid, pred, pattern, new = self._negation_node(graph, "not", literal.atom, binding)
            if new:
                graph.add_edge(nid, self._add_absent(graph, pred, pattern, self.why_not_depth), order=0)
            return nid
        return self._add_aggregate(graph, firing, literal, chosen)

    def _negation_node(self, graph, kind: str, atom: S.Atom, binding: dict) -> tuple:
        """The node of ``not atom`` under ``binding`` (``kind`` not: it holds; holds: it fails), made
        once: its id, the relation read (the estimate inside a cycle through defeat), the pattern,
        and whether it is new (its children are then the caller's to add)."""
        pattern, pred = ground(atom, binding), self._estimated(atom.pred)
        text = "not " + atom_text(pred, pattern)
        nid = node_id(kind, text)
        new = nid not in graph
        if new:
            graph.add_node(nid, **{**self._atom_attrs(kind, pred, pattern), "text": text})
        return nid, pred, pattern, new

    def _add_comparison(self, graph, compiled: CompiledRule, literal: S.Comparison, binding: dict, holds: bool) -> str:
        """A comparison with its values; one that fails (a reason a reader reads) says in each language
        what its values stand for: the labels of the premises that gave them (「3 < 3（賊剋第三）」)."""
        text = f"{show_term(literal.left, binding)} {literal.op} {show_term(literal.right, binding)}"
        nid = node_id("compare", text)
        graph.add_node(nid, kind="compare", text=text, holds=holds, zh=text, en=text)
        if not holds:
            for lang, (open_, sep, close) in (("zh", ("（", "；", "）")), ("en", (" (", "; ", ")"))):
                glosses = self._glosses(compiled, literal, binding, lang)
                graph.nodes[nid][lang] = text + (open_ + sep.join(glosses) + close if glosses else "")
        return nid

    def _glosses(self, compiled: CompiledRule, literal: S.Comparison, binding: dict, lang: str) -> list[str]:
        """What the variables of a comparison stand for, each once: the label of the first body atom
        that binds it, filled with the binding (none for a value no labelled atom gives)."""
        out = []
        for name in dict.fromkeys(var.name for var in S.literal_variables(literal)):
            atom = next((a for a in compiled.body if isinstance(a, S.Atom)
                         and any(isinstance(t, S.Var) and t.name == name for t in a.args)), None)
            args = None if atom is None else ground(atom, binding)
            gloss = "" if args is None or None in args else atom_label(self.kb.declared(atom.pred), args, lang)
            if gloss and gloss not in out:
                out.append(gloss)
        return out

    def _add_aggregate(self, graph, firing: Firing, literal: S.Aggregate, chosen) -> str:
        agg = firing.rule.aggregates[literal]
        value = firing.binding[literal.result.name]
        group = ", ".join(f"{n}={S.format_value(firing.binding[n])}" for n in agg.group)
        text = f"{literal.result.name} = {literal.func} {literal.term.name} : {{ {', '.join(map(str, literal.body))} }}"
        text += f" [{group}] = {S.format_value(value)}"
        nid = node_id("aggregate", text)
        if nid in graph:
            return nid
        graph.add_node(nid, kind="aggregate", text=text, func=literal.func, value=value, zh=text, en=text)
        witnesses = self.witnesses(agg, firing.binding)
        if not witnesses:  # an empty group: say why nothing matches
            for order, atom in enumerate(a for a in agg.body if isinstance(a, S.Atom)):
                child = self._add_absent(graph, atom.pred, ground(atom, firing.binding), self.why_not_depth)
                graph.add_edge(nid, child, order=order)
        for order, witness in enumerate(witnesses):
            term = witness[literal.term.name]
            wins = literal.func in ("max", "min") and term == value
            for atom in (a for a in agg.body if isinstance(a, S.Atom)):
                child = self._add_atom(graph, (atom.pred, ground(atom, witness)), chosen)
                graph.add_edge(nid, child, order=order, chosen=wins, counted=S.format_value(term))
        return nid

    # why not -----------------------------------------------------------------
    def why_not(self, pred: str, pattern: Sequence[Optional[Value]], depth: int = 3, graph_type: Optional[type] = None):
        """For each rule that could derive the atom, the first body literal that fails (a ``graph_type``,
        ``networkx.DiGraph`` by default)."""
        if self.kb.holds(pred, pattern):
            raise Derivable(f"{atom_text(pred, pattern)} holds; ask why")
        graph = new_graph(graph_type, question=f"why not {atom_text(pred, pattern)}", school=self.kb.name)
        graph.graph["root"] = self._add_absent(graph, pred, tuple(pattern), depth)
        return graph

    def _add_absent(self, graph, pred: str, pattern: tuple, depth: int) -> str:
        text = atom_text(pred, pattern)
        nid = node_id("absent", text)
        if nid in graph:
            return nid
        graph.add_node(nid, **self._atom_attrs("absent", pred, pattern))
        if not self.kb.rules_for.get(pred):  # the relation is only given, or only facts: said without its id
            decl = self.kb.program.preds.get(pred)
            files = sorted({f.pos.path for f in self.kb.program.facts if f.head.pred == pred})
            if decl is not None and decl.input and not files:
                reason, reason_zh = "not among what was given", "非所給之事"
            else:
                reason = "no such fact" + (f" in {', '.join(files)}" if files else "") + ", and no rule concludes it"
                reason_zh = "無此事實" + (f"（{'、'.join(files)}）" if files else "") + "，亦無規則推出此事"
            graph.nodes[nid].update(reason=reason, reason_zh=reason_zh)
        if depth <= 0:
            return nid
        candidates = []
        for compiled in self.kb.rules_for.get(pred, ()):
            binding = _unify(compiled.rule.head.args, pattern)
            if binding is not None:
                dead = self._dead_ends(compiled, binding)
                candidates.append((-max((k for k, _ in dead), default=0), compiled.index, compiled, binding, dead))
        # the rules that came closest to firing first: they answer "why not" most directly
        for order, (progress, _, compiled, binding, dead) in enumerate(sorted(candidates, key=lambda c: c[:2])):
            furthest = next((partial for k, partial in dead if k == -progress), binding)
            # labelled as far as the search got, and with what the rule's other premises fix
            attrs = self._rule_attrs(compiled, furthest, kind="fail", known=self._known(compiled, -progress, furthest))
            attrs["reached"] = -progress  # body literals that held on the furthest branch
            fail = node_id("fail", attrs["text"] + "|" + text)
            graph.add_node(fail, **attrs)
            graph.add_edge(nid, fail, order=order)
            for number, (k, partial) in enumerate(dead[:MAX_DEAD_ENDS]):
                literal = compiled.body[k]
                if isinstance(literal, S.Atom):  # the atom the rule needed, as far as its other premises tell
                    partial = self._known(compiled, k, partial)
                child = self._add_failed_literal(graph, compiled, literal, partial, depth - 1)
                graph.add_edge(fail, child, order=number, position=k)
        return nid

    def _dead_ends(self, compiled: CompiledRule, binding: dict) -> list[tuple[int, dict]]:
        """(body position, bindings so far) for every branch of the body's search that dies."""
        dead, partials = [], [binding]
        for k, literal in enumerate(compiled.body):
            survivors = []
            for partial in partials:
                extended = self._extend(compiled, literal, partial)
                if extended:
                    survivors.extend(extended)
                else:
                    dead.append((k, partial))
            partials = survivors[:MAX_PARTIALS]
        dead.sort(key=lambda d: (d[0], sort_key(tuple(str(v) for _, v in sorted(d[1].items())))))
        return dead

    def _extend(self, compiled: CompiledRule, literal, binding: dict) -> list[dict]:
        if isinstance(literal, S.Atom):
            pattern = ground(literal, binding)
            return [b for row in self.kb.query(literal.pred, pattern)
                    if (b := _unify(literal.args, row, binding)) is not None]
        if isinstance(literal, S.Negation):
            return [] if self._witness(literal.atom, binding) is not None else [binding]  # () is a row
        if isinstance(literal, S.Comparison):
            target = S.assignment_target(literal, set(binding))
            if target is not None:
                expr = literal.right if isinstance(literal.left, S.Var) and literal.left.name == target else literal.left
                value = substitute(expr, binding)
                return [] if value is None else [{**binding, target: value}]
            left, right = substitute(literal.left, binding), substitute(literal.right, binding)
            holds = left is not None and right is not None and compare(literal.op, left, right)
            return [binding] if holds else []
        agg = compiled.aggregates[literal]
        value = self.kb.aggregate_value(agg, [binding[n] for n in agg.group])
        if value is None and literal.func == "count":
            value = 0
        if value is None:
            return []
        result = literal.result.name
        if result in binding:
            return [binding] if binding[result] == value else []
        return [{**binding, result: value}]

    def _known(self, compiled: CompiledRule, k: int, binding: dict) -> dict:
        """``binding`` (where a search of the body died, at position ``k``) with the values the rule's
        later premises fix: a variable every way through them agrees on. A premise that matches
        nothing, or cannot be read yet, is passed over; negations and aggregates only narrow, so they
        are passed over too (what is fixed without them is fixed with them)."""
        partials = [binding]
        for literal in compiled.body[k + 1:]:
            if not isinstance(literal, (S.Atom, S.Comparison)):
                continue
            extended = [b for partial in partials for b in self._extend(compiled, literal, partial)]
            if len(extended) > MAX_PARTIALS:
                break
            partials = extended or partials
        first = partials[0]
        return {name: value for name, value in first.items() if all(p.get(name) == value for p in partials)}

    def _estimated(self, pred: str) -> str:
        """The relation an estimate stands for (``est·q`` → q, in a cycle through defeat), else ``pred``:
        a negation that reads the estimate is explained by the relation itself."""
        defeat = self.kb.program.defeat
        return defeat.estimates.get(pred, pred) if defeat is not None else pred

    def _witness(self, atom: S.Atom, binding: dict) -> Optional[tuple]:
        """The first row of an atom that matches a binding (a variable repeated in it, alike), or None."""
        rows = self.kb.query(atom.pred, ground(atom, binding))
        return next((tuple(row) for row in rows if _unify(atom.args, row, binding) is not None), None)

    def _add_failed_literal(self, graph, compiled: CompiledRule, literal, binding: dict, depth: int) -> str:
        if isinstance(literal, S.Atom):
            return self._add_absent(graph, literal.pred, ground(literal, binding), depth)
        if isinstance(literal, S.Comparison):
            return self._add_comparison(graph, compiled, literal, binding, False)
        if isinstance(literal, S.Negation):
            nid, pred, pattern, new = self._negation_node(graph, "holds", literal.atom, binding)
            if new:
                witness = self._witness(replace(literal.atom, pred=pred), binding)
                if witness is None:  # estimated to hold, not derived: a cycle through defeat leaves it undecided
                    graph.nodes[nid].update(undecided=True, reason="undecided: a cycle through defeat leaves it "
                                            "neither proven nor refuted", reason_zh="未決：勝負成環，既不得證，亦不得駁")
                    graph.add_edge(nid, self._add_absent(graph, pred, pattern, 0), order=0)
                else:
                    atom = (pred, witness)
                    graph.add_edge(nid, self._add_atom(graph, atom, self._choose(atom)), order=0)
            return nid
        agg = compiled.aggregates[literal]
        value = self.kb.aggregate_value(agg, [binding[n] for n in agg.group])
        shown = "none" if value is None else S.format_value(value)
        text = f"{literal.func} {literal.term.name} = {shown}, needed {show_term(literal.result, binding)}"
        nid = node_id("compare", text)
        graph.add_node(nid, kind="compare", text=text, holds=False, zh=text, en=text)
        return nid


def _unify(terms, values, binding: Optional[dict] = None) -> Optional[dict]:
    """Match head or body terms against values (None = unbound); extend the binding."""
    out = dict(binding or {})
    for term, value in zip(terms, values):
        if value is None:
            continue
        if isinstance(term, S.Const):
            if term.value != value:
                return None
        elif isinstance(term, S.Var):
            if term.name in out and out[term.name] != value:
                return None
            out[term.name] = value
    return out
