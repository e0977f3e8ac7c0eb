"""A derivation that shows itself: a picture in a notebook, a tree when printed.

The engine returns plain graphs (``networkx.DiGraph``); wrap one to display it::

    from liuren_logic.explain import Derivation
    Derivation(session.why(chart, "initial"))            # the reader's view
    Derivation(session.why(chart, "initial"), full=True)  # every node
"""
from __future__ import annotations

from functools import cached_property
from typing import Optional

import networkx as nx


class Derivation:
    """A derivation graph with ``_repr_svg_`` / ``_repr_html_`` for notebooks."""

    def __init__(self, graph: nx.DiGraph, lang: str = "zh", full: bool = False, engine: Optional[str] = None):
        self.graph, self.lang, self.full, self.engine = graph, lang, full, engine

    @property
    def shown(self) -> nx.DiGraph:
        """The graph as drawn: all of it with ``full``, else the reader's view."""
        from .view import compact

        return self.graph if self.full else compact(self.graph)

    def to_dot(self) -> str:
        from .picture import to_dot

        return to_dot(self.shown, self.lang)

    def render(self, fmt: str = "svg") -> bytes:
        from .picture import render

        return render(self.shown, fmt, self.lang, engine=self.engine)

    @cached_property
    def svg(self) -> str:
        return self.render("svg").decode("utf-8")

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        from .page import esc, inline_svg

        return (f'<div class="liuren-derivation"><div style="overflow:auto">{inline_svg(self.svg)}</div>'
                f"<details><summary>text</summary><pre>{esc(str(self))}</pre></details></div>")

    def __str__(self) -> str:
        from .tree import render

        return render(self.graph, self.lang, full=self.full)

    def __repr__(self) -> str:
        return f"<Derivation {self.graph.graph.get('question', '')}: {self.graph.number_of_nodes()} nodes>"
