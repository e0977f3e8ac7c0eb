"""The Datalog layer's errors: every one names what was expected and echoes the offending value;
for KB text it gives ``path:line:col`` with a caret line, so a command can print one clear line (or
one block) and exit without a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby


class DatalogError(Exception):
    """Base of every error raised on purpose (the package's ``LiurenError``)."""


class InputError(DatalogError, ValueError):
    """An input is not acceptable: a query here, a chart input (pillar, branch, date …) above.
    ``zh``: the same in Chinese, for the app's Chinese page; ``field``: the input it is about."""

    def __init__(self, message: str, zh: str = "", field: str = ""):
        super().__init__(message)
        self.zh, self.field = zh, field

    def said(self, lang: str) -> str:
        """The message in ``lang`` (English where no Chinese was given)."""
        return self.zh if lang == "zh" and self.zh else str(self)


@dataclass(frozen=True, slots=True)
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
        return render([self])


def did_you_mean(name: str, known) -> str:
    """`` (did you mean x?)`` for the known name closest to a misspelt one, else ``""``."""
    import difflib  # only for a program with a mistake in it: a warm start never checks

    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def render(problems: list[Problem]) -> str:
    """Each problem on its line; the source line, with a caret under every problem's column, once
    after the problems of that line (a 300-fact line with 300 problems is echoed once, not 300 times)."""
    blocks = []
    for _, same_line in groupby(problems, key=lambda p: (p.position.path, p.position.line)):
        same_line = list(same_line)
        blocks += [f"{p.position}: {p.message}" for p in same_line]
        source = same_line[0].source_line
        if source:
            columns = {p.position.col for p in same_line}
            carets = "".join("^" if col in columns else " " for col in range(1, max(columns) + 1))
            blocks.append(f"    {source}\n    {carets}")
    return "\n".join(blocks)


SHOWN = 50  # problems a command prints before it counts the rest (shown)


def shown(problems: list[Problem], limit: int = SHOWN) -> str:
    """The first ``limit`` problems rendered, then one line counting the rest, if any."""
    rest = len(problems) - limit
    return render(problems[:limit]) + (f"\n… and {rest} more problem{'s' * (rest != 1)}" if rest > 0 else "")


class KBError(DatalogError):
    """A knowledge base that cannot be loaded; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.position.path, p.position.line, p.position.col, p.message))
        super().__init__(render(self.problems))
