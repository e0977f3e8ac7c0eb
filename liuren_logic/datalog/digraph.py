"""A small directed graph with attributes, where importing networkx would cost more than the work.

Importing networkx takes about 0.2 s, longer than a whole cast. Derivations handed to a user are
``networkx.DiGraph`` (:mod:`~liuren_logic.datalog.provenance`); this lighter class serves two places that
must start fast: the predicate dependency graph built whenever a school is loaded (checks and
strata), and the derivations the command line only prints as a text tree (``liuren why``) or
reads for its sentences (``teach``, the short why-not). :class:`Digraph` has the part of
``networkx.DiGraph``'s interface they use (``graph``, ``nodes[n]``, ``edges[a, b]``,
``nodes(data=True)``, ``successors``, ``subgraph``, ``copy`` …), so the views read either; the rest
of this module is what the checker needs: reachability, strongly connected components in
dependency order, shortest paths.

>>> g = Digraph(); g.add_edge("a", "b"); g.add_edge("b", "a"); g.add_edge("b", "c")
>>> components(g), sorted(descendants(g, "c")), has_path(g, "a", "c")
([('a', 'b'), ('c',)], [], True)
>>> g.has_node("c"), g.in_degree("a"), g.out_degree("b"), sorted(g.successors("b"))
(True, 1, 2, ['a', 'c'])
"""
from __future__ import annotations

from typing import Hashable, Iterator


class Digraph:
    """Nodes in insertion order, each with a dict of attributes; each edge carries a dict of
    attributes; ``graph`` holds the graph's own."""

    def __init__(self, **attrs):
        self.graph: dict = dict(attrs)
        self.succ: dict[Hashable, dict[Hashable, dict]] = {}
        self.pred: dict[Hashable, dict[Hashable, None]] = {}
        self._attrs: dict[Hashable, dict] = {}

    def add_node(self, node, **attrs) -> None:
        if node not in self.succ:
            self.succ[node], self.pred[node], self._attrs[node] = {}, {}, {}
        self._attrs[node].update(attrs)

    def add_nodes_from(self, nodes) -> None:
        for node in nodes:
            self.add_node(node)

    def add_edge(self, a, b, **attrs) -> None:
        self.add_node(a)
        self.add_node(b)
        self.succ[a].setdefault(b, {}).update(attrs)
        self.pred[b][a] = None

    def get_edge_data(self, a, b, default=None):
        return self.succ.get(a, {}).get(b, default)

    def has_edge(self, a, b) -> bool:
        return b in self.succ.get(a, ())

    def has_node(self, node) -> bool:
        return node in self.succ

    def successors(self, node) -> Iterator:
        return iter(self.succ[node])

    def predecessors(self, node) -> Iterator:
        return iter(self.pred[node])

    def out_degree(self, node) -> int:
        return len(self.succ[node])

    def in_degree(self, node) -> int:
        return len(self.pred[node])

    @property
    def nodes(self) -> "_Nodes":
        """``nodes[n]``: a node's attributes; ``nodes()`` the nodes, ``nodes(data=True)`` (node, attributes) pairs."""
        return _Nodes(self._attrs)

    @property
    def edges(self) -> "_Edges":
        """``edges[a, b]``: an edge's attributes; ``edges()`` the (a, b) pairs, ``edges(data=True)`` with attributes."""
        return _Edges(self.succ)

    def number_of_nodes(self) -> int:
        return len(self.succ)

    def number_of_edges(self) -> int:
        return sum(map(len, self.succ.values()))

    def copy(self) -> "Digraph":
        """A new graph with copies of every attribute dict."""
        return self.subgraph(self.succ)

    def subgraph(self, nodes) -> "Digraph":
        """A new graph of these nodes and the edges between them (in this graph's order), attributes copied."""
        keep = set(nodes)
        out = Digraph(**self.graph)
        for node, attrs in self._attrs.items():
            if node in keep:
                out.add_node(node, **attrs)
        for a, children in self.succ.items():
            for b, attrs in children.items():
                if a in keep and b in keep:
                    out.add_edge(a, b, **attrs)
        return out

    def __contains__(self, node) -> bool:
        return node in self.succ

    def __iter__(self) -> Iterator:
        return iter(self.succ)

    def __len__(self) -> int:
        return len(self.succ)


class _Nodes:
    def __init__(self, attrs: dict):
        self._attrs = attrs

    def __call__(self, data: bool = False):
        return list(self._attrs.items()) if data else list(self._attrs)

    def __getitem__(self, node) -> dict:
        return self._attrs[node]

    def __iter__(self) -> Iterator:
        return iter(self._attrs)

    def __len__(self) -> int:
        return len(self._attrs)

    def __contains__(self, node) -> bool:
        return node in self._attrs

    def items(self):
        return self._attrs.items()


class _Edges:
    def __init__(self, succ: dict):
        self._succ = succ

    def __call__(self, data: bool = False):
        return [(a, b, attrs) if data else (a, b) for a, children in self._succ.items() for b, attrs in children.items()]

    def __getitem__(self, edge) -> dict:
        a, b = edge
        return self._succ[a][b]

    def __iter__(self) -> Iterator:
        return iter(self())

    def __len__(self) -> int:
        return sum(map(len, self._succ.values()))

    def __contains__(self, edge) -> bool:
        a, b = edge
        return b in self._succ.get(a, ())


def descendants(graph: Digraph, node) -> set:
    """Every node reachable from ``node`` by one edge or more."""
    seen, stack = set(), list(graph.successors(node))
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(graph.successors(current))
    return seen


def has_path(graph: Digraph, a, b) -> bool:
    return a == b or b in descendants(graph, a)


def components(graph: Digraph) -> list[tuple]:
    """The strongly connected components, each sorted, every one after all it depends on
    (Tarjan's algorithm without recursion: it emits a component after its successors)."""
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    found: list[tuple] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph.successors(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.successors(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                found.append(tuple(sorted(members)))
    return found[::-1]


def shortest_path(graph: Digraph, a, b) -> list:
    """The nodes of a shortest path from ``a`` to ``b`` (breadth first), ``[]`` when there is none."""
    parent = {a: None}
    queue = [a]
    for node in queue:
        if node == b:
            path = []
            while node is not None:
                path.append(node)
                node = parent[node]
            return path[::-1]
        for child in graph.successors(node):
            if child not in parent:
                parent[child] = node
                queue.append(child)
    return []

