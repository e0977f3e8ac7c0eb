"""The parsed form of KB text: small immutable values that keep where each part stands.

A loaded school is tens of thousands of nodes, and the cyclic collector walks every object it
tracks on each full collection (but stops tracking a tuple of strings and numbers), so nodes
have slots, no instance dict, and hold places as plain ``(path, line, col)`` tuples: a
statement or literal its own, ``at`` (``pos`` gives it as a :class:`~liuren_logic.datalog.errors.Position`);
a term (variable, constant, arithmetic) none: the node it stands in holds the places of its
terms, ``places``, so equal variables and constants can be one object (the parser and the
cache share them). Places are excluded from equality, so two parses of the same text at
different places compare equal; ``str()`` of every node prints it back in KB syntax.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from .errors import Position

Place = tuple[str, int, int]  # (path, line, col), 1-based
NOWHERE: Place = ("<input>", 1, 1)


class Located:
    """A node with a place ``at``."""

    __slots__ = ()
    at: Place

    @property
    def pos(self) -> Position:
        return Position(*self.at)


@dataclass(frozen=True, slots=True)
class Var:
    name: str

    @property
    def anonymous(self) -> bool:
        return self.name == "_"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Const:
    value: Union[str, int]

    def __str__(self) -> str:
        return format_value(self.value)


@dataclass(frozen=True, slots=True)
class BinOp:
    """Arithmetic; its own place is its left term's."""

    op: str  # + - * mod
    left: "Term"
    right: "Term"
    places: tuple[Place, Place] = field(compare=False)  # of left and right

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


Term = Union[Var, Const, BinOp]


@dataclass(frozen=True, slots=True)
class Atom(Located):
    pred: str
    args: tuple[Term, ...]
    places: tuple[Place, ...] = field(compare=False)  # of each argument
    at: Place = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(map(str, self.args))})"


@dataclass(frozen=True, slots=True)
class Negation(Located):
    atom: Atom
    at: Place = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"not {self.atom}"


@dataclass(frozen=True, slots=True)
class Comparison(Located):
    op: str  # = != < <= > >=
    left: Term
    right: Term
    places: tuple[Place, Place] = field(compare=False)  # of left and right
    at: Place = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True, slots=True)
class Aggregate(Located):
    """``Result = func Term : { body }``; variables shared with the rule group it."""

    result: Var
    func: str  # count sum max min
    term: Var
    body: tuple["Literal", ...]
    places: tuple[Place, Place] = field(compare=False)  # of result and term
    at: Place = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.result} = {self.func} {self.term} : {{ {', '.join(map(str, self.body))} }}"


Literal = Union[Atom, Negation, Comparison, Aggregate]


STRICT, DEFAULT, DEFEATER = "strict", "default", "defeater"  # a rule's kind: @rule (or none), @default, @defeater


@dataclass(frozen=True, slots=True)
class Rule(Located):
    """A clause; a fact is a strict rule with an empty body. ``kind``: strict, or a defeasible
    rule (``default``) or a defeater (docs/defeasible.md), which may have an empty body too."""

    head: Atom
    body: tuple[Literal, ...]
    id: str
    labels: tuple[tuple[str, str], ...] = ()
    source: str = ""
    annotated: bool = False
    kind: str = STRICT
    at: Place = field(default=NOWHERE, compare=False)

    @property
    def is_fact(self) -> bool:
        return not self.body and self.kind == STRICT

    def label(self, lang: str) -> str:
        return dict(self.labels).get(lang, "")

    def __str__(self) -> str:
        if not self.body:
            return f"{self.head}."
        return f"{self.head} :- {', '.join(map(str, self.body))}."


@dataclass(frozen=True, slots=True)
class Prefer(Located):
    """``@prefer superior > inferior``: the superiority of one rule over another (by rule id)."""

    superior: str
    inferior: str
    labels: tuple[tuple[str, str], ...] = ()
    source: str = ""
    places: tuple[Place, Place] = field(default=(NOWHERE, NOWHERE), compare=False)  # of the two ids
    at: Place = field(default=NOWHERE, compare=False)

    @property
    def id(self) -> str:
        return f"{self.superior}>{self.inferior}"

    def label(self, lang: str) -> str:
        return dict(self.labels).get(lang, "")

    def __str__(self) -> str:
        return f"@prefer {self.superior} > {self.inferior}."


@dataclass(frozen=True, slots=True)
class PredDecl(Located):
    name: str
    params: tuple[tuple[str, str], ...]  # (argument name, kind)
    labels: tuple[tuple[str, str], ...] = ()
    input: bool = False
    at: Place = field(default=NOWHERE, compare=False)

    @property
    def arity(self) -> int:
        return len(self.params)

    def label(self, lang: str) -> str:
        return dict(self.labels).get(lang, "")


@dataclass(frozen=True, slots=True)
class KindDecl(Located):
    name: str
    members: tuple[Union[str, int], ...] = ()
    union: tuple[str, ...] = ()
    at: Place = field(default=NOWHERE, compare=False)


@dataclass(slots=True)
class Module:
    """Everything one KB file declares and states, in file order."""

    path: str
    kinds: list[KindDecl] = field(default_factory=list)
    preds: list[PredDecl] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    prefers: list[Prefer] = field(default_factory=list)


def strong(pred: str) -> str:
    """The relation of the strong negation of ``pred`` (``~p`` for p, p for ``~p``)."""
    return pred[1:] if pred.startswith("~") else "~" + pred


def base(pred: str) -> str:
    """The declared predicate of a relation written ``p`` or ``~p``."""
    return pred.removeprefix("~")


def format_value(value: Union[str, int]) -> str:
    """A constant as KB text: CJK words and lower-case names bare, other text quoted."""
    if isinstance(value, int):
        return str(value)
    if value and (value.isidentifier() and value[0].islower() or all(ord(ch) > 0x3000 for ch in value)):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def variables(term) -> list[Var]:
    """The named variables of a term, in order of appearance."""
    return [var for var, _ in placed_variables(term, NOWHERE)]


def placed_variables(term, at: Place) -> list[tuple[Var, Place]]:
    """The named variables of a term that stands at ``at``, each with its place."""
    if isinstance(term, Var):
        return [] if term.anonymous else [(term, at)]
    if isinstance(term, BinOp):
        return placed_variables(term.left, term.places[0]) + placed_variables(term.right, term.places[1])
    return []


def atom_variables(atom: Atom) -> list[Var]:
    """The named variables of an atom's arguments, in order (what :func:`atom_placed_variables`
    gives, without the places: the engines ask it of every atom they prepare)."""
    found = []
    for arg in atom.args:
        if isinstance(arg, Var):
            if not arg.anonymous:
                found.append(arg)
        elif isinstance(arg, BinOp):
            found += variables(arg)
    return found


def atom_placed_variables(atom: Atom) -> list[tuple[Var, Place]]:
    return [found for arg, at in zip(atom.args, atom.places) for found in placed_variables(arg, at)]


def body_atoms(body) -> Iterator[Atom]:
    """Every atom of a body: positive, under a negation, or in an aggregate's body."""
    for literal in body:
        if isinstance(literal, Atom):
            yield literal
        elif isinstance(literal, Negation):
            yield literal.atom
        elif isinstance(literal, Aggregate):
            yield from body_atoms(literal.body)


def literal_variables(literal) -> list[Var]:
    """The named variables of a body literal (an aggregate's: its result, its term and its body's)."""
    if isinstance(literal, Atom):
        return atom_variables(literal)
    if isinstance(literal, Negation):
        return atom_variables(literal.atom)
    if isinstance(literal, Comparison):
        return variables(literal.left) + variables(literal.right)
    return [literal.result, literal.term] + [v for inner in literal.body for v in literal_variables(inner)]


def assignment_target(literal, bound: set[str]) -> str | None:
    """The variable an ``X = expr`` comparison binds, once expr's variables are bound."""
    if not isinstance(literal, Comparison) or literal.op != "=":
        return None
    for target, expr in ((literal.left, literal.right), (literal.right, literal.left)):
        if (isinstance(target, Var) and not target.anonymous and target.name not in bound
                and all(v.name in bound for v in variables(expr))):
            return target.name
    return None
