"""The predicate dependency graph: a small directed graph, so loading a school needs no networkx.

networkx (the derivation graphs' type) takes longer to import than a whole cast takes; the
checker needs only edges with attributes, reachability and the strongly connected
components in dependency order, which are here.

>>> g = Digraph(); g.add_edge("a", "b"); g.add_edge("b", "a"); g.add_edge("b", "c")
>>> components(g), sorted(descendants(g, "c")), has_path(g, "a", "c")
([('a', 'b'), ('c',)], [], True)
"""
from __future__ import annotations

from typing import Hashable, Iterator


class Digraph:
    """Nodes in insertion order; each edge carries a dict of attributes."""

    def __init__(self):
        self.succ: dict[Hashable, dict[Hashable, dict]] = {}
        self.pred: dict[Hashable, dict[Hashable, None]] = {}

    def add_node(self, node) -> None:
        if node not in self.succ:
            self.succ[node], self.pred[node] = {}, {}

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

    def successors(self, node) -> Iterator:
        return iter(self.succ[node])

    def predecessors(self, node) -> Iterator:
        return iter(self.pred[node])

    def __contains__(self, node) -> bool:
        return node in self.succ

    def __iter__(self) -> Iterator:
        return iter(self.succ)


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

