"""From a derivation to what people read.

``view`` (the reader's view of a graph), ``tree`` (text), ``lesson`` (numbered steps, zh/en),
``picture`` (DOT, SVG, PNG), ``page`` (one self-contained HTML file), ``board`` (the chart
drawn), ``notebook`` (:class:`Derivation`, a graph that displays itself).
"""
from .notebook import Derivation

__all__ = ["Derivation"]
