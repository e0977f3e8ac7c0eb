"""From a derivation to what people read.

``view`` (the reader's view of a graph), ``tree`` (text), ``lesson`` (numbered steps, zh/en),
``picture`` (DOT, SVG, PNG), ``page`` (one self-contained HTML file), ``board`` (the chart
drawn), ``notebook`` (:class:`Derivation`, a graph that displays itself).
"""
__all__ = ["Derivation"]


def __getattr__(name: str):
    """``Derivation`` on first use: the board and the lesson do not need it."""
    if name == "Derivation":
        from .notebook import Derivation

        return Derivation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
