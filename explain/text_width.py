"""The width of text on a terminal or in a monospaced box, CJK characters counting two."""
from __future__ import annotations

import unicodedata


def columns(text: str) -> int:
    """The terminal columns ``text`` takes: two for a wide (CJK) character, one otherwise."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
