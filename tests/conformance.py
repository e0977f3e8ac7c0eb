"""The core cases of the datalog-conformance suite (PyPI, MIT), translated into the KB language.

The suite's programs are written in the dialects they were harvested from (Soufflé, Nemo,
Crepe): variables may be lower-case, predicates upper-case, negation ``!`` or ``not``,
the final ``.`` optional, a comparison in parentheses. :func:`translate` turns a case into
KB text: every predicate declared over ``any`` and renamed (``isEqual`` → ``ris_equal``),
every variable renamed (``pm`` → ``Vpm``); a variable that occurs once in a Nemo rule is
``_`` there (Nemo's reading of it). :func:`run` answers a case with one engine: ``pass``,
``fail`` or ``refused`` (the KB was refused with a located error where the suite expects
an answer, or the evaluation went past its limits).

    python tests/conformance.py     # the table of outcomes by folder, for both engines
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from functools import lru_cache
from typing import Optional

import yaml
from datalog_conformance import TestCase
from datalog_conformance.plugin import _load_multi_case_file, get_tests_dir

from liuren_logic.datalog.checker import check
from liuren_logic.datalog.pydatalog_backend import PyDatalog
from liuren_logic.domain.errors import KBError
from liuren_logic.datalog.evaluate import Materialisation
from liuren_logic.datalog.parser import parse
from liuren_logic.datalog.program import KnowledgeBase
from liuren_logic.datalog.semantics import EvaluationLimit

FOLDERS = ("basic", "negation", "recursion", "errors")
ENGINES = ("materialise", "pydatalog")

# The suite's expected error names → what our located message says for that mistake.
ERRORS = {
    "arity_mismatch": r"takes \d+ arguments?",
    "cyclic_negation": r"negation or aggregate through recursion",
    "unbound_variable": r"is not bound by a positive atom|arithmetic cannot stand inside",
    "safety_violations": r"'_' cannot stand in a rule's head",
    "SafetyViolationError": r"under 'not' is not bound by a positive atom",
}

_TOKEN = re.compile(r'\s*("(?:\\.|[^"\\])*"|:-|!=|<=|>=|-?\d+|[A-Za-z_][A-Za-z0-9_]*|.)')


HEAVY = 100_000  # bytes: a case file larger than this is heavy (hmmer, LUBM), parsed only when asked for


def core_cases(largest: Optional[int] = None) -> list[tuple[str, object]]:
    """(folder, case) for every case of the core folders, in the suite's order; a case file over
    ``largest`` bytes is left out before it is read (the suite holds 42 MB of YAML)."""
    root = get_tests_dir()
    paths = sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.yaml"))
    return [(path.relative_to(root).parts[0], case) for path in paths
            if largest is None or path.stat().st_size <= largest for case in cases_in(path)]


def heavy_files() -> list:
    """The case files of the core folders over ``HEAVY`` bytes, unread."""
    root = get_tests_dir()
    return sorted(p for folder in FOLDERS for p in (root / folder).rglob("*.yaml") if p.stat().st_size > HEAVY)


def cases_in(path) -> list:
    """The cases of one YAML file, as the suite's own discovery reads them (libyaml when present;
    ``_load_multi_case_file`` is the pinned suite's reader of a file of several cases)."""
    raw = yaml.load(path.read_text("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if raw is None:
        return []
    if isinstance(raw, dict) and "tests" in raw:
        return _load_multi_case_file(raw, path)
    return [TestCase.from_dict(raw)]


def relation(name: str) -> str:
    """A KB predicate name for a suite predicate name (one to one: ``_`` → ``__``, ``A`` → ``_a``)."""
    return "r" + "".join("__" if c == "_" else "_" + c.lower() if c.isupper() else c for c in name)


def translate(case) -> str:
    """KB text of a case's program: declarations, facts, then rules."""
    program = case.program
    arity: dict[str, int] = {}
    rules = [_rule(text, arity, nemo=case.source.startswith("nemo")) for text in program.rules]
    for pred, rows in program.facts.items():
        arity.setdefault(pred, len(rows[0]) if rows else 0)
    for pred, rows in (case.expect or {}).items():
        arity.setdefault(pred, len(rows[0]) if rows else 0)
    lines = [f"@pred {relation(p)}({', '.join(f'a{i}: any' for i in range(n))})." for p, n in sorted(arity.items())]
    for pred, rows in program.facts.items():
        lines += [f"{relation(pred)}({', '.join(map(_constant, row))})." for row in rows]
    return "\n".join(lines + rules) + "\n"


def _constant(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _rule(text: str, arity: dict, nemo: bool) -> str:
    tokens = [t for t in _TOKEN.findall(text.strip().removesuffix(".")) if t.strip()]
    names = Counter(t for i, t in enumerate(tokens) if _is_name(t) and not _is_call(tokens, i))
    out = []
    for i, token in enumerate(tokens):
        if token in ("not", "!"):
            out.append("not ")
        elif _is_call(tokens, i):
            out.append(relation(token))
            arity.setdefault(token, _arguments(tokens, i))
        elif _is_name(token):
            out.append("_" if token == "_" or nemo and names[token] == 1 else "V" + token)
        else:
            out.append(token + (" " if token in (",", ":-") else ""))
    return _unwrap("".join(out)) + "."


def _is_name(token: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token)) and token != "not"


def _is_call(tokens: list[str], i: int) -> bool:
    return _is_name(tokens[i]) and i + 1 < len(tokens) and tokens[i + 1] == "("


def _arguments(tokens: list[str], i: int) -> int:
    depth, count, empty = 0, 1, True
    for token in tokens[i + 1:]:
        depth += (token == "(") - (token == ")")
        if depth == 0:
            break
        if depth == 1 and token == ",":
            count += 1
        elif token not in "()":
            empty = False
    return 0 if empty else count


def _unwrap(rule: str) -> str:
    """A comparison written in parentheses as a body literal, without them: ``(N <= 25)``."""
    return re.sub(r"(^|, |:- )\(([^()]*(?:<=|>=|!=|<|>|=)[^()]*)\)(?=,|$)", r"\1\2", rule)


def run(case, engine: str) -> tuple[str, str]:
    """(outcome, detail) of one case under one engine."""
    program, source = _load(translate(case), case.source.replace("/", "_"), engine)
    if isinstance(source, EvaluationLimit):
        return "refused", str(source)
    if isinstance(source, KBError):
        if case.expect_error is None:
            return "refused", str(source).splitlines()[0]
        matched = any(re.search(ERRORS[case.expect_error], p.message) for p in source.problems)
        return ("pass" if matched else "fail"), str(source).splitlines()[0]
    if case.expect_error is not None:
        return "fail", f"answered where the suite expects {case.expect_error}"
    for pred, rows in case.expect.items():
        try:
            answer = set(source.query(relation(pred), [None] * program.preds[relation(pred)].arity))
        except (KBError, EvaluationLimit) as refused:
            return "refused", str(refused).splitlines()[0]
        if answer != {tuple(row) for row in rows}:
            return "fail", f"{pred}: {sorted(answer, key=str)[:5]} …"
    return "pass", ""


@lru_cache(maxsize=2)
def _load(text: str, name: str, engine: str):
    """(program, what answers) for a program text, or (None, the error); the cases of one file share it."""
    try:
        program = check([parse(text, f"{name}.dl")])
        kb = KnowledgeBase(program)
        if engine == "materialise":
            return program, Materialisation(kb)
        top_down = PyDatalog(kb)
        top_down.activate()  # compiled (and its cycles derived) once for the cases of one file
        return program, top_down
    except (KBError, EvaluationLimit) as error:
        return None, error


def table(results: dict) -> str:
    """A Markdown table of outcomes: folder × engine → pass / fail / refused."""
    lines = ["| folder | cases | " + " | ".join(f"{e}: pass / fail / refused" for e in ENGINES) + " |",
             "|---|---|" + "---|" * len(ENGINES)]
    for folder in FOLDERS + ("all",):
        row = [f"{folder}"]
        for engine in ENGINES:
            counts = Counter(outcome for (f, e, _), (outcome, _) in results.items()
                             if e == engine and folder in (f, "all"))
            if len(row) == 1:
                row.append(str(sum(counts.values())))
            row.append(f"{counts['pass']} / {counts['fail']} / {counts['refused']}")
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    import time

    results = {}
    for folder, case in core_cases():
        for engine in ENGINES:
            start, cpu = time.perf_counter(), time.process_time()
            results[(folder, engine, case.name)] = outcome = run(case, engine)
            seconds = time.perf_counter() - start
            if outcome[0] != "pass" or seconds > 1 or "-v" in sys.argv:
                print(f"{folder}/{case.name} [{engine}] {outcome[0]} {seconds:.2f}s ({time.process_time() - cpu:.2f}s CPU) "
                      f"{outcome[1]}", file=sys.stderr)
    print(table(results))
