"""The order a body's literals are evaluated in, for both engines: every filter right after the
atoms that bind its variables (:func:`schedule`), and what a literal binds (:func:`binds`)."""
from __future__ import annotations

from . import syntax as S


def schedule(body, bound: set[str]) -> tuple[S.Literal, ...]:
    """Order a body so that every filter comes right after the atoms that bind its variables."""
    pending, ordered, bound = list(body), [], set(bound)
    while pending:
        ready = next((lit for lit in pending if not isinstance(lit, S.Atom) and _ready(lit, bound)), None)
        if ready is None:
            ready = next((lit for lit in pending if isinstance(lit, S.Atom)), pending[0])
        pending.remove(ready)
        ordered.append(ready)
        bound |= binds(ready, bound)
    return tuple(ordered)


def _ready(literal, bound: set[str]) -> bool:
    if isinstance(literal, S.Negation):
        return all(v.name in bound for v in S.atom_variables(literal.atom))
    if isinstance(literal, S.Comparison):
        names = {v.name for v in S.variables(literal.left) + S.variables(literal.right)}
        return names <= bound or S.assignment_target(literal, bound) is not None
    if isinstance(literal, S.Aggregate):
        return all(v in bound for v in _outer_names(literal) - {literal.result.name})
    return True


def _outer_names(aggregate: S.Aggregate) -> set[str]:
    return {v.name for a in _atoms(aggregate.body) for v in S.atom_variables(a)}


def binds(literal, bound: set[str]) -> set[str]:
    if isinstance(literal, S.Atom):
        return {v.name for v in S.atom_variables(literal)}
    if isinstance(literal, S.Aggregate):
        return {literal.result.name}
    target = S.assignment_target(literal, bound)
    return {target} if target else set()


def _atoms(body):
    for literal in body:
        if isinstance(literal, S.Atom):
            yield literal
        elif isinstance(literal, S.Negation):
            yield literal.atom
