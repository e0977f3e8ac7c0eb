"""The parsed form of KB text: small immutable values, each knowing where it stands.

Positions are excluded from equality, so two parses of the same text at different
places compare equal; ``str()`` of every node prints it back in KB syntax.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from .errors import Position

NOWHERE = Position("<input>", 1, 1)


@dataclass(frozen=True)
class Var:
    name: str
    pos: Position = field(default=NOWHERE, compare=False)

    @property
    def anonymous(self) -> bool:
        return self.name == "_"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Const:
    value: Union[str, int]
    pos: Position = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return format_value(self.value)


@dataclass(frozen=True)
class BinOp:
    op: str  # + - * mod
    left: "Term"
    right: "Term"
    pos: Position = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


Term = Union[Var, Const, BinOp]


@dataclass(frozen=True)
class Atom:
    pred: str
    args: tuple[Term, ...]
    pos: Position = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(map(str, self.args))})"


@dataclass(frozen=True)
class Negation:
    atom: Atom
    pos: Position = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"not {self.atom}"


@dataclass(frozen=True)
class Comparison:
    op: str  # = != < <= > >=
    left: Term
    right: Term
    pos: Position = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Aggregate:
    """``Result = func Term : { body }``; variables shared with the rule group it."""

    result: Var
    func: str  # count sum max min
    term: Var
    body: tuple["Literal", ...]
    pos: Position = field(default=NOWHERE, compare=False)

    def __str__(self) -> str:
        return f"{self.result} = {self.func} {self.term} : {{ {', '.join(map(str, self.body))} }}"


Literal = Union[Atom, Negation, Comparison, Aggregate]


@dataclass(frozen=True)
class Rule:
    """A clause; a fact is a rule with an empty body."""

    head: Atom
    body: tuple[Literal, ...]
    id: str
    labels: tuple[tuple[str, str], ...] = ()
    source: str = ""
    annotated: bool = False
    pos: Position = field(default=NOWHERE, compare=False)

    @property
    def is_fact(self) -> bool:
        return not self.body

    def label(self, lang: str) -> str:
        return dict(self.labels).get(lang, "")

    def __str__(self) -> str:
        if self.is_fact:
            return f"{self.head}."
        return f"{self.head} :- {', '.join(map(str, self.body))}."


@dataclass(frozen=True)
class PredDecl:
    name: str
    params: tuple[tuple[str, str], ...]  # (argument name, kind)
    labels: tuple[tuple[str, str], ...] = ()
    input: bool = False
    pos: Position = field(default=NOWHERE, compare=False)

    @property
    def arity(self) -> int:
        return len(self.params)

    def label(self, lang: str) -> str:
        return dict(self.labels).get(lang, "")


@dataclass(frozen=True)
class KindDecl:
    name: str
    members: tuple[Union[str, int], ...] = ()
    union: tuple[str, ...] = ()
    pos: Position = field(default=NOWHERE, compare=False)


@dataclass
class Module:
    """Everything one KB file declares and states, in file order."""

    path: str
    kinds: list[KindDecl] = field(default_factory=list)
    preds: list[PredDecl] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def format_value(value: Union[str, int]) -> str:
    """A constant as KB text: CJK words and lower-case names bare, other text quoted."""
    if isinstance(value, int):
        return str(value)
    if value and (value.isidentifier() and value[0].islower() or all(ord(ch) > 0x3000 for ch in value)):
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def variables(term) -> list[Var]:
    """The named variables of a term, in order of appearance."""
    if isinstance(term, Var):
        return [] if term.anonymous else [term]
    if isinstance(term, BinOp):
        return variables(term.left) + variables(term.right)
    return []


def atom_variables(atom: Atom) -> list[Var]:
    return [v for arg in atom.args for v in variables(arg)]


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
