"""The relations of an evaluation, with the hash indexes its joins read (:class:`Store`)."""
from __future__ import annotations

from collections import defaultdict, deque
from itertools import compress, filterfalse, repeat
from math import inf
from operator import itemgetter
from typing import Iterable, Optional, Sequence

from .program import Value


class Store:
    """Relations as the keys of dicts (sets of tuples in the order they were added), with hash
    indexes built on demand per bound-position pattern.

    A store may sit on a parent (the chart-independent relations): it reads what it does
    not hold from the parent and writes only to itself, copying a parent relation first.

    A dict, not a set: the collector walks a relation's rows in its order, and in the order they
    were made they lie in memory in turn, where a set's hash order costs it a cache miss a row.
    Once evaluated and their rows untracked, relations are settled (:meth:`settle`): the
    collector then does not walk them at all.
    """

    def __init__(self, parent: "Store | None" = None, twin: "Store | None" = None, shared: frozenset = frozenset(),
                 asked: "dict | None" = None, budget: float = inf):
        self.parent = parent
        self.budget = budget  # bytes the bindings of one step of a body may take here (operations.Operation.within)
        self.twin, self.shared = twin, shared  # relations read from another school's store of the same batch
        # (relation, positions) → the constants the rules ask there (_Plan.asked): what a constant index holds
        self.asked: dict[tuple, frozenset] = asked if asked is not None else parent.asked if parent else {}
        self.relations: dict[str, dict] = {}  # relation → its rows, as keys (values None)
        self._settled: set[str] = set()  # the relations rebuilt since they last grew (settle)
        # Few objects for the collector to walk: a batch keeps these for as long as its charts live.
        self._tables: dict[tuple, dict] = {}  # (relation, positions, consts, outputs, checks) → table;
        # (relation, positions) → constant index (_holding)
        self._single: set[tuple] = set()  # the specs of the tables that hold one tail a key
        self._kept: dict[str, tuple] = {}  # relation → the keys of its tables

    def rows(self, pred: str) -> dict:
        """A relation's rows, as the keys of a dict: to be read, not changed."""
        if pred in self.relations:
            return self.relations[pred]
        if pred in self.shared:
            return self.twin.rows(pred)
        return self.parent.rows(pred) if self.parent else {}

    def add(self, pred: str, rows: Iterable[tuple]) -> int:
        """Add rows to a relation; how many were new."""
        relation = self.relations.get(pred)
        if relation is None:
            relation = self.relations[pred] = dict.fromkeys(self.parent.rows(pred)) if self.parent else {}
        before = len(relation)
        if before and pred in self._kept:  # its tables take the new rows (a recursive stratum's rounds)
            fresh = list(filterfalse(relation.__contains__, dict.fromkeys(rows)))
            relation.update(dict.fromkeys(fresh))
            self._extend_tables(pred, fresh)
        elif before:
            relation.update(dict.fromkeys(rows))
        else:  # most relations are added to once
            relation = self.relations[pred] = dict.fromkeys(rows)
        grew = len(relation) - before
        if grew:
            self._settled.discard(pred)
            if not before:
                self.forget(pred)
        return grew

    def _extend_tables(self, pred: str, fresh: list) -> None:
        """Add these new rows of a relation to the tables built on it, so that a round of recursion
        costs what it adds, not a table built again over the whole relation. A key's tails become a
        list as it grows; a table of one tail a key that would get a second is dropped (built again
        if read)."""
        for spec in self._kept[pred]:
            table = self._tables[spec]
            if len(spec) == 2:  # a constant index
                where = spec[1]
                get = itemgetter(*where)
                asked = self.asked.get(spec, frozenset())
                pairs = [(get(row), row) for row in fresh if get(row) in asked]
                grown = _grouped(*zip(*pairs)) if pairs else {}
            else:
                single = spec in self._single
                grown, one = _table(self._matching(fresh, spec), spec[1], spec[3], single)
                if single:
                    if one and table.keys().isdisjoint(grown):
                        table.update(grown)
                    else:
                        self._drop(pred, spec)
                    continue
            for key, tails in grown.items():
                held = table.get(key)
                if held is None:
                    table[key] = tails
                elif type(held) is list:
                    held.extend(tails)
                else:
                    table[key] = [*held, *tails]

    def _drop(self, pred: str, spec: tuple) -> None:
        del self._tables[spec]
        self._single.discard(spec)
        self._kept[pred] = tuple(kept for kept in self._kept[pred] if kept != spec)

    def settle(self) -> None:
        """Rebuild each relation that grew since it was last settled, once the collector has
        untracked its rows (the collector pass calls it, :mod:`~liuren_logic.datalog.passes.collector`): a dict
        built of untracked rows is untracked, so that what a batch keeps is not walked again in
        each collection (a set is always walked)."""
        for pred in [pred for pred in self.relations if pred not in self._settled]:
            self.relations[pred] = dict.fromkeys(self.relations[pred])
        self._settled.update(self.relations)

    def replace(self, pred: str, rows: Iterable[tuple]) -> None:
        """Make a relation hold these rows only, here (an estimate, a cycle through defeat derived again)."""
        self.forget(pred)
        self.relations[pred] = dict.fromkeys(rows)
        self._settled.discard(pred)

    def forget(self, pred: str) -> None:
        """Drop the tables built here on a relation (built again if read)."""
        for spec in self._kept.pop(pred, ()):
            del self._tables[spec]
            self._single.discard(spec)

    def index(self, pred: str, positions: tuple, consts: tuple = ()) -> dict:
        """Rows that hold the constants ``consts`` ((position, value)…), keyed by the values at
        ``positions``: the value itself for one position, a tuple for several, () for none."""
        return self.table((pred, positions, consts, None, ()))[0]

    def table(self, spec: tuple) -> tuple[dict, bool]:
        """As :meth:`index` for ``spec`` = (relation, positions, consts, outputs, checks), but of each
        row with equal values at each ``checks`` pair (p, q), only the values at ``outputs`` (a
        tuple; the whole row for ``None``): what a join appends to a binding. With it, whether each
        key has one tail, which the table then holds alone (not in a tuple; only with ``outputs``
        and ``positions``)."""
        found = self._tables.get(spec)
        if found is not None:
            return found, spec in self._single
        pred, positions, consts, outputs, checks = spec
        if pred not in self.relations:
            if pred in self.shared:
                return self.twin.table(spec)
            if self.parent is not None:
                return self.parent.table(spec)
        rows = self._holding(pred, consts) if consts else self.rows(pred)
        if checks:
            rows = [row for row in rows if all(row[p] == row[q] for p, q in checks)]
        table, one = _table(rows, positions, outputs)
        self._tables[spec] = table
        if one:
            self._single.add(spec)
        self._keep(pred, spec)
        return table, one

    @staticmethod
    def _matching(rows: list, spec: tuple) -> list:
        """The rows that hold a table's constants and agree at its ``checks`` pairs."""
        _, _, consts, _, checks = spec
        return [row for row in rows if all(row[p] == v for p, v in consts) and all(row[p] == row[q] for p, q in checks)]

    def built(self, spec: tuple) -> bool:
        """Whether the table of ``spec`` is built already, where its relation is held."""
        if spec in self._tables:
            return True
        pred = spec[0]
        if pred not in self.relations:
            if pred in self.shared:
                return self.twin.built(spec)
            if self.parent is not None:
                return self.parent.built(spec)
        return False

    def _holding(self, pred: str, consts: tuple) -> Sequence[tuple]:
        """The rows that hold the constants ``consts`` ((position, value)…): from an index over their
        positions of only the rows holding constants the rules ask there (one pass, no grouping of
        the rest), or for a constant no rule asks, a scan."""
        where = tuple(p for p, _ in consts)
        value = consts[0][1] if len(consts) == 1 else tuple(v for _, v in consts)
        asked, get = self.asked.get((pred, where), frozenset()), itemgetter(*where)
        if value not in asked:
            return [row for row in self.rows(pred) if get(row) == value]
        key = (pred, where)
        index = self._tables.get(key)
        if index is None:
            rows = self.rows(pred)
            held = list(compress(rows, map(asked.__contains__, map(get, rows))))
            self._tables[key] = index = _grouped(map(get, held), held)
            self._keep(pred, key)
        return index.get(value, ())

    def _keep(self, pred: str, spec: tuple) -> None:
        """Note a table built on ``pred`` (a tuple of keys: one object the collector soon stops walking)."""
        self._kept[pred] = self._kept.get(pred, ()) + (spec,)

    def match(self, pred: str, pattern: Sequence[Optional[Value]]) -> list:
        positions = tuple(i for i, v in enumerate(pattern) if v is not None)
        if not positions:
            return list(self.rows(pred))
        key = pattern[positions[0]] if len(positions) == 1 else tuple(pattern[p] for p in positions)
        return self.index(pred, positions).get(key, ())


def _table(rows: Sequence[tuple], positions: tuple, outputs: Optional[tuple], single: bool = True) -> tuple[dict, bool]:
    """The rows' tails at ``outputs`` keyed by their values at ``positions`` (:meth:`Store.table`), and
    whether each key has one tail, which the table then holds alone (only if ``single``)."""
    tails = _tails(rows, outputs)
    if not positions:
        return ({(): tuple(tails)} if rows else {}), False
    keys = list(map(itemgetter(*positions), rows))
    if outputs is not None and single:
        tails = list(tails)
        table = dict(zip(keys, tails))
        if len(table) == len(keys):  # a key per row: a join reads its one tail
            return table, True
    return _grouped(keys, tails), False


def _grouped(keys: Iterable, values: Iterable) -> dict:
    """Each key's values, in order, in a tuple (the collector need not follow tuples); the loop in C."""
    groups = defaultdict(list)
    deque(map(list.append, map(groups.__getitem__, keys), values), maxlen=0)
    return {key: tuple(found) for key, found in groups.items()}


def _tails(rows, outputs: Optional[tuple]) -> Iterable[tuple]:
    """Each row's values at ``outputs`` as a tuple (the whole row for ``None``), without a Python call per row."""
    if outputs is None:
        return rows
    if not outputs:
        return repeat((), len(rows))
    if len(outputs) == 1:  # few distinct values (branches, stems): one tuple each
        values = list(map(itemgetter(outputs[0]), rows))
        return map({v: (v,) for v in set(values)}.__getitem__, values)
    tails = list(map(itemgetter(*outputs), rows))
    return map({}.setdefault, tails, tails)  # equal tails as one tuple: fewer objects to keep
