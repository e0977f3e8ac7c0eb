"""A whole loaded knowledge base, stored so that a warm start neither parses, checks nor evaluates.

One entry of :mod:`.cache` (plain JSON, HMAC-checked, in the user's private directory)
per set of KB files, keyed by every file's shown path and bytes, in load order, and by the
package's code. It holds what loading computed: the modules as parsed, the checked
program's kinds' members and dependency graph, what compiling its defeasible rules worked out
(:class:`~liuren_logic.datalog.defeasible.Analysis`: it is not worked out again), the rules as
:func:`~liuren_logic.datalog.compiler.plan` compiled them, the shape of the bottom-up engine's plan
of them (:class:`~liuren_logic.datalog.evaluate.Layout`), and the chart-independent relations the
bottom-up engine evaluated (:meth:`~liuren_logic.datalog.evaluate.Materialisation.static_state`).
A program that fails its check is never stored, so ``kb check`` reports its problems every
time; a stored one passed the same check of the same bytes. Reading an entry builds only
syntax nodes, strings, numbers and tuples.

The payload is lines of JSON: a header, then two lines per module: the module (without its
lines of text, split again from the file's bytes, which the key covers), and its rules as compiled
(a body literal the rule itself holds is written as its place in the rule's body). A static
relation that only the modules' facts give is written as null and read back from them.

Entries may also ship with the package, written at build time (:func:`prepare`), checked by a
digest instead of a MAC (:func:`~liuren_logic.datalog.cache.shipped`) and read first.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

from . import cache
from . import syntax as S
from .checker import Program
from .compiler import CompiledAggregate, CompiledRule, plan
from .defeasible import Analysis, analysis, expand
from .digraph import Digraph
from .evaluate import Layout, layout
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
_pools: dict[Path, tuple] = {}  # a folder of shipped entries → its pool's lines and files (prepare)


class Loaded(NamedTuple):
    prepared: Prepared  # the program, its compiled rules in the program's order, and what they give
    static: Optional[Static]  # None when the static part could not be evaluated within the limits


def key(sources: Sequence[tuple[str, bytes]]) -> str:
    """The entry name of these (shown path, bytes) files, in this order."""
    return cache.entry_name(b"knowledge base", *(name.encode("utf-8", "surrogateescape") + b"\0" + data
                                                for name, data in sources))


def load(name: str, sources: Sequence[tuple[str, bytes]], make: Callable[[], Loaded],
         shipped: Optional[Path] = None) -> Loaded:
    """The knowledge base of these files (entry ``name``): shipped prepared in the folder ``shipped``
    (:func:`prepare`), else from the user's cache; ``make()`` parses, checks and evaluates on a miss.
    The :data:`KEPT` used last stay in memory."""
    loaded = _memory.pop(name, None)
    if loaded is None:
        found = _shipped(shipped, name, sources) if shipped is not None else None
        loaded = found if found is not None else \
            cache.entry(name, make, _encode, lambda payload: _decode(payload, sources))
    _memory[name] = loaded  # the most recently used last
    while len(_memory) > KEPT:
        del _memory[next(iter(_memory))]
    return loaded


POOL, FILES = "modules", "files"  # the shipped entries of each module's line, and of where each file's is (prepare)


def prepare(folder: Path, loaded: Iterable[tuple[str, Sequence[tuple[str, bytes]], Loaded]]) -> list[Path]:
    """Write these knowledge bases ((entry name, their files as for :func:`key`, loaded) triples, each
    written as it comes) into ``folder`` to ship with the package (a build step): each module's line
    once, in the entry ``POOL``, and each knowledge base as its entry with its modules' lines replaced
    by ``@`` and their places in the pool (schools a reading apart share all their modules but one);
    ``FILES`` maps each file (``file_key``) to its module's place. The paths written."""
    pool: dict[bytes, int] = {}
    files: dict[str, int] = {}
    written = []
    for name, sources, one in loaded:
        lines = _encode(one).split(b"\n")
        for k, (shown, data) in zip(range(1, len(lines), 2), sources):
            place = files[file_key(shown, data)] = pool.setdefault(lines[k], len(pool))
            lines[k] = b"@%d" % place
        written.append(cache.write_shipped(folder, name, b"\n".join(lines)))
    return written + [cache.write_shipped(folder, POOL, b"\n".join(pool)),
                      cache.write_shipped(folder, FILES, cache.dumps(files))]


def file_key(shown: str, data: bytes) -> str:
    """A KB file's name in ``FILES``: a digest of the package's code, its shown path and its bytes."""
    return cache.entry_name(b"file", shown.encode("utf-8", "surrogateescape"), data)


def shipped_module(folder: Path, shown: str, data: bytes) -> Optional[S.Module]:
    """The module of one KB file as a knowledge base shipped in ``folder`` holds it, or None."""
    pool, files = _pool(folder)
    place = files.get(file_key(shown, data))
    if place is None:
        return None
    try:
        return _module(pool[place], shown, data)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None


def _pool(folder: Path) -> tuple[list, dict]:
    """The lines of the pool shipped in ``folder`` and its map of files (empty when none, or damaged)."""
    if folder not in _pools:
        pool = cache.shipped(folder, POOL, lambda payload: payload.split(b"\n"))
        files = cache.shipped(folder, FILES, json.loads) if pool else None
        _pools[folder] = (pool, files) if isinstance(files, dict) else ([], {})
    return _pools[folder]


def _shipped(folder: Path, name: str, sources: Sequence[tuple[str, bytes]]) -> Optional[Loaded]:
    """The knowledge base ``name`` as :func:`prepare` shipped it in ``folder``, or None (none there, or damaged)."""
    pool, _ = _pool(folder)

    def decode(payload: bytes) -> Loaded:
        lines = payload.split(b"\n")
        for k in range(1, len(lines), 2):
            if not lines[k].startswith(b"@"):
                raise ValueError("a shipped entry without its module's place")
            lines[k] = pool[int(lines[k][1:])]
        return _decode(b"\n".join(lines), sources)
    return cache.shipped(folder, name, decode) if pool else None


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
        "defeat": _analysis_data(analysis(program.defeat)),
        "plan": _layout_data(layout(loaded.prepared)),
    }
    lines = [cache.dumps(header)]
    compiled = iter(loaded.prepared.rules)  # the modules' rules first, then those their defeasible rules compile to
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
    owned = []  # each module's rules: those of the compiled line stored with it
    for module in program.modules:  # as the checker collected them: it found no duplicate and no bad clause
        program.kinds.update((k.name, k) for k in module.kinds)
        program.preds.update((p.name, p) for p in module.preds)
        start = len(program.rules)
        for rule in module.rules:
            (program.facts if rule.is_fact else program.rules).append(rule)
        owned.append((start, len(program.rules)))
    if expand(program, known=_analysis(data["defeat"])):  # the rules its defeasible rules compile to, after
        raise ValueError("an entry whose defeasible rules do not compile")  # the modules' (stored checked)
    compiled = []
    for module, line, (_, text), (start, end) in zip(program.modules, lines[1::2], sources, owned):
        key = (module.path, text, line)
        if key not in _stored:
            _stored[key] = cache.decode_nodes(line, module.path, _terms)
        stored = _stored[key]
        if len(stored) != end - start:
            raise ValueError("compiled rules out of place")
        compiled += [_compiled(d, program.rules[start + i], start + i) for i, d in enumerate(stored)]
    compiled += [plan(rule, index) for index, rule in enumerate(program.rules[len(compiled):], len(compiled))]
    program.members = {kind: None if members is None else frozenset(members) for kind, members in data["members"]}
    graph = program.dependencies = Digraph()
    graph.add_nodes_from(a for a, _ in data["dependencies"])
    for a, edges in data["dependencies"]:
        for b, negative, path, line, col in edges:
            graph.add_edge(a, b, negative=negative, at=(path, line, col))
    prepared = Prepared(program, compiled, _layout(data["plan"]))
    static = data["static"]
    if static is not None:
        given = _given(prepared)
        static = {pred: given[pred] if rows is None else tuple(map(tuple, rows)) for pred, rows in static}
    return Loaded(prepared, static)


def _analysis_data(found: Optional[Analysis]) -> Optional[list]:
    """What the compilation of the defeasible rules worked out, as JSON data (:func:`_analysis` reads it)."""
    return None if found is None else [sorted(found.tainted), [list(group) for group in found.cycles]]


def _analysis(data: Optional[list]) -> Optional[Analysis]:
    if data is None:
        return None
    tainted, cycles = data
    return Analysis(frozenset(tainted), tuple(tuple(group) for group in cycles))


def _layout_data(shape: Layout) -> list:
    """The shape of the engine's plan as JSON data (:func:`_layout` reads it); sets in a fixed order."""
    asked = [[pred, list(positions), [list(v) if type(v) is tuple else v for v in sorted(values, key=repr)]]
             for (pred, positions), values in shape.asked.items()]
    return [sorted(shape.moving), [[list(members), recursive, dynamic] for members, recursive, dynamic in shape.strata],
            asked, [list(strata) for strata in shape.below], [sorted(read) for read in shape.reads]]


def _layout(data: list) -> Layout:
    moving, strata, asked, below, reads = data
    return Layout(frozenset(moving), tuple((tuple(members), recursive, dynamic) for members, recursive, dynamic in strata),
                  {(pred, tuple(positions)): frozenset(tuple(v) if type(v) is list else v for v in values)
                   for pred, positions, values in asked},
                  tuple(map(tuple, below)), tuple(map(frozenset, reads)))


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
