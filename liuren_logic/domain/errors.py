"""One error family for everything a user can get wrong: its root, the KB's errors and the input
error are the Datalog layer's (:mod:`liuren_logic.datalog.errors`); the chart's calendar adds its own,
and :class:`Notice` says what a user should know of an input that is not wrong.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..datalog.errors import DatalogError as LiurenError  # noqa: F401 (the family's root)
from ..datalog.errors import (  # noqa: F401 (the family, in one place)
    SHOWN, InputError, KBError, Position, Problem, render, shown)


@dataclass(frozen=True)
class Notice:
    """What a user should know of an input that is not wrong (a coordinate that changes nothing, the
    zone assumed): ``kind`` (warning or note), the message, the same in Chinese, the input it is about.
    The command line says it on standard error; the app shows it with its answer."""

    kind: str
    message: str
    zh: str
    field: str = ""

    def said(self, lang: str) -> str:
        """The message in ``lang``."""
        return self.zh if lang == "zh" else self.message

    def __str__(self) -> str:
        return f"liuren: {self.kind}: {self.message}"


class CalendarError(InputError):
    """A date, time zone or place that the calendar cannot turn into a chart."""


