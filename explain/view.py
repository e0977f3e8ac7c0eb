"""What a reader sees of a derivation: the graph with its plumbing folded away.

The full graph (``session.why``) holds every step the engine took. A reader wants the
steps the rule authors named, and what they rest on. :func:`compact` keeps

- the root, derived atoms (``atom``), base facts (``fact``), negations (``not``, ``holds``);
- rule applications whose rule carries a label (``labelled``);
- comparisons that fail (they are a reason), with the rule whose condition each is; in a
  why-not question, every rule that fails and every absent atom (they are the answer);

and folds away unlabelled rule steps, comparisons that hold (the rule's label already
states the result), aggregate nodes (their witnesses stay) and, below a negation in a
``why`` proof, the chain of failing rules (only what was checked and found absent stays).
A folded node's children attach to the nearest shown ancestor, in body order. The functions
take a ``networkx.DiGraph`` or any graph with its interface (the text output's
:class:`~liuren_logic.datalog.digraph.Digraph`), and :func:`compact` returns a graph of the same class.

>>> import networkx as nx
>>> g = nx.DiGraph(root="a")
>>> g.add_node("a", kind="atom", text="p(1)"); g.add_node("r", kind="rule", text="r", labelled=False)
>>> g.add_node("f", kind="fact", text="q(1)"); g.add_edge("a", "r", order=0); g.add_edge("r", "f", order=0)
>>> list(compact(g).edges)
[('a', 'f')]
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

NEGATIVE_ROOTS = ("absent", "fail")


def is_plumbing(graph: "nx.DiGraph", node: str) -> bool:
    """True when the compact view folds this node away."""
    attrs = graph.nodes[node]
    kind = attrs.get("kind")
    if kind in ("rule", "fail") and not attrs.get("labelled", True):
        return True
    if kind == "compare":
        return bool(attrs.get("holds"))
    if kind == "aggregate":
        return True
    if kind == "fail" and any(graph.nodes[c].get("kind") == "compare" for c in graph.successors(node)):
        return False  # a failed comparison means something only under the rule whose condition it is
    if _root_kind(graph) in NEGATIVE_ROOTS:
        return False
    return kind == "fail" or (kind == "absent" and graph.out_degree(node) > 0)


def _root_kind(graph: "nx.DiGraph") -> str | None:
    root = graph.graph.get("root")
    return graph.nodes[root].get("kind") if root in graph else None


def ordered_children(graph: "nx.DiGraph", node: str) -> list[str]:
    """A node's children in the order of the rule body, then by text."""
    return sorted(graph.successors(node),
                  key=lambda c: (graph.edges[node, c].get("order", 0), graph.nodes[c].get("text", "")))


def shown_below(graph: "nx.DiGraph", node: str, keep) -> list[tuple[str, dict]]:
    """The shown nodes nearest below ``node``, each with the attributes of the edge into it."""
    out: dict[str, dict] = {}
    seen: set[str] = set()

    def visit(parent: str) -> None:
        for child in ordered_children(graph, parent):
            if child in keep:
                attrs = dict(graph.edges[parent, child])
                if parent != node and not _chooses(graph.nodes[parent]):
                    attrs.pop("chosen", None)
                out.setdefault(child, attrs)
            elif child not in seen:
                seen.add(child)
                visit(child)

    visit(node)
    return list(out.items())


def _chooses(attrs: dict) -> bool:
    """Whether ``chosen`` on the edges below a node means anything (a max or min aggregate)."""
    return attrs.get("kind") == "aggregate" and attrs.get("func") in ("max", "min")


def compact(graph: "nx.DiGraph") -> "nx.DiGraph":
    """The graph as a reader sees it (see the module docstring), of the graph's class; attributes are kept."""
    root = graph.graph.get("root")
    keep = {n for n in graph if n == root or not is_plumbing(graph, n)}
    out = type(graph)(**graph.graph)
    reachable = {root} if root in graph else set(keep)
    stack = list(reachable)
    while stack:
        node = stack.pop()
        out.add_node(node, **graph.nodes[node])
        for order, (child, attrs) in enumerate(shown_below(graph, node, keep)):
            out.add_edge(node, child, **{**attrs, "order": order})
            if child not in reachable:
                reachable.add(child)
                stack.append(child)
    return out
