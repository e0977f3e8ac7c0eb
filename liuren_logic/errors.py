"""One error family for everything a user can get wrong.

Every error names what was expected, echoes the offending value and, for KB text,
gives ``path:line:col`` with a caret line, so the command line can print one clear
line (or one block) and exit without a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass


class LiurenError(Exception):
    """Base of every error this package raises on purpose."""


class InputError(LiurenError, ValueError):
    """A chart input (pillar, branch, date, zone, longitude …) is not acceptable."""


class CalendarError(InputError):
    """A date, time zone or place that the calendar cannot turn into a chart."""


@dataclass(frozen=True)
class Position:
    """Where something stands in a KB file (1-based line and column)."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Problem:
    """One finding of the parser or checker."""

    position: Position
    message: str
    source_line: str = ""

    def __str__(self) -> str:
        text = f"{self.position}: {self.message}"
        if self.source_line:
            caret = " " * (self.position.col - 1) + "^"
            text += f"\n    {self.source_line}\n    {caret}"
        return text


class KBError(LiurenError):
    """A knowledge base that cannot be loaded; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.position.path, p.position.line, p.position.col, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))
