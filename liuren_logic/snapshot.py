"""A whole loaded knowledge base, stored so that a warm start neither parses, checks nor evaluates.

One entry of :mod:`.cache` (plain JSON, HMAC-checked, in the user's private directory)
per set of KB files, keyed by every file's shown path and bytes, in load order, and by the
package's code. It holds what loading computed: the modules as parsed, the checked
program's kinds' members and dependency graph, the rules as :func:`~liuren_logic.compiler.plan`
compiled them, and the chart-independent relations the bottom-up engine evaluated
(:meth:`~liuren_logic.evaluate.Materialisation.static_state`).
A program that fails its check is never stored, so ``kb check`` reports its problems every
time; a stored one passed the same check of the same bytes. Reading an entry builds only
syntax nodes, strings, numbers and tuples.

The payload is lines of JSON: a header, then two lines per module: the module (without its
lines of text, split again from the file's bytes, which the key covers), and its rules as compiled
(a body literal the rule itself holds is written as its place in the rule's body). A static
relation that only the modules' facts give is written as null and read back from them.
"""
from __future__ import annotations

import json
from typing import Callable, NamedTuple, Optional, Sequence

from . import cache
from . import syntax as S
from .checker import Program
from .compiler import CompiledAggregate, CompiledRule
from .digraph import Digraph
from .program import Prepared

Static = dict  # relation → tuple of rows: what Materialisation.static_state gives

KEPT = 8  # knowledge bases kept in memory, the least recently used let go first (a session holds its own)
_memory: dict[str, "Loaded"] = {}  # in the order of their last use
# What decoding built, kept for the process: the schools a cast weighs (one reading swapped each) share
# all their files but one, and each file's module and compiled rules are then decoded once. Keyed by the
# file's shown path, its bytes and the stored line (a compiled line holds its rules' places in the school).
_terms: dict = {}  # the variables and constants of every school decoded, one object each
_modules: dict[tuple, S.Module] = {}
_stored: dict[tuple, list] = {}


class Loaded(NamedTuple):
    prepared: Prepared  # the program, its compiled rules in the program's order, and what they give
    static: Optional[Static]  # None when the static part could not be evaluated within the limits


def key(sources: Sequence[tuple[str, bytes]]) -> str:
    """The entry name of these (shown path, bytes) files, in this order."""
    return cache.entry_name(b"knowledge base", *(name.encode("utf-8", "surrogateescape") + b"\0" + data
                                                for name, data in sources))


def load(name: str, sources: Sequence[tuple[str, bytes]], make: Callable[[], Loaded]) -> Loaded:
    """The knowledge base of these files (entry ``name``); ``make()`` parses, checks and evaluates on a miss."""
    loaded = _memory.pop(name, None)
    if loaded is None:
        loaded = cache.entry(name, make, _encode, lambda payload: _decode(payload, sources))
    _memory[name] = loaded  # the most recently used last
    while len(_memory) > KEPT:
        del _memory[next(iter(_memory))]
    return loaded


def _encode(loaded: Loaded) -> bytes:
    program = loaded.prepared.program
    graph = program.dependencies
    given = {pred: set(rows) for pred, rows in _given(loaded.prepared).items()}
    header = {
        "files": [m.path for m in program.modules],
        "members": [[k, None if m is None else sorted(m, key=S.format_value)] for k, m in program.members.items()],
        "dependencies": [[a, [[b, e["negative"], *e["at"]] for b, e in graph.succ[a].items()]] for a in graph],
        "static": None if loaded.static is None else [[pred, None if given.get(pred) == set(rows) else rows]
                                                       for pred, rows in loaded.static.items()],
    }
    lines = [cache.dumps(header)]
    compiled = iter(loaded.prepared.rules)
    for module in program.modules:
        rules = [next(compiled) for rule in module.rules if not rule.is_fact]
        lines += [cache.encode_module(module, with_lines=False),
                  cache.dumps([_compiled_data(c, module.path) for c in rules])]
    return b"\n".join(lines)


def _compiled_data(compiled: CompiledRule, path: str) -> list:
    own = [cache.node_data(literal, path) for literal in compiled.rule.body]
    body = []
    for literal in compiled.body:
        data = cache.node_data(literal, path)
        body.append(own.index(data) if data in own else data)
    aggregates = [[_place(literal, compiled.body), agg.helper, agg.function, agg.exists, agg.group, agg.inner,
                   [_place(a, literal.body) for a in agg.body], [_place(c, compiled.body) for c in agg.context]]
                  for literal, agg in compiled.aggregates.items()]
    return [compiled.index, compiled.fire, body, compiled.variables, aggregates]


def _place(literal, body) -> int:
    """Where this very literal stands in a body (a TypeError when it does not: not stored)."""
    for place, other in enumerate(body):
        if other is literal:
            return place
    raise TypeError(f"{literal} is not in its body")


def _compiled(data: list, rule: S.Rule, index: int) -> CompiledRule:
    stored, fire, body, variables, aggregates = data
    if stored != index:
        raise ValueError("a compiled rule out of place")
    body = tuple(rule.body[x] if type(x) is int else x for x in body)
    compiled = {}
    for place, helper, function, exists, group, inner, inside, context in aggregates:
        literal = body[place]
        compiled[literal] = CompiledAggregate(literal, helper, function, exists, tuple(group), tuple(inner),
                                              tuple(literal.body[k] for k in inside), tuple(body[k] for k in context))
    return CompiledRule(rule, index, fire, body, tuple(variables), compiled)


def _decode(payload: bytes, sources: Sequence[tuple[str, bytes]]) -> Loaded:
    header, *lines = payload.split(b"\n")
    data = json.loads(header)
    if data["files"] != [name for name, _ in sources] or len(lines) != 2 * len(sources):
        raise ValueError("an entry for other files")
    program = Program([_module(line, name, text) for line, (name, text) in zip(lines[::2], sources)])
    compiled = []
    for module, line, (_, text) in zip(program.modules, lines[1::2], sources):  # as the checker collected
        program.kinds.update((k.name, k) for k in module.kinds)  # them: it found no duplicate and no bad clause
        program.preds.update((p.name, p) for p in module.preds)
        for rule in module.rules:
            (program.facts if rule.is_fact else program.rules).append(rule)
        rules = program.rules[len(compiled):]
        key = (module.path, text, line)
        if key not in _stored:
            _stored[key] = cache.decode_nodes(line, module.path, _terms)
        stored = _stored[key]
        if len(stored) != len(rules):
            raise ValueError("compiled rules out of place")
        compiled += [_compiled(d, rule, len(compiled) + i) for i, (d, rule) in enumerate(zip(stored, rules))]
    program.members = {kind: None if members is None else frozenset(members) for kind, members in data["members"]}
    graph = program.dependencies = Digraph()
    graph.add_nodes_from(a for a, _ in data["dependencies"])
    for a, edges in data["dependencies"]:
        for b, negative, path, line, col in edges:
            graph.add_edge(a, b, negative=negative, at=(path, line, col))
    prepared = Prepared(program, compiled)
    static = data["static"]
    if static is not None:
        given = _given(prepared)
        static = {pred: given[pred] if rows is None else tuple(map(tuple, rows)) for pred, rows in static}
    return Loaded(prepared, static)


def _module(line: bytes, name: str, text: bytes) -> S.Module:
    """The module of a stored line, decoded once in the process (its lines of text split from the
    file's bytes, which the entry's key covers, as the parser splits them)."""
    key = (name, text, line)
    if key not in _modules:
        _modules[key] = cache.decode_module(line, name, _terms, text.decode("utf-8").splitlines())
    return _modules[key]


def _given(prepared: Prepared) -> dict[str, tuple]:
    """The rows of each relation that only facts give (no rule derives it), each once: a static relation
    that is just these rows is written as null and read back from the modules' facts, not stored twice."""
    rows: dict[str, list] = {}
    for pred, args in prepared.origins:
        if pred not in prepared.rules_for:
            rows.setdefault(pred, []).append(args)
    return {pred: tuple(found) for pred, found in rows.items()}
