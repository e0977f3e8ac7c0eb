"""A short answer to a why-not question: its lines, and the derivation behind them, drawn when asked."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from .view import compact, ordered_children

if TYPE_CHECKING:
    import networkx as nx

PICTURE_DEPTH = 3  # the question, the decisive rule, its premises, the rules that derive them


@dataclass
class Answer:
    """A short why-not: its lines, the atoms they state (each holds), and the derivation behind them."""

    question: str
    lines: list[str]
    atoms: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    derive: Optional[Callable[[Optional[type]], "nx.DiGraph"]] = field(default=None, repr=False, compare=False)

    @property
    def graph(self) -> "nx.DiGraph":
        """The decisive reason's derivation, titled by the question and the answer."""
        return self.derivation()

    def derivation(self, graph_type: Optional[type] = None) -> "nx.DiGraph":
        """``graph`` as a ``graph_type`` (see :meth:`liuren_logic.datalog.provenance.Explainer.why`)."""
        graph = self.derive(graph_type)
        graph.graph["question"] = self.question
        graph.graph["answer"] = "\n".join(self.lines)
        return graph

    def picture(self, depth: int = PICTURE_DEPTH) -> "nx.DiGraph":
        """The reader's view of ``graph`` cut ``depth`` steps below the question (a negation not opened)."""
        graph = compact(self.graph)
        root = graph.graph["root"]
        keep, frontier = {root}, [root]
        for _ in range(depth):
            below = [c for n in frontier if graph.nodes[n]["kind"] not in ("not", "holds")
                     for c in ordered_children(graph, n)]
            frontier = [c for c in dict.fromkeys(below) if c not in keep]
            keep.update(frontier)
        return graph.subgraph(keep).copy()

    def as_dict(self) -> dict:
        return {"question": self.question, "lines": self.lines, "atoms": self.atoms, "rules": self.rules}
