"""Reading what users type: pillars, branches, atoms. Errors name the bad value and what fits.

Simplified characters are accepted (``贼克`` reads as ``賊剋``; ``前后逼迫难进退`` as the 畢法 line
``前後逼迫難進退``, matched by its simplified form). Which stems and branches
exist, and which pillars are possible, is asked of the knowledge base, not listed here.
"""
from __future__ import annotations

import difflib

from .errors import InputError, KBError
from ..datalog.program import Engine
from ..datalog.script import simplified, traditional


def members(kb: Engine, kind: str) -> list:
    """The members of a declared kind, in the KB's own order where it has one."""
    order = {"stem": "stem_index", "branch": "branch_index"}.get(kind)
    if order:
        return [row[0] for row in sorted(kb.query(order, [None, None]), key=lambda r: r[1])]
    return sorted(kb.program.members[kind], key=str)


# The words a practitioner writes after a value: 辛巳日, 午時, 寅將; stripped before reading it.
SUFFIXES = {"the day": "日", "the hour": "時", "the 月將": "將"}
# What a value is read for → the input (option) that gives it, named by an error.
FIELDS = {"the day": "day", "the 月將": "jiang", "the hour": "hour", "the month": "month", "the year": "year",
          "the birth year": "born"}
KINDS_ZH = {"stem": "天干", "branch": "地支", "method": "定法", "pattern": "課格", "keti": "課體", "matter": "占事"}


def field_named(what: str) -> str:
    """The input ``what`` names (``"the day '辛子'"`` → ``'day'``), or ''."""
    return next((field for named, field in FIELDS.items() if what == named or what.startswith(named + " ")), "")


def parse_symbol(kb: Engine, text: str, kind: str, what: str, where_zh: str = "") -> str:
    """One stem or branch (a branch also by its name, 功曹 for 寅, as ``branch_name`` gives it);
    ``what`` names the argument in the error, ``where_zh`` (「clashes(子, 甲)」中) leads its Chinese
    line where no field names it."""
    value = traditional(text.strip())
    suffix = SUFFIXES.get(what)
    if suffix and len(value) > 1 and value.endswith(suffix):
        value = value[:-1]
    known = members(kb, kind)
    if kind == "branch" and value not in known:
        named = kb.query("branch_name", [value, None])
        value = named[0][1] if named else value
    if value not in known:  # a name typed with a character two traditional ones share (后: 后 and 後)
        value = next((k for k in known if simplified(str(k)) == simplified(value)), value)
    if value not in known:
        elsewhere = other_kinds(kb, value, kind) if kind not in ("stem", "branch") else []
        if elsewhere:
            raise InputError(f"{text!r} is not a {kind} but a {' and a '.join(elsewhere)}: "
                             f"ask {elsewhere[0]} {value}",
                             f"「{text}」不是{KINDS_ZH.get(kind, kind)}，而屬 {'、'.join(elsewhere)}：請問 {elsewhere[0]} {value}",
                             field_named(what))
        near = difflib.get_close_matches(value, [str(k) for k in known], n=3, cutoff=0.3)
        if len(known) > 12 and near:
            raise InputError(f"unknown {kind} {text!r} for {what}; the nearest: {' '.join(near)} "
                             f"({len(known)} in all)",
                             f"無此{KINDS_ZH.get(kind, kind)}「{text}」；最近者：{'、'.join(near)}（共 {len(known)} 個）",
                             field_named(what))
        shown = "".join(known) if all(len(str(k)) == 1 for k in known) else " ".join(map(str, known[:12]))
        more = f" … ({len(known)} in all)" if len(known) > 12 else ""
        zh = f"{where_zh}「{text}」非{KINDS_ZH.get(kind, kind)}：應為{shown}之一{f'（共 {len(known)} 個）' if more else ''}"
        raise InputError(f"unknown {kind} {text!r} for {what}; expected one of {shown}{more}", zh, field_named(what))
    return value


def parse_over(kb: Engine, text: str) -> tuple[str, str]:
    """「戌加寅」: the 月將 戌 set over the hour 寅 → ('戌', '寅'); each side as :func:`parse_symbol` reads it."""
    jiang, sep, hour = traditional(text.strip()).partition("加")
    if not sep or not jiang or not hour:
        raise InputError(f"cannot read {text!r} as the 月將 over the hour: expected such as 戌加寅",
                         f"「{text}」讀不出月將加占時：應如戌加寅", "jiang")
    return parse_symbol(kb, jiang, "branch", "the 月將"), parse_symbol(kb, hour, "branch", "the hour")


def other_kinds(kb: Engine, value: str, kind: str) -> list[str]:
    """The chart relations (keti, pattern, bifa, spirit …) whose named value ``value`` is, when it is not a ``kind``."""
    program = kb.program
    return sorted(decl.name for decl in program.preds.values()
                  if decl.arity >= 2 and decl.params[0][1] == "text" and decl.params[1][1] != kind
                  and value in (program.members.get(decl.params[1][1]) or ()) and decl.name in program.moving()
                  and not decl.input and "·" not in decl.name)  # not a relation compiled from defeasible rules


def parse_pillar(kb: Engine, text: str, what: str = "the day") -> tuple[str, str]:
    """A day pillar such as 辛巳 → ('辛', '巳'); 甲丑 is refused by the KB's pillar rule."""
    value = traditional(text.strip())
    if len(value) == 3 and value.endswith(SUFFIXES["the day"]) and what == "the day":
        value = value[:2]
    if len(value) != 2:
        raise InputError(f"cannot read {what} {text!r}: expected a stem and a branch, such as 辛巳",
                         f"「{text}」讀不出干支：應為一干一支，如辛巳", field_named(what))
    stem = parse_symbol(kb, value[0], "stem", f"{what} {text!r}")
    branch = parse_symbol(kb, value[1], "branch", f"{what} {text!r}")
    if not kb.holds("pillar", [stem, branch]):
        kinds = {p[0]: p[1] for p in kb.query("polarity", [None, None])}
        raise InputError(f"impossible pillar {value} for {what}: {stem} is {kinds[stem]} but {branch} is "
                         f"{kinds[branch]}, and a pillar pairs a yang stem with a yang branch, a yin with a yin",
                         f"無{value}此干支：{stem}為{kinds[stem]}而{branch}為{kinds[branch]}，陽干配陽支，陰干配陰支",
                         field_named(what))
    return stem, branch


def parse_atom(kb: Engine, text: str) -> tuple[str, tuple]:
    """``'clashes(子, 午)'`` → ``('clashes', ('子', '午'))``; ``_`` stands for any value (None)."""
    from ..datalog.parser import parse  # lark, only for a question written as an atom

    try:
        module = parse(text.strip().rstrip(".") + ".", "<question>")
    except KBError as error:
        raise InputError(f"cannot read the atom {text!r}: {error.problems[0].message}",
                         f"讀不懂「{text}」：應為一個謂詞式，如 clashes(子, 午)") from None
    if len(module.rules) != 1 or module.rules[0].body:
        raise InputError(f"cannot read the atom {text!r}: expected one atom such as clashes(子, 午)",
                         f"讀不懂「{text}」：應為一個謂詞式，如 clashes(子, 午)")
    head = module.rules[0].head
    decl = kb.declared(head.pred)
    if decl is None:
        raise InputError(f"unknown predicate {head.pred!r} in {text!r}", f"「{text}」中無此謂詞「{head.pred}」")
    if decl.arity != len(head.args):
        raise InputError(f"{head.pred} takes {decl.arity} arguments, not {len(head.args)}, in {text!r}",
                         f"「{text}」中 {head.pred} 應有 {decl.arity} 個參數，今有 {len(head.args)} 個")
    args = []
    for (_, kind), arg in zip(decl.params, head.args):
        if hasattr(arg, "value") and isinstance(arg.value, str) and kind in kb.program.kinds:
            args.append(parse_symbol(kb, arg.value, kind, f"{head.pred} in {text!r}", f"「{text}」中"))  # 贼克: 賊剋
        elif hasattr(arg, "value") and isinstance(arg.value, str):
            args.append(traditional(arg.value))  # a chart id typed in simplified characters
        elif hasattr(arg, "value"):
            args.append(arg.value)
        elif getattr(arg, "anonymous", False):
            args.append(None)
        else:
            raise InputError(f"{text!r}: write constants, or _ for any value, not {arg}",
                             f"「{text}」：參數須寫定值，或以 _ 代任一值，不可寫 {arg}")
    return head.pred, tuple(args)
