"""The defeasible cases of the datalog-conformance suite (PyPI, MIT), translated into the KB language.

A case's theory (facts, strict rules, defeasible rules, defeaters, superiority) becomes KB text
(:func:`translate`): every predicate declared over ``any`` and renamed as the core cases' are
(``L1`` → ``r_l1``; a character a name cannot hold, as its code), ``~p`` kept, a rule ``r1``
annotated ``@rule t.r1``, ``@default t.r1`` or ``@defeater t.r1``, a superiority pair
``@prefer t.r1 > t.r2``. A rule's arguments are written as the suite writes them: a name is a
variable (Soufflé's reading, which the strict-only cases derived from it need; a Nemo case's
variable that occurs once is ``_``, Nemo's), a quoted text or a number a constant.

:func:`sections` reads the suite's four sections from the engine's relations of one policy
(docs/defeasible.md): ``definitely`` = +Δ (``Δ·p``), ``defeasibly`` = +∂ (``p`` itself),
``not_defeasibly`` = −∂ (the ground literals over the theory's constants that are not +∂: the
compiled theory is stratified, so what is not proven is refuted), ``undecided`` = supported but
not proven (``Σ·p`` and not ``p``: an ambiguous literal). :func:`run` compares every section of
every policy the case expects; the policies the language does not have (the KLM closures)
are listed as such.

    python tests/defeasible_conformance.py [--all] [--pydatalog]    # the outcomes by folder
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from functools import lru_cache
from itertools import product

from datalog_conformance.plugin import get_tests_dir

from conformance import cases_in
from liuren_logic.datalog.checker import check
from liuren_logic.datalog.defeasible import POLICIES
from liuren_logic.domain.errors import KBError
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.datalog.semantics import EvaluationLimit

FOLDERS = ("basic", "ambiguity", "superiority", "strict_only", "klm", "closure")
HEAVY = 100_000  # bytes: a case file larger than this (po3–po5, ranpo, access1, hmmer, lubm) is heavy

# What the language does not do, with the reason (docs/defeasible.md, "Policies").
UNSUPPORTED = {
    "rational_closure": "rational closure (Lehmann and Magidor's ranking of defaults) is not a policy of "
                        "defeasible logic; the language has ambiguity blocking and propagating only",
    "lexicographic_closure": "lexicographic closure (Lehmann 1995) is not a policy of defeasible logic; "
                             "the language has ambiguity blocking and propagating only",
    "relevant_closure": "relevant closure (Casini et al.) is not a policy of defeasible logic; the language "
                        "has ambiguity blocking and propagating only",
    "klm": "a KLM property (Or, Cautious Monotony …) of a closure operation is checked over many theories by "
           "satisfies_klm_property; the language answers one theory's conclusions, not properties of closures",
}

# Cases whose expectations follow another semantics than defeasible logic, with the reason: both
# order two conflicting rules by specificity, which defeasible logic leaves to an explicit
# superiority relation (these theories have none, so both conclusions are ambiguous, −∂).
OTHER_SEMANTICS = {
    **{name: "the expectation is DePYsible's (DeLP, generalized specificity): flies(tina) by the more "
             "specific r5 (chicken, scared) over r6 (chicken); without a superiority relation defeasible "
             "logic leaves flies(tina) ambiguous (−∂)"
       for name in ("depysible_nests_in_trees_tina", "depysible_nests_in_trees_tweety",
                    "depysible_flies_tweety", "depysible_not_flies_tweety")},
    "bozzato_example1_bob_exception": "the expectation is Bozzato et al.'s (CKR exceptions: the rule about "
        "the more specific class, phd_member, overrides the one about dept_member); without a superiority "
        "relation defeasible logic leaves ~teach_course(bob) ambiguous (−∂)",
}


def defeasible_cases(largest=None) -> list[tuple[str, object]]:
    """(folder, case) for every case of the suite's defeasible folders, in its order; a case file
    over ``largest`` bytes is left out before it is read."""
    root = get_tests_dir() / "defeasible"
    paths = sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.yaml"))
    return [(path.relative_to(root).parts[0], case) for path in paths
            if largest is None or path.stat().st_size <= largest for case in cases_in(path)]


def heavy_files() -> list:
    """The defeasible case files over ``HEAVY`` bytes, unread."""
    root = get_tests_dir() / "defeasible"
    return sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.yaml") if p.stat().st_size > HEAVY)


def relation(name: str) -> str:
    """A KB relation for a suite literal's predicate: ``~`` kept, the name made a KB name one to one."""
    negated = name.startswith("~")
    name = name.removeprefix("~")
    out = "".join("__" if c == "_" else "_" + c.lower() if c.isupper() else c if c.isalnum() and c.isascii()
                  else f"_{ord(c):x}x" for c in name)
    return ("~" if negated else "") + "r" + out


def rule_id(name: str) -> str:
    return "t." + "".join(c if c.isalnum() and c.isascii() and not c.isupper() else f"_{ord(c):x}" for c in name)


_LITERAL = re.compile(r"\s*(not\s+|!\s*)?(~?)\s*([^\s(~!]+)\s*(?:\((.*)\))?\s*$")
_ARGUMENT = re.compile(r'"(?:\\.|[^"\\])*"|-?\d+|[A-Za-z_][A-Za-z0-9_]*|.')


def _split(args: str) -> list[str]:
    """A literal's arguments, split at the commas outside quotes and parentheses."""
    parts, depth, current, quoted = [], 0, "", False
    for char in args:
        if char == '"':
            quoted = not quoted
        if not quoted and char in "()":
            depth += 1 if char == "(" else -1
        if char == "," and depth == 0 and not quoted:
            parts.append(current)
            current = ""
        else:
            current += char
    return parts + [current] if current.strip() else parts


def _literal(text: str, arity: dict, once: set) -> str:
    """One literal of a rule as KB text, its predicate's arity noted."""
    match = _LITERAL.match(text)
    if match is None:
        raise ValueError(f"not a literal: {text!r}")
    negation, strong, name, args = match.groups()
    terms = [_term(arg.strip(), once) for arg in _split(args or "")]
    arity.setdefault(name, len(terms))
    return f"{'not ' if negation else ''}{strong}{relation(name)}({', '.join(terms)})"


def _term(text: str, once: set) -> str:
    def token(t: str) -> str:
        if t[0] == '"' or t.lstrip("-").isdigit() or not (t[0].isalpha() or t[0] == "_"):
            return t
        return "_" if t == "_" or t in once else "V" + t
    return "".join(token(t) for t in _ARGUMENT.findall(text) if t.strip())


def _variables(texts: list[str]) -> Counter:
    names = Counter()
    for text in texts:
        match = _LITERAL.match(text)
        for arg in _split(match.group(4) or "") if match else ():
            names.update(t for t in _ARGUMENT.findall(arg) if t[0].isalpha() or t[0] == "_")
    return names


def _constant(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def translate(case) -> str:
    """KB text of a case's theory: declarations, facts, then rules and superiority."""
    theory, nemo = case.theory, case.source.startswith("nemo")
    arity: dict[str, int] = {}
    rules = []
    for kind, keyword in (("strict_rules", "@rule"), ("defeasible_rules", "@default"), ("defeaters", "@defeater")):
        for rule in getattr(theory, kind):
            counts = _variables([rule.head] + rule.body)
            once = {n for n, k in counts.items() if k == 1} if nemo else set()
            head = _literal(rule.head, arity, once)
            body = [_literal(b, arity, once) for b in rule.body]
            if not body and keyword == "@rule":
                rules.append(f"{head}.")
            else:
                rules.append(f"{keyword} {rule_id(rule.id)}.\n{head}{' :- ' + ', '.join(body) if body else ''}.")
    rules += [f"@prefer {rule_id(a)} > {rule_id(b)}." for a, b in theory.superiority]
    facts = []
    for pred, rows in theory.facts.items():
        arity.setdefault(pred.removeprefix("~"), len(rows[0]) if rows else 0)
        facts += [f"{relation(pred)}({', '.join(map(_constant, row))})." for row in rows]
    for expectation in _expectations(case).values():
        for predicates in expectation.values():
            for pred, rows in predicates.items():
                arity.setdefault(pred.removeprefix("~"), len(rows[0]) if rows else 0)
    arity = {p.removeprefix("~"): n for p, n in arity.items()}
    decls = [f"@pred {relation(p)}({', '.join(f'a{i}: any' for i in range(n))})." for p, n in sorted(arity.items())]
    return "\n".join(decls + facts + rules) + "\n"


def _expectations(case) -> dict:
    """Policy → the sections it expects (a case with ``expect`` alone expects them of blocking)."""
    return case.expect_per_policy or {"blocking": case.expect or {}}


@lru_cache(maxsize=4)
def _load(text: str, policy: str, engine: str):
    """What answers a theory's KB text under a policy with one engine, or the error refusing it."""
    try:
        kb = KnowledgeBase(check([parse(text, "theory.dl")], policy))
        if engine == "materialise":
            return Materialisation(kb)
        top_down = PyDatalog(kb)
        top_down.activate()
        return top_down
    except (KBError, EvaluationLimit) as error:
        return error


def sections(engine, case, wanted: dict) -> dict:
    """The sections ``wanted`` asks (section → predicates), each predicate's rows as the engine holds them."""
    program, defeat = engine.program, engine.program.defeat
    universe = _universe(case)
    found = {}
    for section, predicates in wanted.items():
        found[section] = {}
        for pred in predicates:
            name = relation(pred)
            arity = program.preds[name.removeprefix("~")].arity

            def rows(rel):
                return set(engine.query(rel, [None] * arity)) if rel in engine.kb.arity else set()
            proven = rows(name)
            if section == "definitely":
                found[section][pred] = rows(defeat.definite(name) if defeat else name)
            elif section == "defeasibly":
                found[section][pred] = proven
            elif section == "not_defeasibly":
                found[section][pred] = set(product(universe, repeat=arity)) - proven
            elif section == "undecided":
                found[section][pred] = rows(defeat.supported(name) if defeat else name) - proven
            else:
                raise ValueError(f"unknown section {section}")
    return found


def _universe(case) -> list:
    """The constants of a theory: its facts' values and the constants its rules write."""
    theory = case.theory
    values = {v for rows in theory.facts.values() for row in rows for v in row}
    for rule in theory.strict_rules + theory.defeasible_rules + theory.defeaters:
        for text in [rule.head] + rule.body:
            for token in _ARGUMENT.findall(text):
                if token[0] == '"':
                    values.add(token[1:-1])
                elif token.lstrip("-").isdigit():
                    values.add(int(token))
    return sorted(values, key=str)


def run(case, engine: str = "materialise") -> tuple[str, str]:
    """(outcome, detail) of one case under one engine: ``pass``, ``fail``, ``refused`` (a located error, or a limit) or
    ``unsupported`` (every policy the language has passes; the case also expects one it has not, or
    a KLM property); ``other`` for a case of :data:`OTHER_SEMANTICS` that fails as it says."""
    if case.klm_property is not None:
        return "unsupported", UNSUPPORTED["klm"]
    if any(tuple(sorted(pair, key=len)) != (pair[0].removeprefix("~"), "~" + pair[0].removeprefix("~"))
           for pair in case.theory.conflicts):
        return "unsupported", "a conflict set other than p / ~p"
    text = translate(case)
    unsupported = []
    for policy, wanted in _expectations(case).items():
        if policy not in POLICIES:
            unsupported.append(UNSUPPORTED[policy])
            continue
        answering = _load(text, policy, engine)
        if isinstance(answering, Exception):
            return "refused", str(answering).splitlines()[0]
        got = sections(answering, case, wanted)
        for section, predicates in wanted.items():
            for pred, rows in predicates.items():
                expected = {tuple(row) for row in rows}
                if got[section][pred] != expected:
                    detail = f"{policy} {section} {pred}: {sorted(got[section][pred], key=str)} ≠ {sorted(expected, key=str)}"
                    return ("other" if case.name in OTHER_SEMANTICS else "fail"), detail
    if unsupported:
        return "unsupported", "; ".join(unsupported)
    return "pass", ""


if __name__ == "__main__":
    results = Counter()
    engine = "pydatalog" if "--pydatalog" in sys.argv else "materialise"
    for folder, case in defeasible_cases(None if "--all" in sys.argv else HEAVY):
        outcome, detail = run(case, engine)
        results[folder, outcome] += 1
        if outcome != "pass" or "-v" in sys.argv:
            print(f"{folder}/{case.name}: {outcome} {detail}", file=sys.stderr)
    for folder in FOLDERS:
        print(folder, {o: n for (f, o), n in sorted(results.items()) if f == folder})
    totals = Counter()
    for (_, outcome), n in results.items():
        totals[outcome] += n
    print("all", dict(totals))
