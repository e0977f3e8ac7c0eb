"""What the board is made of: a :class:`Section` (a title and rows) of :class:`Cell` s (one thing
shown, and the question its click asks). The board, the 斷 and the page build and draw these."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Cell:
    """One thing shown: its text, a smaller note drawn before it (a palace's general), the
    question (``why`` question, value) whose derivation it shows when clicked, and whether it
    is a label drawn faint (earth's branches around the square)."""

    text: str
    ask: Optional[tuple[str, Optional[str]]] = None
    note: str = ""
    faint: bool = False

    @property
    def plain(self) -> str:
        return self.note + self.text


@dataclass(frozen=True)
class Fold:
    """Rows a section holds folded: on a page a click opens them in place under ``summary``; the
    terminal shows only ``summary`` and ``hint`` (where to see them all)."""

    summary: str
    hint: str
    rows: list[list[Cell]]


@dataclass
class Section:
    """One part of the board: a title and rows of cells. A ``grid`` aligns its cells in columns
    (``labels`` name them; ``stack`` rows at a time draw one thing each, as a lesson's three);
    other rows are cells joined by ``sep`` and wrapped at :data:`WIDTH` columns. An ``inline``
    grid without labels starts on its title's line."""

    key: str
    title: str
    rows: list[list[Optional[Cell]]] = field(default_factory=list)
    sep: str = " "
    grid: bool = False
    stack: int = 1
    labels: tuple[str, ...] = ()
    align: str = "<"
    inline: bool = False
    fold: Optional[Fold] = None
