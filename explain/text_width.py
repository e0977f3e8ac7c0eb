"""The width of text on a terminal or in a monospaced box, CJK characters counting two, and text
wrapped to a terminal's width."""
from __future__ import annotations

import re
import shutil
import unicodedata

PIPED_WIDTH = 100  # the columns text is wrapped to where no terminal says (piped, a file)
_AFTER = set("，、；。：！？）」』〕》」”)],;:!?·")  # a line may end after these
_BEFORE = set("（「『〔《«“([")  # … and a new one start with these
MIN_ROOM = 40  # the columns a continuation line keeps for text, however deep its tree
_LEAD = re.compile(r"^([ │├└─]*)((?:[·▪⇐✗✓Σ] )?)")  # a line's indent, tree glyphs and item mark


def columns(text: str) -> int:
    """The terminal columns ``text`` takes: two for a wide (CJK) character, one otherwise."""
    return sum(_width(ch) for ch in text)


def padded(text: str, width: int) -> str:
    """``text`` and the spaces that bring it to ``width`` columns (at least one), CJK counted as two."""
    return text + " " * max(1, width - columns(text))


def _width(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def terminal_width() -> int:
    """The columns of the terminal standard output is (``COLUMNS`` first), or PIPED_WIDTH when it is none."""
    return shutil.get_terminal_size((PIPED_WIDTH, 24)).columns


def wrap(text: str, width: int) -> str:
    """Each line of ``text`` no wider than ``width`` columns: a long line breaks after a separator
    (、，；。 a space …) or before an opening bracket, else between two CJK characters, else where it
    must; its continuation lines are indented under its text (a tree's glyphs carried down).

    >>> print(wrap("   · 甲：一二三四，五六七八；九十", 20))
       · 甲：一二三四，
         五六七八；九十
    >>> print(wrap("├─ ⇐ 乙丙丁戊己庚辛壬癸", 14))
    ├─ ⇐ 乙丙丁戊
    │    己庚辛壬
    │    癸
    """
    return "\n".join(part for line in text.split("\n") for part in _wrapped(line, width))


def _wrapped(line: str, width: int) -> list[str]:
    if columns(line) <= width:
        return [line]
    lead = _LEAD.match(line)
    indent = lead.group(1).replace("├─", "│ ").replace("└─", "  ").replace("─", " ") + " " * len(lead.group(2))
    while indent and columns(indent) > width - min(MIN_ROOM, width // 2):  # a tree too deep: its continuation keeps the outer glyphs
        indent = indent[:-1]
    out, rest, first = [], line, True
    while columns(rest) > width - (0 if first else columns(indent)):
        room = width - (0 if first else columns(indent))
        cut = _break(rest, room, len(lead.group(0)) if first else 0)
        out.append((rest[:cut] if first else indent + rest[:cut]).rstrip())
        rest, first = rest[cut:].lstrip(" "), False
    out.append(rest if first else indent + rest)
    return out


def _break(text: str, room: int, start: int) -> int:
    """Where to end a line of ``text`` that may take ``room`` columns (never before ``start``): after
    the last separator that fits (if it leaves the line at least half full), else between the last two
    CJK characters that fit, else at the edge."""
    used, fits, separator, between = 0, 0, 0, 0
    for i, ch in enumerate(text):
        used += _width(ch)
        if used > room:
            break
        fits = i + 1
        if fits <= start:
            continue
        following = text[fits] if fits < len(text) else ""
        if ch in _BEFORE:
            continue  # never a line that ends in an opening bracket
        if ch in _AFTER or ch == " " or following in _BEFORE:
            separator = fits
        elif _width(ch) == 2 and following and _width(following) == 2:
            between = fits
    if separator > start and separator >= fits // 2:
        return separator
    return between if between > start else max(fits, start + 1)
