"""A whole loaded knowledge base, stored so that a warm start neither parses, checks nor evaluates.

One entry of :mod:`.cache` (plain JSON, HMAC-checked, in the user's private directory)
per set of KB files, keyed by every file's shown path and bytes, in load order, and by the
package's code. It holds what loading computed: the modules as parsed, the checked
program's kinds' members and dependency graph, and the chart-independent relations the
bottom-up engine evaluated (:meth:`~liuren_logic.evaluate.Materialisation.static_state`).
A program that fails its check is never stored, so ``kb check`` reports its problems every
time; a stored one passed the same check of the same bytes. Reading an entry builds only
syntax nodes, strings, numbers and tuples.

The payload is lines of JSON: a header, then one line per module.
"""
from __future__ import annotations

import gc
import json
from contextlib import contextmanager
from typing import Callable, NamedTuple, Optional, Sequence

from . import cache
from . import syntax as S
from .checker import Program
from .digraph import Digraph
from .errors import Position

Static = dict  # relation → tuple of rows: what Materialisation.static_state gives

_memory: dict[str, "Loaded"] = {}


class Loaded(NamedTuple):
    program: Program
    static: Optional[Static]  # None when the static part could not be evaluated within the limits
    rules: Optional[list] = None  # the compiled rules, when this process planned them already


@contextmanager
def collection_paused():
    """Python's cyclic garbage collector off while loading: the tens of thousands of long-lived
    objects a load builds would otherwise be scanned again and again (half the load's time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def key(sources: Sequence[tuple[str, bytes]]) -> str:
    """The entry name of these (shown path, bytes) files, in this order."""
    return cache.entry_name(b"knowledge base", *(name.encode("utf-8", "surrogateescape") + b"\0" + data
                                                for name, data in sources))


def load(name: str, sources: Sequence[tuple[str, bytes]], make: Callable[[], Loaded]) -> Loaded:
    """The knowledge base of these files (entry ``name``); ``make()`` parses, checks and evaluates on a miss."""
    if name not in _memory:
        names = [shown for shown, _ in sources]
        _memory[name] = cache.entry(name, make, _encode, lambda payload: _decode(payload, names))
    return _memory[name]


def remember(name: str, loaded: Loaded) -> None:
    """Keep a load with its compiled rules for this process's next load of the same files."""
    _memory[name] = loaded


def _encode(loaded: Loaded) -> bytes:
    program = loaded.program
    graph = program.dependencies
    header = {
        "files": [m.path for m in program.modules],
        "members": [[k, None if m is None else sorted(m, key=S.format_value)] for k, m in program.members.items()],
        "dependencies": [[a, [[b, e["negative"], e["pos"].path, e["pos"].line, e["pos"].col]
                              for b, e in graph.succ[a].items()]] for a in graph],
        "static": None if loaded.static is None else list(loaded.static.items()),
    }
    return b"\n".join([cache.dumps(header)] + [cache.encode_module(m) for m in program.modules])


def _decode(payload: bytes, names: list[str]) -> Loaded:
    header, *lines = payload.split(b"\n")
    data = json.loads(header)
    if data["files"] != names or len(lines) != len(names):
        raise ValueError("an entry for other files")
    program = Program([cache.decode_module(line, name) for line, name in zip(lines, names)])
    for module in program.modules:  # as the checker collected them: it found no duplicate and no bad clause
        program.kinds.update((k.name, k) for k in module.kinds)
        program.preds.update((p.name, p) for p in module.preds)
        for rule in module.rules:
            (program.facts if rule.is_fact else program.rules).append(rule)
    program.members = {kind: None if members is None else frozenset(members) for kind, members in data["members"]}
    graph = program.dependencies = Digraph()
    graph.add_nodes_from(a for a, _ in data["dependencies"])
    for a, edges in data["dependencies"]:
        for b, negative, path, line, col in edges:
            graph.add_edge(a, b, negative=negative, pos=Position(path, line, col))
    static = data["static"]
    if static is not None:
        static = {pred: tuple(map(tuple, rows)) for pred, rows in static}
    return Loaded(program, static)
