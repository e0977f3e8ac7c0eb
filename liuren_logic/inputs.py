"""Reading what users type: pillars, branches, atoms. Errors name the bad value and what fits.

Simplified characters are accepted (``贼克`` reads as ``賊剋``). Which stems and branches
exist, and which pillars are possible, is asked of the knowledge base, not listed here.
"""
from __future__ import annotations

from .errors import InputError, KBError
from .program import Engine
from .script import traditional


def members(kb: Engine, kind: str) -> list:
    """The members of a declared kind, in the KB's own order where it has one."""
    order = {"stem": "stem_index", "branch": "branch_index"}.get(kind)
    if order:
        return [row[0] for row in sorted(kb.query(order, [None, None]), key=lambda r: r[1])]
    return sorted(kb.program.members[kind], key=str)


def parse_symbol(kb: Engine, text: str, kind: str, what: str) -> str:
    """One stem or branch; ``what`` names the argument in the error."""
    value = traditional(text.strip())
    known = members(kb, kind)
    if value not in known:
        shown = "".join(known) if all(len(str(k)) == 1 for k in known) else " ".join(map(str, known[:12]))
        more = f" … ({len(known)} in all)" if len(known) > 12 else ""
        raise InputError(f"unknown {kind} {text!r} for {what}; expected one of {shown}{more}")
    return value


def parse_pillar(kb: Engine, text: str, what: str = "the day") -> tuple[str, str]:
    """A day pillar such as 辛巳 → ('辛', '巳'); 甲丑 is refused by the KB's pillar rule."""
    value = traditional(text.strip())
    if len(value) != 2:
        raise InputError(f"cannot read {what} {text!r}: expected a stem and a branch, such as 辛巳")
    stem = parse_symbol(kb, value[0], "stem", f"{what} {text!r}")
    branch = parse_symbol(kb, value[1], "branch", f"{what} {text!r}")
    if not kb.holds("pillar", [stem, branch]):
        kinds = {p[0]: p[1] for p in kb.query("polarity", [None, None])}
        raise InputError(f"impossible pillar {value} for {what}: {stem} is {kinds[stem]} but {branch} is "
                         f"{kinds[branch]}, and a pillar pairs a yang stem with a yang branch, a yin with a yin")
    return stem, branch


def parse_atom(kb: Engine, text: str) -> tuple[str, tuple]:
    """``'clashes(子, 午)'`` → ``('clashes', ('子', '午'))``; ``_`` stands for any value (None)."""
    from .parser import parse  # lark, only for a question written as an atom

    try:
        module = parse(text.strip().rstrip(".") + ".", "<question>")
    except KBError as error:
        raise InputError(f"cannot read the atom {text!r}: {error.problems[0].message}") from None
    if len(module.rules) != 1 or module.rules[0].body:
        raise InputError(f"cannot read the atom {text!r}: expected one atom such as clashes(子, 午)")
    head = module.rules[0].head
    decl = kb.declared(head.pred)
    if decl is None:
        raise InputError(f"unknown predicate {head.pred!r} in {text!r}")
    if decl.arity != len(head.args):
        raise InputError(f"{head.pred} takes {decl.arity} arguments, not {len(head.args)}, in {text!r}")
    args = []
    for arg in head.args:
        if hasattr(arg, "value"):
            args.append(arg.value)
        elif getattr(arg, "anonymous", False):
            args.append(None)
        else:
            raise InputError(f"{text!r}: write constants, or _ for any value, not {arg}")
    return head.pred, tuple(args)
